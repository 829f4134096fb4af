"""What the catalog's modules share: data folders, seeded subsets and option checks."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from genderscope.core.declaration import (
    Opt,
    Plan,  # noqa: F401 - the catalog's Plan
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


def _check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise GenderscopeError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


def _check_strategy(strategy: str) -> None:
    """The multi-piece strategy, checked before the model loads."""
    from genderscope.models.base import STRATEGIES

    _check_choice("--strategy", strategy, STRATEGIES)


def _check_min(name: str, value: int | None, least: int) -> None:
    if value is not None and value < least:
        raise GenderscopeError(f"{name} must be at least {least}, got {value}")


def _association_test(test: Any, tests_dir: Path | None, metric: str = "weat") -> Any:
    """The test (or, for MAC/RNSB beyond 2 x 2, the query) ``metric`` runs on: an
    AssociationTest, a Query (datasets/query.py), a query file, a test file or name."""
    from genderscope.datasets.query import Query, for_metric, is_query_file, load_query
    from genderscope.datasets.seat import AssociationTest, default_tests_dir, resolve_test

    if isinstance(test, AssociationTest):
        return test
    if isinstance(test, Query):
        return for_metric(test, metric)
    if isinstance(test, (str, Path)) and is_query_file(test):
        return for_metric(load_query(test), metric)
    return resolve_test(str(test), Path(tests_dir) if tests_dir else default_tests_dir())


# -- the options of every association test (WEAT, SEAT, the WEFE metrics) --------------
TestName = Annotated[Any, Opt("Test name (weat6), glob ('weat*') or JSON file; repeat for "
                              "several.")]
TestsDir = Annotated[Path | None, Opt("Folder of <name>.jsonl test files.", key=False)]
ExactLimit = Annotated[int, Opt("Enumerate all partitions when there are at most this many.",
                                min=0)]
MaxOov = Annotated[float, Opt("Largest share of a set that may be OOV.", min=0.0, max=1.0)]
CaseFallback = Annotated[bool, Opt("Look up OOV words in lower case.")]
