"""Report card for CrowS-Pairs: :mod:`genderscope.measures.crows_pairs`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import item_frame, mean_first_column, top_rows
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, Paired, from_ci
from genderscope.results import Result

BLODGETT = ("Blodgett, Lopez, Olteanu, Sim & Wallach (2021, ACL, 'Stereotyping Norwegian "
            "Salmon') found many pairs that do not contrast a stereotype with its opposite, "
            "mix up groups, or differ in more than the group word; treat the score as a "
            "noisy indicator, not a certification.")


def subset_size(ctx: Context) -> int | None:
    return ctx.size(None, quick=40)


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run crows-pairs --bias-type gender --limit N --subset-seed SEED``."""
    return "crows-pairs", {"bias_type": "gender", "data": ctx.data_dir,
                           "limit": subset_size(ctx), "subset_seed": ctx.seed}


def headlines(r: Result) -> list[Headline]:
    return [from_ci("% pairs where the stereotypical sentence is preferred",
                    r.summary.get("percent_stereotypical_gender")
                    or r.summary.get("percent_stereotypical"),
                    null=50.0, unit="%", positive="prefers stereotypical sentences",
                    ci_unit_default="pairs",
                    negative="prefers anti-stereotypical sentences",
                    thresholds=(2.0, 5.0, 10.0))]


def plot(r: Result) -> Any:
    s = r.summary
    rows = [("all gender pairs", s.get("percent_stereotypical_gender")
             or s.get("percent_stereotypical"))]
    for d, lab in (("stereo", "pairs about a stereotype"),
                   ("antistereo", "pairs about an anti-stereotype")):
        if f"percent_stereotypical_{d}_pairs" in s:
            rows.append((lab, s[f"percent_stereotypical_{d}_pairs"]))
    return plots.forest([(f"{lab} (n={c.get('n')})", c["estimate"], c["ci_low"], c["ci_high"])
                         for lab, c in rows if c], null=50.0,
                        xlabel="% pairs preferring the stereotypical sentence "
                        f"({plots.ci_label((c for _, c in rows if c), default='pairs')})",
                        title="CrowS-Pairs (gender): 50 % = no preference",
                        colors=plots.SERIES[:3])


def highlights(r: Result) -> pd.DataFrame | None:
    df, col = r.items, "score more − less"
    if "sent_more" not in df:
        return None
    return top_rows(df.assign(**{col: df["score_more"] - df["score_less"]}), col,
                    ["direction", "sent_more", "sent_less", col], 3)


CROWS_PAIRS = Card(
    name="crows-pairs", title="CrowS-Pairs (gender)", kinds=LM, langs=("en",),
    plan=plan, headlines=headlines, plot=plot,
    highlights=highlights,
    paired=lambda r: Paired(item_frame(r.items.assign(
        v=100.0 * r.items["stereotypical_preferred"].astype(float)), "pair_id", ["v"]),
        mean_first_column, unit="pairs"),
    card=MethodCard(
        definition="Share of sentence pairs (stereotypical vs. less stereotypical, differing "
                   "in the group words) where the model gives the more stereotypical sentence "
                   "the higher score. Masked LM: pseudo-log-likelihood of the shared tokens "
                   "(Nangia et al. 2020, Sec. 3); causal LM: sentence log-likelihood. 50 % = "
                   "no preference; 95 % Wilson CI.",
        citation="Nangia, Vania, Bhalerao & Bowman (2020). CrowS-Pairs: A Challenge Dataset "
                 "for Measuring Social Biases in Masked Language Models. EMNLP.",
        caveats=(BLODGETT, "Only the 262 gender pairs are used here; ties count as not "
                 "stereotypical.", "Causal LMs are scored with whole-sentence likelihood, "
                 "not the paper's masked-LM metric."),
        subset="all 262 gender pairs (--quick: 40, seeded)"))
