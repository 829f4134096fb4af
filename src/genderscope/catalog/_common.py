"""What the catalog's modules share: data folders, seeded subsets and option checks."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from genderscope.casing import ACCENTS, CASES
from genderscope.core.declaration import (
    Data,
    Limit,
    Opt,
    Plan,  # noqa: F401 - the catalog's Plan
    Progress,
    Resamples,
    Seed,
    Shared,
    SubsetSeed,
)
from genderscope.errors import DataError, GenderscopeError

T = TypeVar("T")


def _measure(path: str) -> Callable[..., Any]:
    """The function ``module:name`` of a measure, imported when first called: a rerun
    that returns a stored run never imports the measure's numpy/pandas/scipy code."""
    module, name = path.split(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    return call


def _one_step(label: str, progress: bool, compute: Callable[[], T]) -> T:
    """``compute()``, shown (``progress``) as the one step of a progress bar ``label``."""
    from genderscope.progress import progress_bar

    with progress_bar(label, 1, enabled=progress) as advance:
        result = compute()
        advance(1)
    return result


def dataset_dir(data: Path | str | None, folder: str, *, file_ok: bool = False) -> Path:
    """``data`` (or its ``folder`` subfolder), else the benchmark data folder.
    ``file_ok``: the data set can also be given as one file (CrowS-Pairs, StereoSet)."""
    from genderscope.datasets.locations import find_benchmark

    if data is not None:
        data = Path(data)
        if not data.exists():
            raise DataError(f"--data {data}: no such file or folder")
        if data.is_file() and not file_ok:
            raise DataError(
                f"--data {data}: expected the {folder} folder (this data set has "
                "several files), got a file"
            )
        return data / folder if (data / folder).is_dir() else data
    return find_benchmark(folder)


def subset(items: Sequence[T], limit: int | None, seed: int) -> list[T]:
    """A seeded random subset of ``limit`` items, in their original order."""
    if limit is None or limit >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), limit))
    return [items[i] for i in keep]


def _subset_note(
    limit: int | None,
    subset_seed: int,
    n: int | None = None,
    of: int | None = None,
    unit: str = "items",
) -> dict[str, Any]:
    """``metadata["data"]`` of a subset: the limit and seed, and (when told) how many
    ``unit`` were kept ``n`` of how many ``of`` (the report's items column reads it)."""
    note: dict[str, Any] = {"limit": limit, "subset_seed": subset_seed if limit else None}
    if n is not None:
        note["subset"] = {"n": n, "of": of, "unit": unit, "seed": subset_seed if limit else None}
    return note


@dataclass(frozen=True)
class Sampled(Shared):
    """The options of a benchmark scored on a seeded subset of its items and bootstrapped
    (WinoBias, DaWinoBias, ABC, StereoSet, GAP), declared once: a plan takes them as one
    parameter."""

    data: Data = None
    limit: Limit = None
    subset_seed: SubsetSeed = 0
    seed: Seed = 0
    resamples: Resamples = 10_000
    progress: Progress = False

    def subset(self, items: Sequence[T]) -> list[T]:
        """The seeded ``limit`` subset of ``items`` (:func:`subset`)."""
        return subset(items, self.limit, self.subset_seed)

    def note(self, n: int, of: int, unit: str) -> dict[str, Any]:
        """``metadata["data"]`` of that subset (:func:`_subset_note`)."""
        return _subset_note(self.limit, self.subset_seed, n, of, unit)


def _association_test(test: Any, tests_dir: Path | None, metric: str = "weat") -> Any:
    """The test (or, for MAC/RNSB beyond 2 x 2, the query) ``metric`` runs on: an
    AssociationTest, a Query (datasets/query.py), a query file, a test file or name."""
    from genderscope.datasets.query import Query, for_metric, is_query_file, load_query
    from genderscope.datasets.seat import AssociationTest, resolve_test

    if isinstance(test, AssociationTest):
        return test
    if isinstance(test, (list, tuple, set, frozenset)) or isinstance(test, str) and \
            any(c in test for c in "*?[") and not Path(test).is_file():
        names = list(test) if not isinstance(test, str) else "(the names it matches)"
        raise GenderscopeError(  # the command line's repeated --test or glob: one run each
            f"test={test!r}: one test per run; run each: [gs.run({metric!r}, model=..., "
            f"test=t) for t in {names}]")
    if isinstance(test, Query):
        return for_metric(test, metric)
    if isinstance(test, (str, Path)) and is_query_file(test):
        return for_metric(load_query(test), metric)
    # a test file is read as it is: the default folder (a download) is resolved only
    # for a name (resolve_test), never for a file
    return resolve_test(str(test), Path(tests_dir) if tests_dir else None)


