"""Report card for mean bias amplification (captions): method card and headline, and the
figure `genderscope run bias-amplification --plot` saves.

The card never runs in a report, and loads nothing: the measure compares a captioning
model's output captions (or its per-object ratio table) with its training captions,
and no model a report is given (language models, word vectors, sentence encoders,
classifiers) writes captions, so it applies to none of them (kind ``captions``).
``genderscope run bias-amplification`` (or ``gs.run``) runs it through its plan and
stores it under the plan's reuse key (the corpora's content); the card's headline
reads that stored run (``genderscope runs export --what headlines``) and the plan
draws :func:`plot_amplification`.

The measure itself is :mod:`genderscope.measures.amplification`; its docs page is
``docs/measures/amplification.md``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from genderscope.report.entry import Measure, MethodCard, from_ci
from genderscope.results import Result

BIAS_AMPLIFICATION = Measure(
    name="bias-amplification", title="Mean bias amplification (captions)",
    kinds=("captions",), run=None, default=False,
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


# Okabe-Ito colour-blind-safe palette
BLUE, ORANGE, GREY = "#0072B2", "#E69F00", "#999999"


def plot_amplification(result: Result, path: str | Path, *, top: int = 10,
                       title: str | None = None) -> Path:
    """Save a two-panel figure (PNG or SVG by ``path`` suffix) and return its path: the
    training bias b*(o, g1) against the output bias b~(o, g1) per object (after Zhao et
    al. 2017, Fig. 2), plus the objects that amplify most and least."""
    import matplotlib.pyplot as plt

    from genderscope.report import plots  # noqa: F401 - selects the Agg backend

    items = result.items[result.items["status"] == "included"]
    g1 = result.summary["groups"][0]
    train_col = f"b_train_{g1}"
    out_col = next(c for c in items.columns if c.startswith("b_") and c.endswith(f"_{g1}")
                   and c != train_col)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.8))
    amp = items["amplification"].to_numpy()
    colours = np.where(amp > 0, ORANGE, BLUE)
    ax1.scatter(items[train_col], items[out_col], c=colours, s=18, alpha=0.85,
                edgecolors="none")
    ax1.plot([0, 1], [0, 1], color=GREY, lw=1, ls="--", label="no amplification")
    ax1.axvline(0.5, color=GREY, lw=0.6)
    ax1.axhline(0.5, color=GREY, lw=0.6)
    ax1.set_xlim(0, 1)
    ax1.set_ylim(0, 1)
    ax1.set_xlabel(f"training bias b*(o, {g1})")
    ax1.set_ylabel(f"output bias b~(o, {g1})")
    ax1.scatter([], [], c=ORANGE, s=18, label="amplified")
    ax1.scatter([], [], c=BLUE, s=18, label="not amplified")
    ax1.legend(loc="upper left", fontsize=8, frameon=False)
    ranked = items.sort_values("amplification")
    sel = ranked if len(ranked) <= 2 * top else \
        ranked.iloc[np.r_[0:top, len(ranked) - top:len(ranked)]]
    vals = sel["amplification"].to_numpy()
    ax2.barh(range(len(sel)), vals, color=np.where(vals > 0, ORANGE, BLUE))
    ax2.set_yticks(range(len(sel)), [str(o).replace("_", " ") for o in sel["object"]],
                   fontsize=7)
    ax2.axvline(0, color="black", lw=0.8)
    ax2.set_xlabel("amplification of the training-majority gender")
    mean = result.summary["mean_bias_amplification"]
    ax2.set_title(f"mean {mean['estimate']:+.4f} [{mean['ci_low']:+.4f}, "
                  f"{mean['ci_high']:+.4f}], n = {len(items)}", fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=150)
    plt.close(fig)
    return out


ENTRIES = (BIAS_AMPLIFICATION,)
