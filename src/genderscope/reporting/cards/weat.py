"""Report cards for WEAT (word vectors) and SEAT (sentence encoders),
:mod:`genderscope.measures.weat`: one plan per gender test (WEAT 6, 7, 8), each run and
stored as ``genderscope run weat --test weat6`` runs it; the card combines them (Holm
over the three)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import item_frame, top_rows
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

WEAT_TESTS = ("weat6", "weat7", "weat8")
SEAT_TESTS = ("sent-weat6", "sent-weat7", "sent-weat8")


def tests_dir(ctx: Context) -> Path:
    return ctx.data("seat") / "tests"


PERMUTATIONS = 10_000
"""Random re-partitions of a test (the plan's least; WEAT 6, 7, 8 and SEAT's word-level
tests are exact at every scope: C(16, 8) = 12,870 partitions)."""


def plans(ctx: Context, *, sentences: bool) -> list[tuple[str, dict[str, Any]]]:
    """One ``weat`` (``seat``) plan per gender test: ``genderscope run weat --test weat6
    --permutations 10000 --seed S`` stores the run a report's section reads."""
    return [("seat" if sentences else "weat",
             {"test": name, "tests_dir": tests_dir(ctx), "permutations": PERMUTATIONS,
              "seed": ctx.seed}) for name in (SEAT_TESTS if sentences else WEAT_TESTS)]


def tests_of(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tests of a summary: the card's (``tests``, adjusted over the card's family by
    :func:`combine`) or one stored run's (``test``): a family of one, so no adjusted p,
    whatever family a run stored by an older version was adjusted over."""
    if "tests" in summary:
        return dict(summary["tests"])
    if "test" not in summary:
        return {}
    return {str(summary["test"]): {k: v for k, v in summary.items()
                                   if k not in MULTIPLICITY_KEYS[:3]}}


def combine(parts: list[Result], ctx: Context) -> Result:
    """One Result of the tests' runs: Holm over their two-sided permutation p (the tests
    run together form one family), items and a table of the tests."""
    from genderscope.stats import annotate_family

    method = parts[0].method
    summaries = [copy.deepcopy(r.summary) for r in parts]  # the stored runs stay as they are
    names = [str(s["test"]) for s in summaries]
    annotate_family(summaries, f"{method.upper()} gender tests {', '.join(names)}")
    items = pd.concat([r.items.assign(test=s["test"]) for r, s in zip(parts, summaries,
                                                                     strict=True)],
                      ignore_index=True)
    rows = [{"test": s["test"], "X": s["categories"]["X"], "Y": s["categories"]["Y"],
             "A": s["categories"]["A"], "B": s["categories"]["B"],
             **{f"d_{k}": s["effect_size"][k] for k in ("estimate", "ci_low", "ci_high")},
             "p_value": s["p_value"], "p_adjusted": s["p_adjusted"],
             "p_one_sided": s.get("p_one_sided"), "exact": s["exact"]} for s in summaries]
    meta = {"model": parts[0].metadata.get("model"), "seed": ctx.seed,
            "params": {"tests": names, "n_permutations": PERMUTATIONS},
            "data": {s["test"]: r.metadata.get("data") for r, s in zip(parts, summaries,
                                                                      strict=True)}}
    return Result(method, {"tests": {s["test"]: s for s in summaries}}, items, meta,
                  tables={"tests": pd.DataFrame(rows)})


def _unit(r: Result) -> str:
    """The unit of the test and of d's CI (target words; for SEAT the source words whose
    template sentences stay together)."""
    return "source words" if r.method == "seat" else "target words"


def headlines(r: Result) -> list[Headline]:
    out = []
    for name, s in tests_of(r.summary).items():
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
    effects = [s["effect_size"] for s in tests_of(r.summary).values()]
    for name, s in tests_of(r.summary).items():
        c = s["categories"]
        e = s["effect_size"]
        rows.append((f"{name}\n{c['X']}/{c['Y']} × {c['A']}/{c['B']}", e["estimate"],
                     e["ci_low"], e["ci_high"]))
    if not rows:
        return None
    return plots.forest(rows, null=0.0,
                        xlabel="effect size d "
                        f"({plots.ci_label(effects, 'noncentral t CI', _unit(r))})",
                        title=f"{r.method.upper()}: gender association tests",
                        height=0.62 * len(rows) + 1.1)


def d_rows(a: np.ndarray) -> float:
    """Caliskan's d of rows (association, 1 for set X / 0 for Y): mean over X − mean over
    Y, over the std of all (ddof 1), as :func:`genderscope.measures.weat.effect_size`."""
    x, y = a[a[:, 1] == 1, 0], a[a[:, 1] == 0, 0]
    sd = np.std(a[:, 0], ddof=1) if len(a) > 1 else float("nan")
    if not x.size or not y.size or not sd:
        return float("nan")
    return float((x.mean() - y.mean()) / sd)


def z_first(a: np.ndarray) -> np.ndarray:
    """Rows with the association column z-scored over all rows (ddof 1): the same d
    (:func:`d_rows` is invariant to a positive affine map), one scale for every model."""
    out = a.astype(float, copy=True)
    sd = np.std(out[:, 0], ddof=1) if len(out) > 1 else 0.0
    if sd > 0:
        out[:, 0] = (out[:, 0] - out[:, 0].mean()) / sd
    return out


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
    return Paired(frame, d_rows, unit=_unit(r), clusters=clusters, standardize=z_first)


def highlights(r: Result) -> pd.DataFrame | None:
    return top_rows(r.items, "association", ["test", "set", "category", "text",
                                             "association"], 3)


COLUMNS = {"association": "association s(w, A, B) (cosine difference)"}
"""The page's name of the item column ``association`` (not in nats, as elsewhere)."""

