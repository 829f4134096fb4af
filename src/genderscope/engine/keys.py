"""Keys of reusable runs (the engine's one key): a stored run answers a new call when
they agree on everything its numbers depend on.

``genderscope run`` (and :func:`genderscope.engine.run`) keys a run by the measure, its
options, the model's identity (weights fingerprint, kind, dtype and the adapter's
scoring settings, read without loading the weights), the content of the items it
measures and the genderscope version. A rerun with the same key returns the stored
run (summary, items, tables) instead of recomputing it, so it imports neither torch
nor pandas nor scipy. The device and batch size are not part of the key, as they are
not part of the score cache's keys either: they change how an answer is computed, not
which answer it is. Nor is where the data lies: items and tests leave their paths out
(``NOT_CONTENT``), and plans key a file given as an option by its content, so the same
files in another folder (or another user's) are the same run.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from pathlib import Path, PurePath
from typing import Any

from genderscope import __version__
from genderscope.models.memo import model_identity


class NotKeyable(TypeError):
    """The value has no canonical content (an object of unknown type)."""


def _content(value: Any) -> Any:
    """``json.dumps`` hook: the content of a value JSON does not know, or
    :class:`NotKeyable`. Dataclasses become their class name and fields, paths strings,
    sets sorted lists, enums their value (floats keep their exact ``repr`` in JSON). A
    dataclass's ``NOT_CONTENT`` fields (where its content was read from) are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        skip = getattr(type(value), "NOT_CONTENT", ())  # e.g. where a file was read from
        return {"class": type(value).__name__,
                "fields": {f.name: getattr(value, f.name) for f in dataclasses.fields(value)
                           if f.name not in skip}}
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=lambda v: json.dumps(v, sort_keys=True, default=_content))
    raise NotKeyable(f"no canonical content for a {type(value).__name__}")


def canonical(value: Any) -> str:
    """``value`` as JSON with sorted keys (tuples as lists), or :class:`NotKeyable`."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=_content)


LOCATION_OPTIONS = ("data", "tests_dir")
"""Options that say where the items are read from: the items' content is in the key
(``plan.inputs``), so the same items read from another path are the same run."""


def key_options(accepted: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The options of a call as the key sees them: every option the plan takes, the
    given value or its default (so ``run crows-pairs --limit 40``, which passes every
    option, and ``gs.run("crows-pairs", limit=40)`` agree), less
    :data:`LOCATION_OPTIONS`."""
    import inspect

    return {name: options.get(name, None if default is inspect.Parameter.empty else default)
            for name, default in accepted.items() if name not in LOCATION_OPTIONS}


def run_key(measure: str, options: dict[str, Any], model: dict[str, Any] | None,
            inputs: Any, version: int = 1) -> str | None:
    """SHA-256 over the measure, its options, the model identity, the measured items'
    content, the genderscope version and the measure's own ``version`` (its
    declaration's: raised when what a stored run holds changes, e.g. its intervals, so
    that a store made before is never served for it; version 1 adds nothing, which
    keeps the keys of measures never raised); None when any part has no canonical
    content."""
    parts = {"measure": measure, "options": options, "model": model, "inputs": inputs,
             "genderscope": __version__}
    if version != 1:
        parts["measure_version"] = version
    try:
        blob = canonical(parts)
    except (NotKeyable, ValueError):  # ValueError: a circular reference
        return None
    return "run:" + hashlib.sha256(blob.encode()).hexdigest()


LOAD_OPTIONS = {"kind": "auto", "dtype": "float32", "start_token": "auto"}
"""The load options' defaults, in every key's options. Keys once held the options as
typed, so the same model loaded alike (``start_token="none"`` given to ``run`` or to
``load_model``) was two runs; the model's identity holds how it was loaded (kind,
dtype, start token, as resolved), and these constant values keep the keys that runs
with the default load options were stored under."""


def reuse_key(measure: str, plan: Any, adapter: Any, options: dict[str, Any]) -> str | None:
    """The reuse key of this call (:func:`genderscope.engine.keys.run_key`), or None when the
    plan does not say what it measures or the model has no fingerprint (a plan that
    needs no model is keyed without one). The model is keyed by its identity as loaded
    (:func:`genderscope.models.memo.model_identity`), never by the options as typed."""
    if plan.inputs is None:
        return None
    ident = None  # no model (bias amplification): the inputs say it all
    if plan.needs != "none":
        ident = None if adapter is None else model_identity(adapter)
        if ident is None:
            return None
    return run_key(measure, {**options, **LOAD_OPTIONS}, ident, plan.inputs,
                   _version(measure))


def _version(measure: str) -> int:
    """The measure's declared version (1 for a name the registry does not hold)."""
    from genderscope.core.registry import get

    try:
        return int(get(measure).version)
    except Exception:  # noqa: BLE001 - an unregistered name: no version of its own
        return 1


def out_holds(out: Path, key: str, stored: Any, plan: Any) -> bool:
    """Whether ``out`` already holds the files of the stored run with this key (its
    ``summary.json`` names the key; the item table, tables and figure exist)."""
    try:
        written = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(written, dict) or \
            written.get("metadata", {}).get("cache_key") != key:
        return False
    files = [out / "items.csv", *(out / f"{n}.csv" for n in stored.table_names)]
    if plan.figure is not None:
        files.append(plan.figure_path or out / plan.figure_name)
    return all(f.is_file() for f in files)