def _vector_plan(name: str, spec: Any, rules: dict[str, Any], modes: dict[str, Any],
                 progress: bool, score: Callable[[Any], Any]) -> Plan:
    """The plan of word-vector metric ``name`` on test ``spec``: ``score(vectors)``, the
    vectors seen through the look-up ``rules`` (:meth:`Lookup.rules`), as one progress
    step; its word rows recorded (compare's crossed design: the ``pairing`` of ``name``'s
    declaration, read from the registry) and non-default rules named in
    ``metadata["params"]``. Keyed by the test's content, and by ``modes`` (the rules and
    the metric's own non-default modes) only when there are any, so that a default run
    keeps its key (a Python callable makes the run unkeyed, never reused)."""
    record = _measure("genderscope.measures.vector_change:record_plain_run")

    def run(vecs: Any) -> Any:
        from genderscope.core.registry import get
        from genderscope.measures.weat import LookupVectors

        seen = LookupVectors(vecs, **rules) if rules else vecs
        pairing = get(name).pairing
        result = _one_step(f"{name} {spec.name}", progress,
                           lambda: record(score(seen), name, seen, spec, pairing))
        if rules:
            result.metadata.setdefault("params", {}).update(
                {k: getattr(v, "__qualname__", repr(v)) if callable(v) else v
                 for k, v in rules.items()})
        return result

    return Plan(name, "vectors", run, inputs={"test": spec, "lookup": modes} if modes else spec,
                key_options={"test": None})


# -- the options of every association test (WEAT, SEAT, the WEFE metrics) --------------
TestName = Annotated[Any, Opt("Test name (weat6), glob ('weat*') or JSON file; repeat for "
                              "several.")]
TestsDir = Annotated[Path | None, Opt("Folder of <name>.jsonl test files.", key=False)]
RandomPermutations = Annotated[int, Opt("Random permutations when the exact test is "
                                        "infeasible (at least 10,000).", min=10000)]
ExactLimit = Annotated[int, Opt("Enumerate all partitions when there are at most this many.",
                                min=0)]
MaxOov = Annotated[float, Opt("Largest share of a set that may be OOV.", min=0.0, max=1.0)]
@dataclass(frozen=True)
class Lookup(Shared):
    """How a test's words are looked up in word vectors (WEAT, the WEFE metrics)."""

    case_fallback: Annotated[bool, Opt("Look up OOV words in lower case.")] = True
    case: Annotated[str, Opt("Look-up of each word: fallback (as written, else lower case), "
                             "exact (as written only: WEFE's default) or lower (lower case "
                             "only).", choices=CASES, key=False)] = "fallback"
    strip_accents: Annotated[str, Opt("Strip accents before look-up: none, unicode or ascii "
                                      "(WEFE's strip_accents).", choices=ACCENTS,
                                      key=False)] = "none"
    preprocessor: Annotated[Callable[[str], str] | None,
                            Opt("A function applied to each word before look-up (Python "
                                "API only; such a run is never reused).", key=False,
                                cli=False)] = None

    def rules(self, normalize: bool = False) -> dict[str, Any]:
        """The look-up rules (and ``normalize``) that differ from the defaults, checked
        before any vectors load; empty when all are default (then neither the run nor its
        reuse key changes)."""
        case, accents, pre = self.case, self.strip_accents, self.preprocessor
        if pre is not None and not callable(pre):
            raise GenderscopeError(f"preprocessor must be a function str -> str, got "
                                   f"{type(pre).__name__}")
        if case == "fallback" and not self.case_fallback:
            case = "exact"  # --no-case-fallback, the older spelling of --case exact
            if accents == "none" and pre is None and not normalize:
                return {}  # as before: case_fallback=False alone keys and runs as it did
        rules: dict[str, Any] = {}
        if case != "fallback":
            rules["case"] = case
        if accents != "none":
            rules["accents"] = accents
        if pre is not None:
            rules["preprocessor"] = pre
        if normalize:
            rules["normalize"] = True
        return rules


Normalize = Annotated[bool, Opt("Scale every vector to unit length first (WEFE's "
                                "normalize).", key=False)]
