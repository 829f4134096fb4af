"""Report card for the log-probability bias score (LPBS), on the career-family test:
:mod:`genderscope.measures.lpbs`."""

from __future__ import annotations

from typing import Any

from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import item_frame, top_rows
from genderscope.reporting.cards.weat import d_rows, z_first
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, Paired
from genderscope.results import Result


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run lpbs --test career-family --permutations 10000 --seed SEED
    --resamples R`` (10,000 permutations also with --quick: the plan's least)."""
    return "lpbs", {"test": "career-family", "permutations": 10_000,
                    "resamples": ctx.n_resamples, "seed": ctx.seed}


def headlines(r: Result) -> list[Headline]:
    s = r.summary
    return [Headline(label=f"effect size d ({s.get('x')} vs {s.get('y')} words)",
                     estimate=s.get("effect_size"), p_value=s.get("p_two_sided"), null=0.0,
                     n=sum((s.get("n_words") or {}).values()) or s.get("n_items"),
                     positive=f"{s.get('x')} words raise 'he' vs 'she' more than "
                              f"{s.get('y')} words",
                     negative=f"{s.get('y')} words raise 'he' vs 'she' more than "
                              f"{s.get('x')} words",
                     thresholds=(0.2, 0.5, 0.8))]


def plot(r: Result) -> Any:
    s = r.summary
    rows = [(f"{s.get('x')} words", s["mean_lpbs"].get(s.get("x"), {})),
            (f"{s.get('y')} words", s["mean_lpbs"].get(s.get("y"), {}))] \
        if isinstance(s.get("mean_lpbs"), dict) else []
    rows = [(lab, c["estimate"], c.get("ci_low"), c.get("ci_high")) for lab, c in rows
            if c.get("estimate") is not None]
    if not rows:
        return None
    return plots.forest(rows, null=0.0,
                        xlabel="mean prior-corrected log-probability bias (nats; > 0 leans "
                        f"male; {plots.ci_label(s['mean_lpbs'].values())})",
                        title=f"LPBS {s.get('test')}: mean bias per attribute set",
                        colors=[plots.SERIES[1], plots.SERIES[2]])


def paired(r: Result) -> Paired:
    """The headline's d over attribute-word means (each word averaged over templates, as
    :func:`genderscope.measures.lpbs.effect` does): one row per word."""
    from genderscope.measures.lpbs import word_means

    words = word_means(r.items)
    frame = words.assign(x=(words["set"] == r.summary.get("x")).astype(float))
    return Paired(item_frame(frame, "attribute", ["lpbs", "x"]), d_rows,
                  unit="attribute words", standardize=z_first)


LPBS = Card(
    name="lpbs", title="Log-probability bias score (career vs family)", kinds=LM,
    langs=("en",), plan=plan, headlines=headlines, plot=plot, paired=paired,
    highlights=lambda r: top_rows(r.items, "lpbs", ["set", "template", "attribute", "lpbs"], 3),
    card=MethodCard(
        definition="For templates like 'GGG likes to XXX', the prior-corrected bias of an "
                   "attribute word is log(p_he / p_he,prior) − log(p_she / p_she,prior) "
                   "(Kurita et al. 2019, Sec. 3), averaged over templates. Career vs family "
                   "words are compared with a WEAT-style effect size d over those word means "
                   "and a permutation test re-partitioning the words (two-sided p); set-mean "
                   "CIs: Student's t intervals over words.",
        citation="Kurita, Vyas, Pareek, Black & Tsvetkov (2019). Measuring Bias in "
                 "Contextualized Word Representations. GeBNLP workshop.",
        caveats=("Few templates and words: the test has little power; p-values, not CIs, "
                 "carry the uncertainty.", "Causal LMs use the probe's sentence-likelihood "
                 "definitions, not a fill-in."),
        subset="the whole built-in career-family test"))
