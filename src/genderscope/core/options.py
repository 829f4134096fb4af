"""Declared options: each measure option is written down once, as an :class:`Option`,
and the CLI flags, ``gs.run``'s keywords, their checks, the reuse key and the docs'
option tables are all read from it.

An option's ``name`` is the API keyword (snake case); its flag is ``--name-with-dashes``
(:func:`flag`). A value is checked before any data or model loads (:meth:`Option.check`):
a wrong type is a :class:`TypeError` naming the option, a value out of range or not
among the choices a one-line :class:`~genderscope.errors.GenderscopeError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from genderscope.checks import (
    COUNT_MAX,
    SEED_MAX,
    SEED_OPTIONS,
    flag,
    named,
    unknown_keywords,
    whole_number,
)
from genderscope.errors import ArgumentError, GenderscopeError

TYPES = ("int", "float", "str", "bool", "path", "strs", "any")
"""``strs``: a sequence of strings (a comma-separated string is split); ``any``: an object
the API passes through (e.g. an ``AssociationTest``), a string on the command line."""
PLAIN_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "bool": ((bool,), "True or False"), "str": ((str,), "a string"),
    "path": ((str, Path), "a path")}
"""The types a value is checked as by class alone: (classes, the type in words)."""


@dataclass(frozen=True)
class Option:
    """One option of a measure."""

    name: str
    default: Any = None
    help: str = ""
    type: str = "str"
    choices: tuple[Any, ...] | None = None
    min: float | None = None
    max: float | None = None
    key: bool = True
    """Whether the value enters the reuse key (False: where the items are read from, e.g.
    ``data``: their content is keyed instead; or how a run is shown, e.g. ``progress``)."""
    required: bool = False
    argument: bool = False
    """On the command line a positional argument (``genderscope run probe nurse doctor``)."""
    cli: bool = True
    """Offered on the command line (False: an API-only value such as a callable)."""
    metavar: str | None = None

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"option {self.name}: unknown type {self.type!r}")
        if self.type == "int" and self.max is None:  # the bound the checker holds by name
            object.__setattr__(self, "max", implied_max(self.name))

    @property
    def flag(self) -> str:
        return flag(self.name)

    def but(self, **changes: Any) -> Option:
        """This option with some fields changed (a shared option's measure default)."""
        return replace(self, **changes)

    def check(self, value: Any) -> Any:
        """``value`` checked and in canonical form (None passes where it is the default or
        the option is not required); a message names the option as its caller does
        (:func:`~genderscope.checks.named`: ``--limit`` or, from the Python API, ``limit``)."""
        shown = named(self.name)
        if value is None:
            if self.required:
                raise GenderscopeError(f"{shown} is required")
            return None
        if self.type == "int":
            value = whole_number(value, self.name)  # a NumPy integer: a Python int
        elif self.type == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ArgumentError(f"{self.name} must be a number, got {value!r}")
            if math.isnan(value):
                raise GenderscopeError(f"{shown} must be a number, got nan")
            if math.isinf(value) and value not in (self.min, self.max):  # unless declared
                raise GenderscopeError(f"{shown} must be a finite number, got {value}")
        elif self.type in PLAIN_TYPES:
            classes, what = PLAIN_TYPES[self.type]
            if not isinstance(value, classes):
                raise ArgumentError(f"{self.name} must be {what}, got {value!r}")
        elif self.type == "strs":
            if isinstance(value, str):
                value = [w.strip() for w in value.split(",")]
            if not isinstance(value, Iterable) or not all(isinstance(w, str) for w in value):
                raise ArgumentError(f"{self.name} must be a list of strings, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise GenderscopeError(f"{shown} must be one of "
                                   f"{', '.join(map(str, self.choices))}, got {value!r}")
        if self.min is not None and value < self.min:
            raise GenderscopeError(f"{shown} must be at least {_num(self.min)}, "
                                   f"got {value}")
        if self.max is not None and value > self.max:
            raise GenderscopeError(f"{shown} must be at most {_num(self.max)}, "
                                   f"got {value}")
        return value


def implied_max(name: str) -> int | None:
    """The largest value :func:`~genderscope.checks.whole_number` lets an int option of
    this name take when none is declared: a seed's ``SEED_MAX``, a count's ``COUNT_MAX``;
    an :class:`Option` declares it, so the help, the docs' tables and the check agree."""
    return SEED_MAX if name in SEED_OPTIONS else COUNT_MAX.get(name)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


class Values(dict[str, Any]):
    """A measure's option values, defaults filled in; read as ``values.limit``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class Options:
    """The ordered options of one measure."""

    items: tuple[Option, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        names = [o.name for o in self.items]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"options declared twice: {', '.join(twice)}")

    def __iter__(self) -> Iterator[Option]:
        return iter(self.items)

    def __contains__(self, name: object) -> bool:
        return any(o.name == name for o in self.items)

    def __getitem__(self, name: str) -> Option:
        for o in self.items:
            if o.name == name:
                return o
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [o.name for o in self.items]

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.items}

    def resolve(self, given: Mapping[str, Any], measure: str) -> Values:
        """Every option, the given value checked or its default; an unknown name is a
        one-line error naming the options the measure takes, and the one meant where it is
        close to one (:func:`~genderscope.checks.unknown_keywords`)."""
        unknown = [k for k in given if k not in self]
        if unknown:
            raise GenderscopeError(f"{measure}: unknown option(s) "
                                   f"{unknown_keywords(unknown, self.names)}; it takes "
                                   f"{', '.join(self.names)}")
        checked = {name: self[name].check(value) for name, value in given.items()}
        return Values({o.name: checked[o.name] if o.name in given else
                       o.check(o.default) if o.required else o.default
                       for o in self.items})

