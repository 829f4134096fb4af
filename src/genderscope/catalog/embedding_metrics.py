"""Plans of the WEFE-family word-embedding metrics RIPA, RND, ECT, MAC and RNSB (see
:mod:`genderscope.core.declaration` for what a plan is; the metrics are in
:mod:`genderscope.measures.embedding_metrics`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any

from genderscope.catalog._common import (
    ExactLimit,
    Lookup,
    MaxOov,
    Normalize,
    Plan,
    TestName,
    TestsDir,
    _association_test,
    _measure,
    _vector_plan,
)
from genderscope.core.declaration import Opt, Pairing, Progress, TestSeed, declaration, options_of
from genderscope.core.design import Design
from genderscope.core.options import Options

EMBEDDING_METRICS = ("ripa", "rnd", "ect", "mac", "rnsb")
TESTED = ("ripa", "rnd")
"""The metrics with a p-value (and so a ``--permutations`` option)."""
DISTANCES = ("euclidean", "cosine")
"""RND's distances (measures/embedding_metrics/rnd.DISTANCES)."""


def _plan(name: str) -> Callable[..., Plan]:
    run_metric = _measure(f"genderscope.measures.embedding_metrics.{name}:{name}")

    def plan(
        *,
        test: TestName,
        tests_dir: TestsDir = None,
        permutations: Annotated[
            int, Opt("Random permutations of the RND test (RIPA: its test is a t test).", min=1000)
        ] = 10_000,
        exact_limit: ExactLimit = 200_000,
        seed: TestSeed = 0,
        max_oov: MaxOov = 0.2,
        lookup: Lookup,
        normalize: Normalize = False,
        distance: Annotated[str, Opt("RND's distance: euclidean (Garg et al.) or cosine "
                                     "(1 - cos; WEFE's 'cos' is the negative).",
                                     choices=DISTANCES, key=False)] = "euclidean",
        resamples: Annotated[
            int | None,
            Opt("Bootstrap replicates [10,000; RNSB 1,000, one classifier fit each].", min=100),
        ] = None,
        swap_roles: Annotated[
            bool,
            Opt(
                "Use the attribute sets A, B as the two groups and X, "
                "Y as the attribute sets (WEAT 7, 8 hold gender in A, "
                "B)."
            ),
        ] = False,
        progress: Progress = False,
    ) -> Plan:
        rules = lookup.rules(normalize)
        modes = {**rules, **({"distance": distance} if distance != "euclidean" else {})}
        spec = _association_test(test, tests_dir, name)
        if swap_roles:  # A, B become the target groups and X, Y the attribute sets
            if not hasattr(spec, "targ1"):  # a query of n groups: its order is its roles
                from genderscope.errors import GenderscopeError

                raise GenderscopeError(f"--swap-roles takes a 2 x 2 test; query "
                                       f"{spec.name!r}: list its sets in the roles wanted")
            spec = replace(
                spec,
                name=f"{spec.name}-swapped",
                targ1=spec.attr1,
                targ2=spec.attr2,
                attr1=spec.targ1,
                attr2=spec.targ2,
            )
        opts: dict[str, Any] = {"seed": seed, "max_oov": max_oov,
                                "case_fallback": lookup.case_fallback}
        if resamples is not None:
            opts["n_resamples"] = resamples
        if name in TESTED:
            opts["n_permutations"] = permutations
        if name == "rnd":
            opts["exact_limit"] = exact_limit
            if distance != "euclidean":
                opts["distance"] = distance
        return _vector_plan(name, spec, rules, modes, progress,
                            lambda seen: run_metric(seen, spec, **opts))

    plan.__name__ = name
    plan.__doc__ = (
        f"{name.upper()} of one WEAT/SEAT test (name, JSON file or "
        "AssociationTest) on static word vectors."
    )
    return plan


def _options(name: str) -> Options:
    """The options of metric ``name``'s plan; ``distance`` is RND's alone."""
    return Options(tuple(o for o in options_of(_plan(name))
                         if o.name != "distance" or name == "rnd"))


VERSIONS = {"ripa": 3, "rnd": 2, "rnsb": 2}
"""Raised when a stored run's numbers changed on purpose (its key changes with it): RIPA's
t interval (2) and its crossed interval and t test over pairs x attribute words (3), RND's
permutation-inverted interval, RNSB's no-bias 95th percentile."""

_STATISTICS = {
    "ripa": "Per attribute set, V = s_r^2 / n_p + s_c^2 / n_a - s_e^2 / (n_a n_p) over its "
            "words x the pairs; the test is of 0 (none with n_permutations=0). "
            "given_words_ci_low/_high: Student's t over the pairs, for the words given.",
    "rnd": "Interval: the permutation shift interval [RND - q_0.975, RND - q_0.025] over "
           "re-partitions of the target words X u Y (the attribute words given). Test: "
           "two-sided permutation test of X/Y membership of the target words (exact up to "
           "exact_limit re-partitions, else seeded random ones).",
    "ect": "Interval: percentile bootstrap over words, X, Y and the attribute set resampled "
           "independently. Test: none (1, no bias, is the edge of ECT's range).",
    "mac": "Interval: percentile bootstrap over words, X, Y, A and B resampled "
           "independently. Test: none.",
    "rnsb": "Interval: percentile bootstrap over words, A and B resampled with a new "
            "train/hold-out split and refit, and the targets resampled. Test: none (RNSB "
            ">= 0; no_bias_p95 is its 95th percentile over random relabellings of A u B).",
}
"""Each metric's interval and test in words (ripa's design says them)."""

CHANGE_DESIGNS = {
    "ripa": Design("mean", unit="attribute words", crossed=("word pairs",)),
    "rnd": Design("mean", unit="attribute words", crossed=("target words",)),
    "ect": Design("mean", unit="attribute words", crossed=("target words",)),
    "mac": Design("mean", unit="target words", crossed=("attribute words",)),
}
"""The design of each metric's change between two runs, a mean over its per-word items
(``unit``) that share the words of the ``crossed`` sets, every word measured before and
after: its declaration's ``pairing.design``, the one place it is written (WEAT's is in
its own declaration). ``genderscope compare``, the debiased-vector evaluation and a plain
run's recorded word rows read it from the declaration
(:mod:`genderscope.measures.vector_change` takes it as an argument). RNSB has none: its
items are not per-word values."""

ripa, rnd, ect, mac, rnsb = (
    declaration(
        n,
        _plan(n),
        options=_options(n),
        needs="vectors",
        langs=("en",),
        family="embeddings",
        table="genderscope.cli.commands.embedding_metrics:one_test_tables",
        # one value per word of a set (docs/measures/<name>.md)
        pairing=Pairing(("set", "text"), "value", ("set",), design=CHANGE_DESIGNS.get(n)),
        design=Design("mean", unit="word pairs", crossed=("attribute words",))
        if n == "ripa" else None,
        statistics=_STATISTICS[n],
        version=VERSIONS.get(n, 1),
        card="genderscope.reporting.cards.wefe_metrics:ENTRIES",
        report_order=130 + i,
    )
    for i, n in enumerate(EMBEDDING_METRICS)
)
