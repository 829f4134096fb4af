"""The parts every plan module shares: :class:`Plan`, data folders, seeded subsets and
option checks (:mod:`genderscope.plans` and its ``plans_*`` siblings import them from
here, so no plan module imports another in a circle)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from genderscope.errors import DataError, GenderscopeError
from genderscope.results import Result

T = TypeVar("T")

MODEL_KINDS = ("lm", "vectors", "encoder", "classifier", "none")


@dataclass
class Plan:
    """A measure ready to run on a model of ``needs`` (``lm``, ``vectors``, ``encoder``,
    ``classifier``, or ``none``: no model)."""

    method: str
    """Folder name of its results (``genderscope-results/<method>``)."""
    needs: str
    run: Callable[[Any], Result]
    data_note: dict[str, Any] = field(default_factory=dict)
    """Added to ``result.metadata["data"]`` (e.g. the seeded subset)."""
    figure: Callable[[Result, Path], Any] | None = None
    """``draw(result, path)``: the figure written beside the results when they are saved."""
    figure_path: Path | None = None
    """Where that figure goes (default ``OUT/<figure_name>``)."""
    figure_name: str = "figure.png"
    inputs: Any = None
    """The items the measure scores (dataclass rows, pairs, ...), when the plan can say:
    with the options and the model's identity they key a reusable stored run
    (:mod:`genderscope.reuse`). None: never reused."""
    store: Any = None
    """The results store, set by :func:`genderscope.api.run` before ``run`` (a plan that
    loads a second model, e.g. the attack's LM filter, caches its scores there)."""
    key_options: dict[str, Any] = field(default_factory=dict)
    """Options in the canonical form the reuse key uses, where a value can be written
    several ways (WinoBias ``types="1,2"`` on the command line, ``(1, 2)`` in Python)."""


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
            raise DataError(f"--data {data}: expected the {folder} folder (this data set has "
                            "several files), got a file")
        return data / folder if (data / folder).is_dir() else data
    return find_benchmark(folder)


def subset(items: Sequence[T], limit: int | None, seed: int) -> list[T]:
    """A seeded random subset of ``limit`` items, in their original order."""
    if limit is None or limit >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), limit))
    return [items[i] for i in keep]


def _subset_note(limit: int | None, subset_seed: int, n: int | None = None,
                 of: int | None = None, unit: str = "items") -> dict[str, Any]:
    """``metadata["data"]`` of a subset: the limit and seed, and (when told) how many
    ``unit`` were kept ``n`` of how many ``of`` (the report's items column reads it)."""
    note: dict[str, Any] = {"limit": limit, "subset_seed": subset_seed if limit else None}
    if n is not None:
        note["subset"] = {"n": n, "of": of, "unit": unit,
                          "seed": subset_seed if limit else None}
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


def _association_test(test: Any, tests_dir: Path | None) -> Any:
    from genderscope.datasets.seat import AssociationTest, default_tests_dir, resolve_test

    if isinstance(test, AssociationTest):
        return test
    return resolve_test(str(test), Path(tests_dir) if tests_dir else default_tests_dir())
