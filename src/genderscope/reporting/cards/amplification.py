"""Report card for bias amplification (Zhao et al. 2017; Wang & Russakovsky 2021):
:mod:`genderscope.measures.amplification` and
:mod:`genderscope.measures.amplification_lm`; docs: ``docs/measures/amplification.md``.

In a report it applies to causal chat models (and endpoints), on request
(``--measure bias-amplification``): the model describes a person doing each of a seeded
subset of Zhao et al.'s imSitu activities, and the genders it writes are compared with
the training ratios. Its figure: training ratio b*(o, man) on the x axis, the model's
b~(o, man) on the y axis, the diagonal meaning no amplification. The corpus form is not
run in a report (no model writes those corpora), but the headlines read its stored runs
(``genderscope runs export --what headlines``).
"""

from __future__ import annotations

from typing import Any

from genderscope.measures.amplification import (  # noqa: F401 - plot_amplification: callers
    amplification_figure,
    plot_amplification,
)
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, from_ci
from genderscope.results import Result

REPORT_SIZE = (20, 6)
"""imSitu activities in a report (default, --quick); 3 templates x 3 sampled answers."""


def _plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """The model form's options in a report: a seeded subset of the imSitu activities
    (no ``resamples``: the model form resamples nothing; only the corpus form, not run in
    a report, uses it)."""
    return "bias-amplification", {
        "data": ctx.data_dir / "reducingbias" if ctx.data_dir else None,
        "limit": ctx.size(*REPORT_SIZE), "subset_seed": ctx.seed, "templates": 3,
        "samples": 2 if ctx.quick else 3, "seed": ctx.seed}


def _headlines(r: Result) -> list[Headline]:
    s = r.summary
    out = [from_ci("mean bias amplification", s.get("mean_bias_amplification"), null=0.0,
                   ci_unit_default="objects",
                   positive="output more gender-skewed than training data",
                   negative="output less gender-skewed than training data",
                   thresholds=(0.005, 0.02, 0.05))]
    for key, label in (("biasamp_t_to_a", "BiasAmp-> task -> gender"),
                       ("biasamp_a_to_t", "BiasAmp-> gender -> task")):
        if key in s:
            out.append(from_ci(label, s[key], null=0.0, ci_unit_default="objects",
                               positive="amplifies the training correlations",
                               negative="weakens the training correlations",
                               thresholds=(0.005, 0.02, 0.05), primary=False))
    if "share_none" in s:
        out.append(from_ci("answers naming no gender", s["share_none"], null=None,
                           primary=False))
    return out


BIAS_AMPLIFICATION = Card(
    name="bias-amplification", title="Bias amplification (Zhao et al. 2017; BiasAmp->)",
    kinds=("causal", "captions"), langs=("en",), default=False, plan=_plan,
    headlines=_headlines, plot=amplification_figure,
    card=MethodCard(
        definition="Mean over objects (activities) of the increase in gender skew "
                   "b(o, g) = c(o, g) / Σ_g' c(o, g') from training data to the output "
                   "(Zhao et al. 2017, eq. 2); BiasAmp-> (Wang & Russakovsky 2021, eq. 2) "
                   "beside it. A chat model's output: its answers to neutral prompts "
                   "about each imSitu activity (genders read with the caption word "
                   "lists), against the imSitu training ratios. 95 % CI: over items and "
                   "templates (model) or a percentile bootstrap over objects (corpora); "
                   "no test.",
        citation="Zhao, Wang, Yatskar, Ordonez & Chang (2017). Men Also Like Shopping. "
                 "EMNLP. Wang & Russakovsky (2021). Directional Bias Amplification. ICML.",
        caveats=("A language model was not trained on imSitu: the training ratios are a "
                 "reference distribution, not the model's own training data, so the "
                 "number says whether the model is more skewed than imSitu, not that it "
                 "amplified its data.",
                 "Answers naming no gender are left out of b~ (their share is shown).",
                 "Caption corpora (the original form) are run with `genderscope run "
                 "bias-amplification --train ... --generated ...`.")))
