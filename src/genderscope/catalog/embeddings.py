"""WEAT on static word vectors and SEAT on sentence encoders."""

from __future__ import annotations

from typing import Annotated

from genderscope.catalog._common import (
    ExactLimit,
    Lookup,
    MaxOov,
    Plan,
    RandomPermutations,
    TestName,
    TestsDir,
    _association_test,
    _measure,
    _vector_plan,
)
from genderscope.core.declaration import Opt, Pairing, Progress, TestSeed, declare
from genderscope.core.design import Design


# each target's association s(w, A, B), by target set
@declare(
    "weat",
    statistics=("Test: permutation test of S(X, Y, A, B) over equal-size re-partitions of the "
                "target words (exact up to exact_limit partitions, else seeded random ones), one-"
                " and two-sided."),
    needs="vectors",
    version=3,  # 2: d's noncentral t interval; 3: a run is never rewritten with another
    # command's Holm p (version 2 runs may hold one: `run --test A --test B` wrote it)
    langs=("en",),
    family="embeddings",
    pairing=Pairing(("set", "text"), "association", ("set",),  # the change: per target
                    design=Design("mean", unit="target words", crossed=("attribute words",))),
    table="genderscope.cli.commands.embeddings:one_test_tables",
    design=Design("effect-size", unit="words"),
    card="genderscope.reporting.cards.weat:WEAT",
    report_order=110,
)
def weat(
    *,
    test: TestName,
    tests_dir: TestsDir = None,
    permutations: RandomPermutations = 10_000,
    exact_limit: ExactLimit = 200_000,
    seed: TestSeed = 0,
    max_oov: MaxOov = 0.2,
    phrases: Annotated[
        str, Opt("Multi-word entries: skip (OOV) or mean (average of word vectors).",
                 choices=("skip", "mean"))
    ] = "skip",
    lookup: Lookup,
    effect_size: Annotated[str, Opt("d over the sample SD (caliskan, as Caliskan et al.) or "
                                    "the population SD (wefe, as WEFE 1.0.1).",
                                    choices=("caliskan", "wefe"), key=False)] = "caliskan",
    progress: Progress = False,
) -> Plan:
    """WEAT (Caliskan et al. 2017) of one test (name, JSON file or AssociationTest) on
    static word vectors."""
    run_weat = _measure("genderscope.measures.weat:weat")

    rules = lookup.rules()
    mode = {"effect_size": effect_size} if effect_size != "caliskan" else {}
    spec = _association_test(test, tests_dir)
    return _vector_plan("weat", spec, rules, {**rules, **mode}, progress, lambda seen: run_weat(
        seen, spec, n_permutations=permutations, seed=seed, exact_limit=exact_limit,
        max_oov=max_oov, case_fallback=lookup.case_fallback, phrases=phrases, **mode))


# SEAT's sentences of one source word resample together, as its test unit
@declare(
    "seat",
    statistics=("Test: permutation test of S(X, Y, A, B) over re-partitions of whole source words"
                " (each word's sentences kept together); May et al.'s sentence-level p, "
                "anti-conservative, is kept as p_as_published."),
    needs="encoder",
    version=3,  # 2: d's noncentral t interval; 3: a run is never rewritten with another
    # command's Holm p (version 2 runs may hold one: `run --test A --test B` wrote it)
    langs=("en",),
    family="embeddings",
    docs="weat.md",
    table="genderscope.cli.commands.embeddings:one_test_tables",
    design=Design("effect-size", unit="sentences", clusters="source words"),
    card="genderscope.reporting.cards.weat:SEAT",
    report_order=120,
    pairing=Pairing(
        ("set", "text"), "association", ("set",), cluster="source_word", cluster_unit="source words"
    ),
)
def seat(
    *,
    test: TestName,
    tests_dir: TestsDir = None,
    permutations: RandomPermutations = 10_000,
    exact_limit: ExactLimit = 200_000,
    seed: TestSeed = 0,
    progress: Progress = False,
) -> Plan:
    """SEAT (May et al. 2019) of one test on a sentence encoder."""
    run_seat = _measure("genderscope.measures.weat:seat")

    spec = _association_test(test, tests_dir)
    return Plan(
        "seat",
        "encoder",
        lambda enc: run_seat(
            enc,
            spec,
            n_permutations=permutations,
            seed=seed,
            exact_limit=exact_limit,
            progress=progress,
        ),
        inputs=spec,
        key_options={"test": None},
    )  # its content is in the inputs
