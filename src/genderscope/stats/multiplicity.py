"""Multiplicity control for a family of tests reported together.

- Holm (1979), "A simple sequentially rejective multiple test procedure": with the
  m raw p-values sorted, p_(1) <= ... <= p_(m), the adjusted values are
  ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``; rejecting p~ < alpha controls the
  family-wise error rate at alpha under any dependence. The default.
- Benjamini & Hochberg (1995): false discovery rate control
  (:func:`scipy.stats.false_discovery_control`, ``method="bh"``).

NaN p-values (tests that could not run) stay NaN and do not count in m.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

import numpy as np

METHODS = ("holm", "bh")


def adjust_pvalues(p: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family (same order as ``p``); see module docstring."""
    if method not in METHODS:
        raise ValueError(f"unknown p-value adjustment {method!r}; use one of {', '.join(METHODS)}")
    p = np.asarray(p, dtype=float).reshape(-1)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if not ok.any():
        return out
    q = np.clip(p[ok], 0.0, 1.0)
    if method == "bh":
        from scipy import stats  # imported on use: Holm and a cached rerun need none

        out[ok] = stats.false_discovery_control(q, method="bh")
        return out
    m = q.size
    order = np.argsort(q, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * q[order])
    adj = np.empty(m)
    adj[order] = np.maximum.accumulate(scaled)
    out[ok] = adj
    return out


def annotate_family(entries: Sequence[MutableMapping[str, Any]], family: str, *,
                    method: str = "holm", key: str = "p_value") -> None:
    """Add ``p_adjusted``, ``p_adjust_method`` and ``family`` to every entry (in place),
    adjusting the raw ``entries[i][key]`` over the family."""
    raw = [float(e.get(key, np.nan)) if e.get(key) is not None else np.nan for e in entries]
    adj = adjust_pvalues(raw, method)
    for e, a in zip(entries, adj, strict=True):
        e["p_adjusted"] = float(a)
        e["p_adjust_method"] = method
        e["family"] = family
