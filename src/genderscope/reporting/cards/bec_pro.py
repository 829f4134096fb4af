"""Report card for BEC-Pro: :mod:`genderscope.measures.bec_pro`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import mean_first_column, top_rows
from genderscope.reporting.entry import (
    MULTIPLICITY_KEYS,
    Card,
    Context,
    Headline,
    MethodCard,
    Paired,
    from_ci,
)
from genderscope.results import Result


def per_group(ctx: Context) -> int | None:
    # 10, not 5: a CI over 5 professions covered 0.83-0.85 with a percentile bootstrap
    # (issue 22); the cluster t interval over 10 covers 0.94 (tests/stats/test_calibration.py)
    return ctx.size(10, quick=2)


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run bec-pro --professions N --subset-seed SEED --seed SEED
    --resamples R`` (``--templates 2`` with --quick)."""
    return "bec-pro", {"lang": "de" if ctx.lang == "de" else "en",
                       "professions": per_group(ctx), "templates": 2 if ctx.quick else None,
                       "subset_seed": ctx.seed, "seed": ctx.seed,
                       "resamples": ctx.n_resamples}


def headlines(r: Result) -> list[Headline]:
    """Mean paired difference male − female (profession-cluster CI), then per profession
    group the male vs female test over professions (Holm-adjusted across groups)."""
    out = [from_ci("association male − female person words (nats)",
                   r.summary.get("male_minus_female"), null=0.0, ci_unit_default="professions",
                   positive="professions associate more with male person words",
                   negative="professions associate more with female person words",
                   thresholds=(0.05, 0.2, 0.5), items_unit="sentence pairs")]
    tests = r.summary.get("male_vs_female", {})
    for g in [g for g in ("male", "female", "balanced") if g in tests]:
        t = tests[g]
        if t.get("p_value") is None:
            continue
        words = "balanced professions" if g == "balanced" else f"{g}-dominated professions"
        out.append(Headline(label=f"{words}: male vs female, {t.get('test')} "
                                  "(effect size r)", primary=False,
                            estimate=t.get("effect_size_r"), p_value=t.get("p_value"),
                            null=0.0, n=t.get("n_professions", t.get("n_pairs")),
                            items_unit="professions" if "n_professions" in t else "pairs",
                            positive="leans male", negative="leans female",
                            thresholds=(0.1, 0.3, 0.5),
                            **{k: t.get(k) for k in MULTIPLICITY_KEYS if k != "ci_unit"}))
    return out


def paired(r: Result) -> Paired | None:
    """The headline's mean paired difference, one row per (profession, person pair,
    pattern); the comparison bootstrap resamples professions (issue 11, item 3)."""
    from genderscope.measures.bec_pro import paired_rows

    w = paired_rows(r.items)
    if w.empty:
        return None
    keys = ["|".join(map(str, k)) for k in
            zip(w["prof_group"], w["profession_key"], w["pair_index"], strict=True)]
    frame = pd.DataFrame({"v": (w["male"] - w["female"]).to_numpy(float)}, index=keys)
    return Paired(frame, mean_first_column, unit="professions",
                  clusters=pd.Series(w["profession_key"].astype(str).to_numpy(), index=keys))


def plot(r: Result) -> Any:
    t = r.tables.get("by_group")
    if t is None or t.empty:
        return None
    fig, ax = plots.figure(6.4, 2.9)
    groups = list(dict.fromkeys(t["prof_group"]))
    plots.gender_bars(ax, t, gender="gender", by="prof_group", order=groups, value="mean",
                      noun="person words", labels=[f"{g}-dominated" if g != "balanced"
                                                   else "balanced" for g in groups])
    plots.null_line(ax, 0.0, vertical=False)
    ax.set_ylabel(f"association (nats, {plots.ci_label(t.get('ci_unit', ['professions']))})")
    plots.set_title(fig, "BEC-Pro: person-word association by profession group")
    return fig


def highlights(r: Result) -> pd.DataFrame | None:
    df = r.items
    agg = (df.groupby(["profession", "prof_group", "gender"])["association"].mean()
           .unstack("gender"))
    if not {"male", "female"} <= set(agg.columns):
        return None
    agg["male − female"] = agg["male"] - agg["female"]
    agg = agg.reset_index()
    return top_rows(agg, "male − female", ["profession", "prof_group", "male", "female",
                                       "male − female"], 3)


BEC_PRO = Card(
    name="bec-pro", title="BEC-Pro (professions and person words)", kinds=LM, langs=("en",),
    plan=plan, headlines=headlines, plot=plot, highlights=highlights, paired=paired,
    card=MethodCard(
        definition="Association of a person word with a profession: log P(person | sentence "
                   "with the person masked) − log P(person | sentence with person and "
                   "profession masked) (Bartl et al. 2020, eq. 1; causal LMs: the same "
                   "posterior over the corpus' person words from sentence likelihoods). "
                   "Headline: mean paired difference male − female person words over "
                   "professions and templates, with the two-way cluster bootstrap-variance t "
                   "CI over professions × person-word pairs (crossed); per profession group "
                   "the t test of that mean difference with the same two-way variance "
                   "(min(R, C) − 1 df; effect size r), Holm-adjusted across the groups.",
        citation="Bartl, Nissim & Gatt (2020). Unmasking Contextual Stereotypes: Measuring "
                 "and Mitigating BERT's Gender Bias. GeBNLP workshop.",
        caveats=("Profession groups follow US (BLS) employment statistics; their "
                 "stereotypes may not transfer to other countries.",
                 "The subset changes the closed world of the causal-LM definition (person "
                 "words and professions compared against each other)."),
        subset="10 professions per group (male, female, balanced) × 18 person words × 5 "
               "templates = 2,700 of 5,400 rows (--quick: 2 per group, 2 templates), seeded"))
