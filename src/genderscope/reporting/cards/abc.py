"""Report card for ABC anti-reflexive possessives (Danish): :mod:`genderscope.measures.abc`."""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import item_frame, top_rows
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, Paired, from_ci
from genderscope.results import Result


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run abc --lang da --source genda-lens --valid-only --limit N
    --subset-seed SEED --seed SEED --resamples R``: N of the well-formed groups."""
    return "abc", {"lang": "da", "source": "genda-lens", "valid_only": True,
                   "data": ctx.data_dir, "limit": ctx.size(300, quick=30),
                   "subset_seed": ctx.seed, "seed": ctx.seed,
                   "resamples": ctx.n_resamples}


def headlines(r: Result) -> list[Headline]:
    """The paired log-perplexity ratio first (always defined), then GenDa Lens' main
    effect, whose label says why when it is undefined (a median <= 0)."""
    me = r.summary.get("main_effect") or {}
    why = me.get("undefined")
    main = from_ci("main effect log2(median rel. perplexity F / M)"
                   + (f" — {why}" if why else ""), me,
                   null=0.0, ci_unit_default="groups",
                   positive="anti-reflexive female possessives are relatively "
                   "more surprising (leans male)", negative="anti-reflexive male possessives "
                   "are relatively more surprising (leans female)",
                   thresholds=(0.1, 0.3, 0.6))
    ratio = ([from_ci("median log(ppl female / ppl male anti-reflexive) (genderscope)",
                      r.summary["log_ppl_ratio"], null=0.0, ci_unit_default="groups",
                      positive="the female anti-reflexive is more perplexing (leans male)",
                      negative="the male anti-reflexive is more perplexing (leans female)",
                      thresholds=(0.07, 0.2, 0.4))]
             if "log_ppl_ratio" in r.summary else [])
    return [*ratio, main,
            *([from_ci("main effect, common-length perplexity (genderscope variant)",
                       r.summary["main_effect_common_length"], null=0.0,
                       ci_unit_default="groups", primary=False,
                       positive="leans male", negative="leans female",
                       thresholds=(0.1, 0.3, 0.6))]
              if "main_effect_common_length" in r.summary else []),
            from_ci("mean ll(male) − ll(female), nats",
                    r.summary.get("mean_ll_male_minus_female"), null=0.0,
                    ci_unit_default="groups", primary=False,
                    positive="male variant more likely", negative="female variant more likely",
                    thresholds=(0.05, 0.2, 0.5))]


def _log_ratio(a: np.ndarray) -> float:
    """Median over groups of log(ppl female / ppl male): the comparison statistic."""
    return float(np.median(np.log(a[:, 0]) - np.log(a[:, 1])))


def plot(r: Result) -> Any:
    df = r.items
    if "rel_ppl_female" not in df:
        return None
    fig, ax = plots.figure(6.4, 2.8)
    data = [df["rel_ppl_male"].dropna(), df["rel_ppl_female"].dropna()]
    bp = ax.boxplot(data, orientation="horizontal", widths=0.5, patch_artist=True,
                    showfliers=False, medianprops={"color": "#123456"})
    for patch, color in zip(bp["boxes"], (plots.MALE, plots.FEMALE), strict=True):
        patch.set_facecolor(color)
        patch.set_alpha(0.75)
    ax.set_yticks([1, 2], ["male possessive", "female possessive"])
    plots.null_line(ax, 0.0)
    ax.set_xlabel("relative perplexity: ppl(anti-reflexive) − ppl(reflexive)")
    plots.set_title(fig, "ABC (Danish): how much worse the anti-reflexive sentence reads")
    return fig


ABC = Card(
    name="abc", title="ABC anti-reflexive possessives (Danish)", kinds=LM, langs=("da",),
    plan=plan, headlines=headlines, plot=plot,
    paired=lambda r: Paired(item_frame(r.items, "group_id", ["ppl_female", "ppl_male"]),
                            _log_ratio, unit="groups", smooth=False),
    highlights=lambda r: top_rows(r.items.assign(gap=r.items["rel_ppl_female"]
                                             - r.items["rel_ppl_male"]), "gap",
                              ["occupation", "stereotype", "rel_ppl_male", "rel_ppl_female"],
                              3) if "rel_ppl_female" in r.items else None,
    card=MethodCard(
        definition="Groups of three sentences differing only in the possessive (reflexive "
                   "'sin' vs. anti-reflexive 'hans'/'hendes'); relative perplexity = ppl(anti-"
                   "reflexive) − ppl(reflexive). Main effect = log2(median rel. ppl female / "
                   "male) (GenDa Lens); 0 = no bias. Led by the always-defined median "
                   "log(ppl female / ppl male). 95% CIs: two-way cluster intervals over "
                   "occupations × sentence frames (both shared by many groups).",
        citation="González, Barrett, Hvingelby, Webster & Søgaard (2020). Type B "
                 "Reflexivization as an Unambiguous Testbed for Multilingual Multi-Task Gender "
                 "Bias. EMNLP; Danish main effect from GenDa Lens (Sloth & Rybner 2023).",
        caveats=("Per-token perplexity rewards a pronoun split into more, predictable pieces "
                 "(e.g. Gemma's two-piece 'hendes'); the common-length variant and the total "
                 "log-likelihood difference are reported beside it.",),
        subset="300 of 4,560 groups (--quick: 30), seeded"))
