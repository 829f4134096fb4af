"""Checks of option values shared by the CLI and the Python API (issue 24): a wrong type
is a :class:`TypeError`, a value out of range a one-line :class:`GenderscopeError`, both
raised before any work."""

from __future__ import annotations

import math
from typing import Any

from genderscope.errors import GenderscopeError

SEED_OPTIONS = ("seed", "subset_seed", "sample_seed")
"""Option names that seed a random number generator: whole numbers >= 0."""
COUNT_OPTIONS = ("limit", "examples", "resamples", "permutations", "exact_limit", "min_count")
"""Option names that count something: whole numbers (their lower bounds are the plans')."""


def flag(name: str) -> str:
    """``subset_seed`` -> ``--subset-seed``."""
    return "--" + name.replace("_", "-")


def whole_number(value: Any, name: str, minimum: int | None = None) -> int:
    """``value`` if it is an int (not a bool) >= ``minimum``; a float, a string or NaN is a
    TypeError naming the option."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and math.isnan(value):
            raise TypeError(f"{name} must be a whole number, got nan")
        raise TypeError(f"{name} must be a whole number (int), got {value!r}")
    if minimum is not None and value < minimum:
        raise GenderscopeError(f"{flag(name)} must be at least {minimum}, got {value}")
    return value


def check_options(options: dict[str, Any]) -> None:
    """Seeds are whole numbers >= 0; counts are whole numbers (None allowed)."""
    for name, value in options.items():
        if name in SEED_OPTIONS and value is not None:
            whole_number(value, name, 0)
        elif name in COUNT_OPTIONS and value is not None:
            whole_number(value, name, 0 if name == "examples" else None)


def no_model_twice(models: list[Any], seed: Any = 0) -> None:
    """Refuse a model given twice (it would be measured and reported twice), and a seed
    that is not a whole number >= 0 (a report's options)."""
    whole_number(seed, "seed", 0)
    twice = sorted({str(m) for m in models if models.count(m) > 1})
    if twice:
        raise GenderscopeError(f"model given twice: {', '.join(twice)}; each is reported once")


def check_debias_options(limit: Any, prob: Any) -> None:
    """``limit``: a whole number or None; ``prob``: a number in [0, 1]."""
    if limit is not None:
        whole_number(limit, "limit")
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise GenderscopeError(f"--prob must be a number in [0, 1], got {prob!r}")
