"""Template measures on language models: BEC-Pro, the log-probability bias score test
and the template probe (Kurita et al. 2019)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from genderscope.catalog._common import Plan, _measure, subset
from genderscope.core.declaration import (
    Opt,
    Pairing,
    Progress,
    Resamples,
    SpanMasking,
    Strategy,
    SubsetSeed,
    TestSeed,
    declare,
)
from genderscope.core.design import Design
from genderscope.errors import GenderscopeError

T = TypeVar("T")


# log(p_target / p_prior) per sentence, by profession group x person gender
@declare(
    "bec-pro",
    statistics=("Interval: the two-way cluster bootstrap-variance t interval over professions "
                "x person-word pairs (crossed; Cameron, Gelbach & Miller 2011; "
                "stats.crossed.crossed_ci) of the male - female difference; the cluster t "
                "interval (CR1) over professions of the group means. Test: per profession "
                "group, the crossed t test of no difference, t = estimate / SE with "
                "min(R, C) - 1 degrees of freedom (none below 6 professions or person pairs), "
                "Holm-adjusted over the groups."),
    needs="lm",
    version=3,  # 2: crossed professions x person-word tests, "too few units to test"; 3: a
    # cluster t interval over professions that all agree: no_interval, not [x, x]
    langs=("en", "de"),
    family="templates and association",
    table="genderscope.cli.commands.association:bec_pro_tables",
    card="genderscope.reporting.cards.bec_pro:BEC_PRO",
    report_order=60,
    pairing=Pairing(
        ("sentence", "person"),
        "association",
        ("prof_group", "gender"),
        cluster="profession_key",
        cluster_unit="professions",
    ),
)
def bec_pro(
    *,
    lang: Annotated[str, Opt("Corpus language: en or de.", choices=("en", "de"))] = "en",
    data: Annotated[
        Path | None, Opt("A BEC-Pro-format TSV instead of the generated corpus.", key=False)
    ] = None,
    repair: Annotated[
        bool, Opt("With --data: rebuild masked columns that do not match the sentence.")
    ] = False,
    span_masking: SpanMasking = "piece",
    strategy: Strategy = "l2r",
    limit: Annotated[
        int | None,
        Opt("Score a seeded subset of N rows (--subset-seed), the person genders taken in "
            "turn so that both keep rows (quick checks).", min=1),
    ] = None,
    professions: Annotated[
        int | None,
        Opt(
            "A seeded subset of N professions per profession group (the report's: 10; --quick 2).",
            min=1,
        ),
    ] = None,
    templates: Annotated[
        int | None, Opt("Only the first N sentence patterns (report --quick: 2).", min=1)
    ] = None,
    subset_seed: SubsetSeed = 0,
    seed: TestSeed = 0,
    resamples: Resamples = 10_000,
    progress: Progress = False,
) -> Plan:
    """BEC-Pro association of person words and professions (Bartl et al. 2020, eq. 1).
    ``professions``: a seeded subset (``subset_seed``) of N professions per profession
    group; ``templates``: the first N sentence patterns (the report's subsets)."""
    from genderscope.datasets import bec_pro as data_mod
    from genderscope.results import file_sha256

    if data is not None:
        data = Path(data)
        rows = data_mod.load_tsv(data, repair=repair)
        data_meta: dict[str, Any] = {
            "file": str(data),
            "file_sha256": file_sha256(data),
            "repair": repair,
        }
    else:
        rows = data_mod.generate(lang)
        data_meta = {"generated": f"BEC-Pro {lang.upper()} (genderscope generator)", "lang": lang}
    note: dict[str, Any] = {}
    if professions is not None or templates is not None:
        total = len(rows)
        rows = _professions_subset(rows, professions, templates, subset_seed)
        note = {
            "professions": professions,
            "templates": templates,
            "subset_seed": subset_seed,
            "subset": {"n": len(rows), "of": total, "unit": "rows", "seed": subset_seed},
        }
    if limit is not None:  # seeded, the person genders in turn (never one gender only)
        rows = _seeded_in_turn(rows, limit, lambda r: r.gender, subset_seed)
        data_meta["limit"] = {"n": len(rows), "seed": subset_seed}
    data_meta["n_rows"] = len(rows)
    run = _measure("genderscope.measures.bec_pro:run")
    return Plan(
        "bec-pro",
        "lm",
        lambda lm: run(
            lm,
            rows,
            strategy=strategy,
            span_masking=span_masking,
            n_resamples=resamples,
            seed=seed,
            data=data_meta,
            progress=progress,
        ),
        note,
        inputs=(rows, data_meta),
    )


def _professions_subset(
    rows: Sequence[Any], per_group: int | None, templates: int | None, seed: int
) -> list[Any]:
    """BEC-Pro rows of ``per_group`` professions of each profession group (a seeded
    subset of each group's professions, groups in sorted order) and of the first
    ``templates`` sentence patterns (None: all)."""
    by_group: dict[str, dict[str, None]] = {}  # each group's professions, in order
    for r in rows:
        by_group.setdefault(r.prof_gender, {})[r.profession_key] = None
    keep = {k for group in sorted(by_group) for k in subset(list(by_group[group]), per_group, seed)}
    patterns = list(dict.fromkeys(r.template for r in rows))
    kept = set(patterns[:templates] if templates is not None else patterns)
    return [r for r in rows if r.profession_key in keep and r.template in kept]


def _seeded_in_turn(rows: Sequence[T], limit: int, group: Callable[[T], Any],
                    seed: int) -> list[T]:
    """A seeded subset of ``limit`` rows, taken from each group in turn (a seeded order
    within each group), in their original order: a limit never keeps one group only
    (BEC-Pro's rows are ordered by person gender: the first N were all male)."""
    groups: dict[Any, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(group(r), []).append(i)
    rng = random.Random(seed)
    queues = [rng.sample(g, len(g)) for g in groups.values()]
    keep: set[int] = set()
    while len(keep) < min(limit, len(rows)):
        for q in queues:
            if q and len(keep) < limit:
                keep.add(q.pop())
    return [r for i, r in enumerate(rows) if i in keep]


@declare("lpbs", needs="lm", langs=("en",), family="templates and association",
         version=2,  # a t interval over words that all agree: no_interval, not [x, x]
         statistics=("Interval: Student's t interval of each attribute set's mean over its "
                     "words (templates averaged per word). Test: permutation test of X vs Y "
                     "over re-partitions of the attribute words (exact up to 200,000, else "
                     "seeded random ones), one- and two-sided; per-template tests "
                     "Holm-adjusted. aggregation=pooled-items permutes and bootstraps "
                     "(template, word) items instead."),
         table="genderscope.cli.commands.association:lpbs_tables",
         card="genderscope.reporting.cards.lpbs:LPBS", report_order=70)
def lpbs(
    *,
    test: Annotated[
        str,
        Opt(
            "Built-in test (career-family, math-arts, science-arts, "
            "pleasant-unpleasant) or a test file (FILE or FILE:NAME)."
        ),
    ] = "career-family",
    templates: Annotated[
        Path | None,
        Opt(
            "Templates file (.txt one per line with GGG and XXX, or YAML/JSON) replacing the "
            "test's templates."
        ),
    ] = None,
    span_masking: SpanMasking = "piece",
    strategy: Strategy = "l2r",
    permutations: Annotated[
        int, Opt("Random permutations when exact is infeasible (at least 10,000).", min=10000)
    ] = 10_000,
    seed: TestSeed = 0,
    resamples: Resamples = 10_000,
    progress: Progress = False,
) -> Plan:
    """Kurita et al. (2019) log-probability bias score test with a WEAT-style effect size."""
    from genderscope.datasets.templates import builtin_tests, resolve_test
    from genderscope.results import file_sha256

    run = _measure("genderscope.measures.lpbs:run")

    spec = resolve_test(test, Path(templates) if templates is not None else None)
    data_meta: dict[str, Any] = {
        "test": spec.name,
        "files": {f: file_sha256(f) for f in spec.files if Path(f).is_file()},
    }
    return Plan(
        f"lpbs/{spec.name}",
        "lm",
        lambda lm: run(
            lm,
            spec,
            strategy=strategy,
            span_masking=span_masking,
            n_permutations=permutations,
            n_resamples=resamples,
            seed=seed,
            data=data_meta,
            progress=progress,
        ),
        # the test and its files by content, not by where they lie (LpbsTest.files and
        # a file's path given as --test or --templates are left out of the key)
        inputs=(spec, {"test": spec.name, "file_sha256": sorted(data_meta["files"].values())}),
        key_options={"templates": None,
                     **({} if test in builtin_tests() else {"test": None})},
    )


@declare("probe", needs="lm", family="templates and association",
         design=Design("mean", unit="targets"),  # measures.probe.DESIGN
         statistics=("Each column's mean over targets takes that interval; the probe tests "
                     "none against a null."),
         version=3,  # 2: bootstrap-t over targets; 3: no interval over targets all equal
         table="genderscope.cli.commands.probe:probe_tables",
         card="genderscope.reporting.cards.probe:PROBE", report_order=80)
def probe(
    *,
    targets: Annotated[Sequence[str], Opt("Target words or phrases (XXX).")],
    template: Annotated[
        str, Opt("Sentence with a gender slot GGG and a target slot XXX.")
    ] = "GGG is a XXX.",
    pair: Annotated[Sequence[str] | str, Opt("Male and female word for GGG, comma-separated.")] = (
        "he",
        "she",
    ),
    strategy: Strategy = "l2r",
    progress: Progress = False,
) -> Plan:
    """Gender-fill, prior-corrected and target-fill bias (Kurita et al. 2019)."""
    from genderscope.measures.probe import check_template, check_words
    from genderscope.measures.probe import probe as run_probe

    check_template(template)
    words = [w.strip() for w in pair.split(",")] if isinstance(pair, str) else list(pair)
    if len(words) != 2:
        raise GenderscopeError(f"--pair needs two comma-separated words, got {pair!r}")
    check_words(words, "--pair word")  # the run's own checks, before the model loads
    if words[0].lower() == words[1].lower():
        raise GenderscopeError(f"--pair needs two different words, got {words[0]!r} twice")
    if isinstance(targets, str):
        targets = [targets]
    if not targets:
        raise GenderscopeError("probe needs at least one target word")
    check_words(targets, "target")
    return Plan(
        "probe",
        "lm",
        lambda lm: run_probe(
            lm, template, (words[0], words[1]), list(targets), strategy=strategy, progress=progress
        ),
        inputs=(template, words, list(targets)),
        key_options={"pair": words, "targets": list(targets)},  # "he,she" is ["he", "she"]
    )
