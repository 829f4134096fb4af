"""Report card for the counterfactual flip test (classifiers):
:mod:`genderscope.measures.counterfactual`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import needs_texts
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, from_ci
from genderscope.results import Result


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run counterfactual --data TEXTS --limit N --sample-seed SEED --seed
    SEED --resamples R`` (packaged English word pairs, no name swaps)."""
    n = ctx.size(500, quick=50)
    return "counterfactual", {"data": ctx.texts, "limit": n,
                              "sample_seed": ctx.seed if n is not None else None,
                              "seed": ctx.seed, "resamples": ctx.n_resamples}


def headlines(r: Result) -> list[Headline]:
    s = r.summary
    diff = (s.get("m2f_minus_f2m") or {}).get("flip_rate")
    out = [from_ci("flip rate after swapping gendered words", (s.get("all") or {}).get(
        "flip_rate"), null=0.0, ci_unit_default="texts",
        positive="predictions change when gender is swapped",
        negative="", thresholds=(0.005, 0.02, 0.05))]
    if diff:
        out.append(from_ci("flip rate male→female minus female→male", diff, null=0.0,
                           ci_unit_default="texts",
                           positive="more flips when male texts are made female",
                           negative="more flips when female texts are made male",
                           thresholds=(0.01, 0.03, 0.1)))
    return out


def plot(r: Result) -> Any:
    s = r.summary
    ran = [k for k in ("all", "m2f", "f2m") if isinstance(s.get(k), dict) and s[k].get("n")]
    if not ran:
        return None
    rows = [(f"{k} (n={s[k]['n']})", s[k]["flip_rate"]["estimate"], s[k]["flip_rate"]["ci_low"],
             s[k]["flip_rate"]["ci_high"]) for k in ran]
    units = [s[k]["flip_rate"] for k in ran]
    return plots.forest(rows, null=0.0,
                        xlabel="share of texts whose label flips "
                        f"({plots.ci_label(units, default='texts')})",
                        title="Counterfactual flip test", colors=[plots.SERIES[0],
                                                                  plots.MALE, plots.FEMALE])


COUNTERFACTUAL = Card(
    name="counterfactual", title="Counterfactual flip test (classifier)", kinds=("classifier",),
    langs=("en",),
    plan=plan, headlines=headlines, plot=plot, needs=needs_texts,
    highlights=lambda r: r.tables.get("examples", pd.DataFrame()).head(6)
    if r.tables.get("examples") is not None else None,
    card=MethodCard(
        definition="Swap gendered words (he↔she, man↔woman, …) in each text and compare the "
                   "classifier's label and probability before and after; flip rate with a "
                   "Wilson CI over texts, and male→female vs female→male difference.",
        citation="Garg, Perot, Limtiaco, Taly, Chi & Beutel (2019). Counterfactual Fairness in "
                 "Text Classification through Robustness. AIES; Dixon et al. (2018).",
        caveats=("Word swaps can produce ungrammatical or implausible texts (e.g. her → his/"
                 "him); texts without gendered words are not counted.",),
        subset="500 texts (--quick: 50), seeded sample"))
