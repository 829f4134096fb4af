"""A report card's measure run through its plan(s), the path of ``genderscope run``.

A card names one plan (``Card.plan``) or several (``Card.plans``: one per WEAT test); each
runs through :func:`genderscope.engine.run` under its own reuse key, so ``genderscope run
weat --test weat6`` and the report's WEAT section share one stored run. Several plans'
Results are combined (``Card.combine``, e.g. Holm over the tests), not stored; its
metadata lists the parts' run ids. :func:`plan_keys` tells the keys without loading weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from genderscope.errors import GenderscopeError
from genderscope.reporting.entry import Card, Context
from genderscope.results import Result
from genderscope.store import Store

if TYPE_CHECKING:
    from genderscope.reporting.runner import Subject


def plans_of(measure: Card, ctx: Context) -> list[tuple[str, dict[str, Any]]]:
    """The ``(measure, options)`` plans of an entry, in order."""
    if measure.plans is not None:
        return list(measure.plans(ctx))
    if measure.plan is not None:
        return [measure.plan(ctx)]
    raise GenderscopeError(f"report measure {measure.name!r} names no plan")


def plan_keys(measure: Card, subject: Subject, ctx: Context) -> list[str | None]:
    """The reuse key of each plan (:func:`genderscope.engine.run_key`), told without loading
    weights; a None key: the store has not seen the model, or the plan is never reused."""
    from genderscope.engine import run_key
    from genderscope.models.memo import peeking

    plans = plans_of(measure, ctx)
    try:
        with peeking():
            adapter = subject.adapter()
    except Exception:  # noqa: BLE001 - WouldLoad (the store has not seen the model), or
        return [None] * len(plans)  # e.g. --device cuda on a CPU-only driver: the job says
    return [run_key(name, adapter, **options)  # keyed by how the adapter was loaded
            for name, options in plans]


@dataclass
class PlanRun:
    """What the plans of one entry gave: the section's Result and the stored parts."""

    result: Result
    parts: list[Result] = field(default_factory=list)
    """One Result per plan, as stored (or to be stored, by a sweep's driver)."""
    run_ids: list[str] = field(default_factory=list)
    reused: bool = False
    """Every part was found in the store (nothing ran)."""


def run_plans(measure: Card, subject: Subject, ctx: Context, store: Store | None, *,
              reuse: bool, record: bool, command: str) -> PlanRun:
    """Each plan of the entry through :func:`genderscope.engine.run` (the same call as
    ``genderscope run``), found in or recorded to ``store``; several are combined."""
    from genderscope.engine import run as run_measure

    st = store if store is not None else Store(":memory:")
    keep = record and store is not None
    try:
        parts = [run_measure(name, subject.adapter(), store=st, reuse=reuse, record=keep,
                             command=command, progress=ctx.progress,
                             **subject.model_options, **options)
                 for name, options in plans_of(measure, ctx)]
    finally:
        if store is None:
            st.close()
    ids = [str(p.metadata["run_id"]) for p in parts if keep and p.metadata.get("run_id")]
    reused = bool(parts) and all(p.metadata.get("reused") for p in parts)
    if measure.plans is None:
        return PlanRun(parts[0], parts, ids, reused)
    assert measure.combine is not None, f"{measure.name}: plans without combine"
    result = combined(measure, parts, ctx)
    if ids:
        result.metadata["run_ids"] = ids
    return PlanRun(result, parts, ids, reused)


def combined(measure: Card, parts: list[Result], ctx: Context) -> Result:
    """``measure.combine`` of the parts (stored or fresh), with their provenance: the sum
    of their runtimes, the first one's command. ``combine`` must not change the parts."""
    assert measure.combine is not None
    result = measure.combine(parts, ctx)
    meta = result.metadata
    meta.setdefault("runtime_s", round(sum(float(p.metadata.get("runtime_s") or 0.0)
                                           for p in parts), 2))
    for key in ("command", "model_name"):
        if key not in meta and parts and key in parts[0].metadata:
            meta[key] = parts[0].metadata[key]
    meta["cache_keys"] = [p.metadata.get("cache_key") for p in parts]
    return result
