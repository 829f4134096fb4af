"""Report card for mean bias amplification (captions): method card and headline, and the
figure `genderscope run bias-amplification --plot` saves.

The card never runs in a report, and loads nothing: the measure compares a captioning
model's output captions (or its per-object ratio table) with its training captions,
and no model a report is given (language models, word vectors, sentence encoders,
classifiers) writes captions, so it applies to none of them (kind ``captions``).
``genderscope run bias-amplification`` (or ``gs.run``) runs it through its plan and
stores it under the plan's reuse key (the corpora's content); the card's headline
reads that stored run (``genderscope runs export --what headlines``); the figure is
the measure's own (:func:`genderscope.measures.amplification.plot_amplification`).

The measure itself is :mod:`genderscope.measures.amplification`; its docs page is
``docs/measures/amplification.md``.
"""

from __future__ import annotations

from genderscope.reporting.entry import Card, MethodCard, from_ci

BIAS_AMPLIFICATION = Card(
    name="bias-amplification", title="Mean bias amplification (captions)",
    kinds=("captions",), default=False,
    headlines=lambda r: [from_ci("mean bias amplification",
                                 r.summary.get("mean_bias_amplification"), null=0.0,
                                 ci_unit_default="objects",
                                 positive="output more gender-skewed than training data",
                                 negative="output less gender-skewed than training data",
                                 thresholds=(0.005, 0.02, 0.05))],
    card=MethodCard(
        definition="Mean over objects of the increase in gender skew b(o, g) = c(o, g) / "
                   "Σ_g' c(o, g') from training data to model output (Zhao et al. 2017, "
                   "eq. 2). 95 % CI: percentile bootstrap over the objects (or activities) "
                   "the mean runs over; no test, so no multiplicity family.",
        citation="Zhao, Wang, Yatskar, Ordonez & Chang (2017). Men Also Like Shopping. EMNLP.",
        caveats=("Needs a captioning model's outputs and its training captions; a report's "
                 "models write no captions, so it is not run in a report: use `genderscope "
                 "run bias-amplification`.",)))


from genderscope.measures.amplification import plot_amplification  # noqa: E402,F401

ENTRIES = (BIAS_AMPLIFICATION,)
