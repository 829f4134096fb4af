"""The Result every measure returns: an item table, a summary with CIs, and metadata.

This module imports neither numpy nor pandas at import time: a rerun that reuses a
stored run (:func:`genderscope.engine.run`) reads its summary without them, and a stored
run's item table is decoded only when ``items`` or ``tables`` is first read.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope import __version__
from genderscope.errors import MASK, is_secret_name, redact

if TYPE_CHECKING:
    import pandas as pd


def _jsonable(value: Any) -> Any:
    """Convert numpy / pandas scalars and containers into plain JSON types; every string
    redacted (:func:`genderscope.errors.redact`: no API key or URL password is written),
    and the string value of a credential's field (``api_key``) masked."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):  # a credential's field keeps its name, not its value
        return {redact(str(k)): MASK if is_secret_name(k) and isinstance(v, str) and v
                else _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, Path):
        return redact(str(value))
    np = sys.modules.get("numpy")  # no numpy value can exist before numpy is imported
    if np is None:
        return value
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return None if math.isnan(f) else f
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def to_json(value: Any, **kwargs: Any) -> str:
    """Serialise summaries/metadata (numpy-aware, NaN -> null, secrets redacted)."""
    return json.dumps(_jsonable(value), ensure_ascii=False, **kwargs)


def file_sha256(path: str | Path) -> str:
    """SHA-256 hex digest of a file's bytes."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def environment() -> dict[str, str]:
    """Versions of the packages a number depends on."""
    env = {"genderscope": __version__, "python": sys.version.split()[0],
           "platform": platform.platform()}
    for name in ("numpy", "scipy", "pandas", "torch", "transformers"):
        mod = sys.modules.get(name)
        if mod is not None:
            env[name] = getattr(mod, "__version__", "?")
    return env


@dataclass
class Result:
    """Outcome of one measure on one model.

    Attributes:
        method: registered measure name, e.g. ``"bec-pro"``.
        summary: JSON-able headline numbers; every estimate carries its CI
            (``{"estimate": x, "ci_low": lo, "ci_high": hi, ...}``) or p-value.
        items: one row per scored item (sentence, pair, word...).
        metadata: provenance: model fingerprint, data file hashes, parameters,
            seed, package versions.
        tables: further named aggregate tables (e.g. per group).
    """

    method: str
    summary: dict[str, Any]
    items: pd.DataFrame
    metadata: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.metadata.setdefault("environment", environment())

    def summary_json(self) -> str:
        return self.to_json()

    def to_json(self, *, items: bool = False, indent: int | None = 2) -> str:
        """Method, summary and metadata as JSON (NaN -> null); ``items=True`` adds the
        item table as a list of records."""
        body: dict[str, Any] = {"method": self.method, "summary": self.summary,
                                "metadata": self.metadata}
        if items:
            body["items"] = json.loads(self.items.to_json(orient="records", force_ascii=False))
        return to_json(body, indent=indent)

    def save(self, out_dir: str | Path) -> Path:
        """Write ``summary.json``, ``items.csv`` and one CSV per extra table, all or
        nothing (:func:`genderscope.outputs.save_result`: files genderscope did not write
        are never replaced)."""
        from genderscope.outputs import save_result

        return save_result(self, out_dir)


class LazyResult(Result):
    """A Result whose item table and further tables are built only when first read:
    ``build()`` returns ``(items, tables)``. A measure asked for its estimate in a loop
    (``n_resamples=0``) does not pay for pandas tables nobody reads."""

    def __init__(self, method: str, summary: dict[str, Any], metadata: dict[str, Any],
                 decode: Callable[[], tuple[pd.DataFrame, dict[str, pd.DataFrame]]],
                 table_names: Sequence[str] = ()) -> None:
        self.table_names = list(table_names)
        """Names of the further tables (known before they are built)."""
        self.method = method
        self.summary = summary
        self.metadata = metadata
        self._decode: Callable[[], Any] | None = decode
        self._parts: list[Any] = [None, None]
        self.__post_init__()

    def _load(self) -> list[Any]:
        if self._decode is not None:
            items, tables = self._decode()
            self._decode = None
            self._parts = [items, tables]
        return self._parts

    @property  # type: ignore[override]
    def items(self) -> pd.DataFrame:
        return self._load()[0]

    @items.setter
    def items(self, value: pd.DataFrame) -> None:
        self._load()[0] = value

    @property  # type: ignore[override]
    def tables(self) -> dict[str, pd.DataFrame]:
        return self._load()[1]

    @tables.setter
    def tables(self, value: dict[str, pd.DataFrame]) -> None:
        self._load()[1] = value


VOLATILE = ("runtime_s", "load_s", "run_id", "command", "cache_key", "out", "wall_seconds",
            "reused", "out_unchanged")
"""Metadata keys that differ between any two runs (timings, ids); left out of diffs."""


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: _jsonable(value)}


def diff_results(a: Result, b: Result, *, volatile: tuple[str, ...] = VOLATILE
                 ) -> pd.DataFrame:
    """What differs between two results: one row per differing key of the method,
    summary and metadata (model, parameters, data hashes, seed, versions), with
    ``change`` = b - a for numbers. Columns ``part, key, a, b, change``; empty when the
    two agree. Timings and ids (``volatile``) are left out."""
    rows: list[dict[str, Any]] = []
    if a.method != b.method:
        rows.append({"part": "method", "key": "method", "a": a.method, "b": b.method})
    for part, da, db in (("summary", a.summary, b.summary), ("metadata", a.metadata,
                                                              b.metadata)):
        fa, fb = _flat(da), _flat(db)
        for key in sorted(set(fa) | set(fb)):
            if key.split(".")[0] in volatile:
                continue
            va, vb = fa.get(key), fb.get(key)
            if va == vb:
                continue
            row: dict[str, Any] = {"part": part, "key": key, "a": va, "b": vb}
            if isinstance(va, (int, float)) and isinstance(vb, (int, float)) \
                    and not isinstance(va, bool) and not isinstance(vb, bool):
                row["change"] = vb - va
            rows.append(row)
    if len(a.items) != len(b.items):
        rows.append({"part": "items", "key": "rows", "a": len(a.items), "b": len(b.items),
                     "change": len(b.items) - len(a.items)})
    import pandas as pd

    return pd.DataFrame(rows, columns=["part", "key", "a", "b", "change"])
