"""Report cards of RIPA, RND, ECT, MAC and RNSB (word vectors) on the gender tests WEAT
6, 7, 8: one plan per test (each run and stored as ``genderscope run ripa --test weat6``
runs it), combined into one section with headlines, plot, highlights and method card.
The metrics are :mod:`genderscope.measures.embedding_metrics`; docs in
``docs/measures/<name>.md``.
These entries are run on request only (``--measure ripa``), WEAT being the default."""

from __future__ import annotations

from typing import Any

import pandas as pd

from genderscope.catalog.embedding_metrics import TESTED
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import top_rows
from genderscope.reporting.cards.weat import WEAT_TESTS, tests_dir, tests_of
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, from_ci
from genderscope.results import Result

NULLS = {"ripa": 0.0, "rnd": 0.0, "ect": 1.0, "mac": None, "rnsb": 0.0}


def _resamples(name: str, ctx: Context) -> int:
    """Bootstrap replicates: RNSB refits a classifier per replicate, so a tenth as many
    (1,000; 100 when quick)."""
    return ctx.n_resamples if name != "rnsb" else ctx.n_resamples // 10


def plans(name: str, ctx: Context) -> list[tuple[str, dict[str, Any]]]:
    """One plan of metric ``name`` per test: ``genderscope run ripa --test weat6
    --permutations P --resamples R --seed S`` stores the run a report's section reads."""
    opts: dict[str, Any] = {"tests_dir": tests_dir(ctx), "seed": ctx.seed,
                            "resamples": _resamples(name, ctx)}
    if name in TESTED:  # the others take no permutations: their default keys the run
        opts["permutations"] = ctx.n_permutations
    return [(name, {"test": t, **opts}) for t in WEAT_TESTS]


def combine(parts: list[Result], ctx: Context) -> Result:
    """One Result of the tests' runs (their items, summaries by test)."""
    name = parts[0].method
    items = pd.concat([r.items.assign(test=r.summary["test"]) for r in parts],
                      ignore_index=True)
    summary = {"tests": {r.summary["test"]: r.summary for r in parts}}
    meta = {"model": parts[0].metadata.get("model"), "seed": ctx.seed,
            "params": {"tests": [r.summary["test"] for r in parts],
                       "n_resamples": _resamples(name, ctx)},
            "data": {r.summary["test"]: r.metadata.get("data") for r in parts}}
    return Result(name, summary, items, meta)


def _entries(s: dict[str, Any], name: str) -> list[tuple[str, dict[str, Any]]]:
    c = s["categories"]
    if "attributes" in s:
        return [(f"{c['X']} vs {c['Y']} × {c[r]}", e) for r, e in s["attributes"].items()]
    return [(f"{c['X']}, {c['Y']} × {c['A']}, {c['B']}", s[name])]


def _absolute(e: dict[str, Any]) -> dict[str, Any]:
    """An absolute value's headline (RNSB >= 0): no 'no bias' value its CI is read
    against (it never contains 0), and a note with the value expected under no bias."""
    if not e.get("absolute"):
        return {}
    ref = e.get("no_bias_p95")
    return {"null": None, "note": "absolute value (>= 0): a CI above 0 is not evidence; "
            f"no bias gives up to {ref:.3f} (95th percentile over random relabellings)"}


def headlines(r: Result) -> list[Headline]:
    null = NULLS[r.method]
    return [from_ci(f"{test}: {label} ({r.method.upper()})", e,
                    **{**({"null": null} if null is not None else {}), **_absolute(e)})
            for test, s in tests_of(r.summary).items()
            for label, e in _entries(s, r.method)]


def plot(r: Result) -> Any:
    rows = [(f"{test}\n{label}", e["estimate"], e["ci_low"], e["ci_high"])
            for test, s in tests_of(r.summary).items()
            for label, e in _entries(s, r.method)]
    if not rows:
        return None
    ci = {"ripa": "jackknife t CI, word pairs x attribute words",
          "rnd": "permutation shift CI over target words"}.get(r.method, "bootstrap CI")
    return plots.forest(rows, null=NULLS[r.method], xlabel=f"{r.method.upper()} (95% "
                        f"{ci})", title=f"{r.method.upper()}: gender association tests",
                        height=0.5 * len(rows) + 1.1)


def highlights(r: Result) -> pd.DataFrame | None:
    return top_rows(r.items, "value", ["test", "set", "category", "text", "value"], 3)


CARDS = {
    "ripa": ("RIPA (word vectors)", "mean over attribute words a of a · (x_i − y_i)/‖x_i − y_i‖ "
             "over the X/Y word pairs (Ethayarajh et al. 2019, Def. 3); jackknife t CI and "
             "two-sided t p over word pairs x attribute words (both samples).",
             "Ethayarajh, Duvenaud & Hirst (2019). Understanding Undesirable Word Embedding "
             "Associations. ACL."),
    "rnd": ("RND (word vectors)", "mean over attribute words a of ‖a − mean X‖ − ‖a − mean "
            "Y‖ (Garg et al. 2018, eq. 1, averaged); two-sided permutation p of X/Y "
            "membership, and the CI that inverts it (for the attribute words given).",
            "Garg, Schiebinger, Jurafsky & Zou (2018). Word embeddings quantify 100 years of "
            "gender and ethnic stereotypes. PNAS 115(16)."),
    "ect": ("ECT (word vectors)", "Spearman correlation of cos(mean X, a) and cos(mean Y, a) "
            "over attribute words a (Dev & Phillips 2019, Sec. 5.1); 1 = no bias; CI over "
            "words.",
            "Dev & Phillips (2019). Attenuating Bias in Word Vectors. AISTATS."),
    "mac": ("MAC (word vectors)", "mean over target words t and attribute sets A_j of the mean "
            "cosine distance 1 − cos(t, a) (Manzini et al. 2019, eq. 5); CI over words.",
            "Manzini, Lim, Tsvetkov & Black (2019). Black is to Criminal as Caucasian is to "
            "Police. NAACL."),
    "rnsb": ("RNSB (word vectors)", "KL divergence from uniform of the normalised "
             "P(B | t) of a logistic regression trained on A vs B, over the target words "
             "(Sweeney & Najafian 2019); CI resamples targets and training words, new split "
             "each. An absolute value (>= 0): its CI never contains 0; compare it with "
             "the value no bias gives (random relabellings of A ∪ B).",
             "Sweeney & Najafian (2019). A Transparent Framework for Evaluating Unintended "
             "Demographic Bias in Word Embeddings. ACL."),
}


def _measure(name: str) -> Card:
    title, definition, citation = CARDS[name]
    return Card(
        name=name, title=title, kinds=("vectors",), langs=("en",), default=False,
        plans=lambda ctx: plans(name, ctx), combine=combine,
        headlines=headlines, plot=plot, highlights=highlights,
        card=MethodCard(definition=definition, citation=citation,
                        caveats=("Same small word sets as WEAT 6, 7, 8: one word moves the "
                                 "value a lot.",),
                        subset="WEAT 6, 7, 8 (all words)"))


ENTRIES = tuple(_measure(n) for n in CARDS)
