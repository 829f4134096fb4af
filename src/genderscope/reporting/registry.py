"""The report's registry of measures, by name.

Each measure's report card (default subset, plan, headlines, plot, highlights,
method card) lives beside the measure in ``genderscope/measures/<name>_card.py``
and exposes its entries as ``ENTRIES``; :data:`BUILTIN_CARDS` names those modules
in page order, and :func:`measures` loads them on first use. Your own entries:
build a :class:`~genderscope.reporting.entry.Card` and :func:`register` it.

The entry types live in :mod:`genderscope.reporting.entry` (re-exported here), so a
card module never imports this registry: registry -> cards -> entry, no circle.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from genderscope.core.kinds import MODEL
from genderscope.errors import GenderscopeError
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

BUILTIN_CARDS = ("crows_pairs_card", "stereoset_card", "winobias_card", "abc_card",
                 "bec_pro_card", "lpbs_card", "probe_card", "perplexity_card", "downstream_card",
                 "weat_card",
                 "wefe_metrics_card",
                 "counterfactual_card", "attack_card", "amplification_card",
                 "chat_probes_card", "gest_card")
"""Card modules under ``genderscope.measures``, in the order their sections appear."""

REGISTRY: dict[str, Card] = {}
_loaded = False


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    entries = [e for name in BUILTIN_CARDS
               for e in importlib.import_module(f"genderscope.measures.{name}").ENTRIES]
    _loaded = True
    for entry in entries:
        _add(entry, replace=False)


def _add(measure: Card, *, replace: bool) -> Card:
    if measure.name in REGISTRY and not replace:
        raise GenderscopeError(f"report measure {measure.name!r} is already registered")
    bad = [k for k in measure.kinds if k not in CARD_KINDS]
    if bad:
        raise GenderscopeError(f"report measure {measure.name!r}: unknown kinds {bad}")
    if measure.plan is None and measure.plans is None and any(k in MODEL for k in measure.kinds):
        raise GenderscopeError(f"report measure {measure.name!r} applies to "
                               f"{', '.join(measure.kinds)} but names no plan")
    REGISTRY[measure.name] = measure
    return measure


def register(measure: Card, *, replace: bool = False) -> Card:
    """Add an entry after the built-in ones (``replace=True`` to override one of the
    same name)."""
    _load_builtin()
    return _add(measure, replace=replace)


def measures() -> dict[str, Card]:
    """Every registered entry, the built-in ones loaded."""
    _load_builtin()
    return REGISTRY


def select(names: Sequence[str] | None) -> list[Card]:
    """Entries by name (all default ones when ``names`` is empty)."""
    reg = measures()
    if not names:
        return [m for m in reg.values() if m.default]
    unknown = [n for n in names if n not in reg]
    if unknown:
        raise GenderscopeError(f"unknown measure {', '.join(map(repr, unknown))}; choose from "
                               f"{', '.join(reg)}")
    return [reg[n] for n in names]


def describe_defaults() -> str:
    """The default subsets as Markdown lines (for docs and --help)."""
    return "\n".join(f"- `{m.name}`: {m.card.subset}" for m in measures().values()
                     if m.card.subset)
