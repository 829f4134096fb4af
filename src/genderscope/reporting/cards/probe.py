"""Report card for the template probe 'GGG is a XXX.': :mod:`genderscope.measures.probe`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from genderscope.catalog._common import subset
from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import item_frame, mean_first_column, top_rows
from genderscope.reporting.entry import Card, Context, MethodCard, Paired, from_ci
from genderscope.results import Result


def profession_targets() -> list[str]:
    from genderscope.datasets import bec_pro as data_mod

    return list(dict.fromkeys(data_mod.professions("en")["profession"].astype(str)))


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``gs.run("probe", targets=T)`` (template 'GGG is a XXX.', he/she): T the BEC-Pro
    English professions, 12 of them seeded by SEED with --quick."""
    targets = profession_targets()
    if ctx.quick:
        targets = subset(targets, 12, ctx.seed)
    return "probe", {"targets": targets}  # the plan's default template and pair


def plot(r: Result) -> Any:
    df = r.items.sort_values("corrected_bias")
    df = pd.concat([df.head(8), df.tail(8)]).drop_duplicates()
    fig, ax = plots.figure(6.4, max(2.2, 0.24 * len(df) + 0.9))
    colors = [plots.MALE if v > 0 else plots.FEMALE for v in df["corrected_bias"]]
    ax.barh(range(len(df)), df["corrected_bias"], color=colors)
    ax.set_yticks(range(len(df)), df["target"])
    plots.null_line(ax, 0.0)
    ax.set_xlabel("prior-corrected bias, nats (> 0: 'he', < 0: 'she')")
    plots.set_title(fig, "'GGG is a XXX.': the 8 most female- and male-leaning professions")
    return fig


PROBE = Card(
    name="probe", title="Template probe 'GGG is a XXX.' (professions)", kinds=LM,
    langs=("en",), plan=plan,
    headlines=lambda r: [from_ci("mean prior-corrected bias he vs she (nats)",
                                 r.summary.get("corrected_bias"), null=0.0,
                                 ci_unit_default="professions",
                                 positive="professions lean 'he'",
                                 negative="professions lean 'she'",
                                 thresholds=(0.05, 0.2, 0.5))],
    plot=plot,
    paired=lambda r: Paired(item_frame(r.items, "target", ["corrected_bias"]), mean_first_column,
                            unit="professions"),
    highlights=lambda r: top_rows(r.items, "corrected_bias", ["target", "fill_bias", "prior_bias",
                                                          "corrected_bias"], 4),
    card=MethodCard(
        definition="For each profession XXX, log P(he | 'GGG is a XXX.') − log P(she | …), "
                   "minus the same difference with the profession hidden (the prior) "
                   "(Kurita et al. 2019). Mean over professions, bootstrap-t CI over "
                   "professions (Student's t at 5 or fewer).",
        citation="Kurita, Vyas, Pareek, Black & Tsvetkov (2019). GeBNLP workshop.",
        caveats=("One template: results can change with the wording; use LPBS or BEC-Pro for "
                 "template-averaged scores.",),
        subset="the 60 BEC-Pro English professions (--quick: 12)"))
