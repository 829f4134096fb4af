"""Report card for WEAT (word vectors) and SEAT (sentence encoders): default subset, run,
headlines, plot, highlights and method card.

The measure itself is :mod:`genderscope.measures.weat`; its docs page is
``docs/measures/weat.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from genderscope.measures.card_tools import (
    LM_KINDS,
    item_frame,
    top_rows,
)
from genderscope.report import plots
from genderscope.report.entry import (
    MULTIPLICITY_KEYS,
    Context,
    Headline,
    Measure,
    MethodCard,
    Paired,
    from_ci,
)
from genderscope.results import Result

WEAT_TESTS = ("weat6", "weat7", "weat8")
SEAT_TESTS = ("sent-weat6", "sent-weat7", "sent-weat8")


def tests_dir(ctx: Context) -> Path:
    return ctx.data("seat") / "tests"


def run(model: Any, ctx: Context, *, sentences: bool) -> Result:
    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.weat import seat, weat
    from genderscope.stats import annotate_family

    names = SEAT_TESTS if sentences else WEAT_TESTS
    results = []
    for name in names:
        test = resolve_test(name, tests_dir(ctx))
        if sentences:
            results.append(seat(model, test, n_permutations=ctx.n_permutations, seed=ctx.seed,
                                n_resamples=ctx.n_resamples, progress=ctx.progress))
        else:
            results.append(weat(model, test, n_permutations=ctx.n_permutations, seed=ctx.seed,
                                n_resamples=ctx.n_resamples))
    # the tests run together form one family: Holm over their two-sided permutation p
    annotate_family([r.summary for r in results],
                    f"{'SEAT' if sentences else 'WEAT'} gender tests {', '.join(names)}")
    items = pd.concat([r.items.assign(test=r.summary["test"]) for r in results],
                      ignore_index=True)
    rows = [{"test": r.summary["test"], "X": r.summary["categories"]["X"],
             "Y": r.summary["categories"]["Y"], "A": r.summary["categories"]["A"],
             "B": r.summary["categories"]["B"], **{f"d_{k}": r.summary["effect_size"][k]
                                                    for k in ("estimate", "ci_low", "ci_high")},
             "p_value": r.summary["p_value"], "p_adjusted": r.summary["p_adjusted"],
             "p_one_sided": r.summary.get("p_one_sided"),
             "exact": r.summary["exact"]} for r in results]
    summary = {"tests": {r.summary["test"]: r.summary for r in results}}
    meta = {"model": results[0].metadata.get("model"), "seed": ctx.seed,
            "params": {"tests": list(names), "n_permutations": ctx.n_permutations},
            "data": {r.summary["test"]: r.metadata.get("data") for r in results}}
    return Result("seat" if sentences else "weat", summary, items, meta,
                  tables={"tests": pd.DataFrame(rows)})


def _unit(r: Result) -> str:
    """The unit of the test and of d's CI (target words; for SEAT the source words whose
    template sentences stay together)."""
    return "source words" if r.method == "seat" else "target words"


def headlines(r: Result) -> list[Headline]:
    out = []
    for name, s in r.summary.get("tests", {}).items():
        c = s["categories"]
        out.append(from_ci(f"{name}: {c['X']} vs {c['Y']} × {c['A']} vs {c['B']} (d)",
                           {**s["effect_size"], "p_value": s.get("p_value"),
                            **{k: s[k] for k in MULTIPLICITY_KEYS[:3] if k in s}}, null=0.0,
                           ci_unit_default=_unit(r),
                           positive=f"{c['X']} closer to {c['A']}, {c['Y']} to {c['B']}",
                           negative=f"{c['X']} closer to {c['B']}, {c['Y']} to {c['A']}",
                           thresholds=(0.2, 0.5, 0.8)))
    return out


def plot(r: Result) -> Any:
    rows = []
    effects = [s["effect_size"] for s in r.summary.get("tests", {}).values()]
    for name, s in r.summary.get("tests", {}).items():
        c = s["categories"]
        e = s["effect_size"]
        rows.append((f"{name}\n{c['X']}/{c['Y']} × {c['A']}/{c['B']}", e["estimate"],
                     e["ci_low"], e["ci_high"]))
    if not rows:
        return None
    return plots.forest(rows, null=0.0,
                        xlabel="effect size d "
                        f"({plots.ci_label(effects, 'bootstrap CI', _unit(r))})",
                        title=f"{r.method.upper()}: gender association tests",
                        height=0.62 * len(rows) + 1.1)


def _d(a: np.ndarray) -> float:
    """Caliskan's d of rows (association, 1 for set X / 0 for Y): mean over X − mean over
    Y, over the std of all (ddof 1), as :func:`genderscope.measures.weat.effect_size`."""
    x, y = a[a[:, 1] == 1, 0], a[a[:, 1] == 0, 0]
    sd = np.std(a[:, 0], ddof=1) if len(a) > 1 else float("nan")
    if not x.size or not y.size or not sd:
        return float("nan")
    return float((x.mean() - y.mean()) / sd)


def paired(r: Result) -> Paired | None:
    """The first headline's d (the first test) item by item, for comparing two models on
    the same sentences (SEAT) or words (WEAT): one row per target text, resampled in
    whole source words (SEAT: a word's template sentences together, its unit of test and
    CI) or words (WEAT)."""
    tests = list(r.summary.get("tests", {}))
    df = r.items
    if not tests or "association" not in df or "test" not in df:
        return None
    rows = df[(df["test"] == tests[0]) & df["set"].isin(["X", "Y"])]
    rows = rows.assign(x=(rows["set"] == "X").astype(float),
                       unit=rows["set"] + ":" + rows.get("source_word", rows["text"]))
    frame = item_frame(rows, ["set", "text"], ["association", "x"])
    clusters = rows.drop_duplicates(["set", "text"]).set_index(["set", "text"])["unit"]
    return Paired(frame, _d, unit=_unit(r), clusters=clusters)


def highlights(r: Result) -> pd.DataFrame | None:
    df = r.items
    if "association" not in df:
        return None
    return top_rows(df, "association", ["test", "set", "category", "text", "association"], 3)


CAVEATS = ("Small word sets: one word can move d a lot; the two-sided permutation p "
           "tests the null of no differential association (Caliskan's one-sided p is in "
           "the summary as p_one_sided).",
           "Ethayarajh, Duvenaud & Hirst (2019, ACL) show WEAT can over- or "
           "understate associations; read d as descriptive.")

WEAT = Measure(
    name="weat", title="WEAT (word vectors)", kinds=("vectors",), langs=("en",),
    version="3",  # 2: Holm over the tests run together; 3: two-sided p, t CI over words
    run=lambda m, ctx: run(m, ctx, sentences=False), headlines=headlines,
    plot=plot, highlights=highlights,
    params=lambda ctx: {"tests": list(WEAT_TESTS), "seed": ctx.seed,
                        "n_permutations": ctx.n_permutations},
    data_files=lambda ctx: [tests_dir(ctx) / f"{t}.jsonl" for t in WEAT_TESTS],
    card=MethodCard(
        definition="s(w) = mean cos(w, A) − mean cos(w, B); d = (mean s over X − mean s over "
                   "Y) / std of s over X ∪ Y (Caliskan et al. 2017, Science, eq. in the "
                   "Supplement); two-sided permutation p over target words, Holm-adjusted over "
                   "the three tests run together; 95% CI of d: t interval over words. "
                   "WEAT 6 (career/family), 7 (math/arts), 8 (science/arts) with "
                   "male/female attributes.",
        citation="Caliskan, Bryson & Narayanan (2017). Semantics derived automatically from "
                 "language corpora contain human-like biases. Science 356(6334).",
        caveats=CAVEATS, subset="the three gender tests WEAT 6, 7, 8 (all words)"))

SEAT = Measure(
    name="seat", title="SEAT (sentence encoder or LM hidden states)",
    kinds=("encoder", *LM_KINDS), langs=("en",),
    version="3",  # 3: source words are the unit of the test and the CI; two-sided p
    run=lambda m, ctx: run(m, ctx, sentences=True), headlines=headlines,
    plot=plot, highlights=highlights, paired=paired,
    params=lambda ctx: {"tests": list(SEAT_TESTS), "seed": ctx.seed,
                        "n_permutations": ctx.n_permutations},
    data_files=lambda ctx: [tests_dir(ctx) / f"{t}.jsonl" for t in SEAT_TESTS],
    card=MethodCard(
        definition="WEAT's effect size and permutation test over sentence embeddings of "
                   "semantically bleached templates ('This is a …') (May et al. 2019). The "
                   "unit is the source word: the two-sided permutation p re-partitions whole "
                   "words (their templates kept together), Holm-adjusted over the three tests "
                   "run together, and d's 95% CI is a t interval over words. May et al.'s "
                   "sentence-level p (anti-conservative) is kept as p_as_published. On a "
                   "masked or causal LM (a debiased one included) a sentence's embedding is "
                   "the mean of its last hidden states over every token, L2-normalised, as "
                   "bias-bench runs SEAT on LMs (Meade et al. 2022); an INLP / "
                   "SentenceDebias projection applies to those states.",
        citation="May, Wang, Bordia, Bowman & Rudinger (2019). On Measuring Social Biases in "
                 "Sentence Encoders. NAACL.",
        caveats=(*CAVEATS, "May et al. found SEAT results inconsistent across "
                 "tests and encoders; a null result does not mean no bias."),
        subset="SEAT 6, 7, 8 (all sentences)"))


ENTRIES = (WEAT, SEAT,)
