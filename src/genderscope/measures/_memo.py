"""Aggregates of an item table, memoised in the score store by content.

A measure's summary and tables (bootstrap CIs, tests) are a deterministic function
of its item table, its parameters and the genderscope version. When the adapter
has a store, :func:`aggregates` keys them by a hash of exactly those, so a rerun
whose answers all come from the score cache also skips the resampling (and the
scipy import it needs). Values are stored as JSON with every float written exactly
(``repr`` round trip), NaN included; tables keep their column dtypes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

Aggregates = tuple[dict[str, Any], dict[str, pd.DataFrame]]
MODEL = "~aggregates"
"""``scores.model`` of memoised aggregates (the namespace is the measure)."""


def aggregates(adapter: Any, method: str, items: pd.DataFrame, params: dict[str, Any],
               compute: Callable[[], Aggregates]) -> Aggregates:
    """``compute()``, or its memo from ``adapter.store`` for the same items and params."""
    store = getattr(adapter, "store", None)
    if store is None or not hasattr(store, "get_texts"):
        return compute()
    key = content_key(items, params)
    hit = store.get_texts(MODEL, method, [key]).get(key)
    if hit is not None:
        return _decode(hit)
    summary, tables = compute()
    store.put_texts(MODEL, method, {key: _encode(summary, tables)})
    return summary, tables


def content_key(items: pd.DataFrame, params: dict[str, Any]) -> str:
    """SHA-256 of the item table (values, column names and dtypes), params and version."""
    from genderscope import __version__

    h = hashlib.sha256()
    h.update(json.dumps({"params": params, "genderscope": __version__,
                         "columns": [str(c) for c in items.columns],
                         "dtypes": [str(t) for t in items.dtypes]},
                        sort_keys=True, default=str).encode())
    h.update(pd.util.hash_pandas_object(items, index=True).to_numpy().tobytes())
    return h.hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot memoise a {type(value).__name__}")


def _encode(summary: dict[str, Any], tables: dict[str, pd.DataFrame]) -> str:
    frames = {name: {"columns": [str(c) for c in df.columns],
                     "dtypes": [str(t) for t in df.dtypes],
                     "data": [df[c].tolist() for c in df.columns]}
              for name, df in tables.items()}
    return json.dumps({"summary": summary, "tables": frames}, default=_plain)


def _decode(text: str) -> Aggregates:
    blob = json.loads(text)
    tables = {}
    for name, f in blob["tables"].items():
        tables[name] = pd.DataFrame({c: pd.Series(v, dtype=t) for c, t, v in
                                     zip(f["columns"], f["dtypes"], f["data"], strict=True)},
                                    columns=f["columns"])
    return blob["summary"], tables