CAVEATS = ("Small word sets: one word can move d a lot; the two-sided permutation p "
           "tests the null of no differential association (Caliskan's one-sided p is in "
           "the summary as p_one_sided).",
           "Ethayarajh, Duvenaud & Hirst (2019, ACL) show WEAT can over- or "
           "understate associations; read d as descriptive.")

WEAT = Card(
    name="weat", title="WEAT (word vectors)", kinds=("vectors",), langs=("en",),
    plans=lambda ctx: plans(ctx, sentences=False), combine=combine,
    headlines=headlines, plot=plot, highlights=highlights, columns=COLUMNS,
    card=MethodCard(
        definition="s(w) = mean cos(w, A) − mean cos(w, B); d = (mean s over X − mean s over "
                   "Y) / std of s over X ∪ Y (Caliskan et al. 2017, Science, eq. in the "
                   "Supplement); two-sided permutation p over target words, Holm-adjusted over "
                   "the three tests run together; 95% CI of d: the noncentral t interval "
                   "over words. "
                   "WEAT 6 (career/family), 7 (math/arts), 8 (science/arts) with "
                   "male/female attributes.",
        citation="Caliskan, Bryson & Narayanan (2017). Semantics derived automatically from "
                 "language corpora contain human-like biases. Science 356(6334).",
        caveats=CAVEATS, subset="the three gender tests WEAT 6, 7, 8 (all words)"))

SEAT = Card(
    name="seat", title="SEAT (sentence encoder or LM hidden states)",
    kinds=("encoder", *LM), langs=("en",),
    plans=lambda ctx: plans(ctx, sentences=True), combine=combine,
    headlines=headlines, plot=plot, highlights=highlights, paired=paired,
    columns=COLUMNS,
    card=MethodCard(
        definition="WEAT's effect size and permutation test over sentence embeddings of "
                   "semantically bleached templates ('This is a …') (May et al. 2019). The "
                   "unit is the source word: the two-sided permutation p re-partitions whole "
                   "words (their templates kept together), Holm-adjusted over the three tests "
                   "run together, and d's 95% CI is the noncentral t interval over source "
                   "words. May et al.'s "
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
