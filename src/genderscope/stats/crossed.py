"""Interval for items indexed by two crossed random factors (e.g. ABC: occupations x
sentence frames; BEC-Pro: professions x person words).

Two-way cluster variance (Cameron, Gelbach & Miller 2011, "Robust inference with
multiway clustering", J. Bus. Econ. Stat. 29(2), Sec. 2.2, eq. 2.11): the variance of
the statistic is V = V_rows + V_cols - V_items, where V_rows is the variance when only
the row levels vary (a cluster bootstrap over rows), V_cols the same over columns and
V_items over items (the item-level variation both include once too many). Here each V
is the variance of ``n_resamples`` bootstrap replicates, so any weighted statistic
(e.g. a median) works; V is floored at max(V_rows, V_cols) (it can come out negative),
and the interval is estimate +- t(min(R, C) - 1) sqrt(V). Resampling items, or one
factor only, ignores the other factor's variation (docs/measures/abc.md compares it with
resampling items, ABC's groups, and with Owen's 2007 pigeonhole bootstrap). Vectorised:
one (B, n) weight matrix per chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from genderscope.stats.intervals import CI, undefined_ci

WeightedStatistic = Callable[[np.ndarray], np.ndarray]
"""Takes item weights shaped (B, n); returns B values."""

METHOD = "two-way cluster bootstrap-variance t interval"


def weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted median of ``values`` (n,) under each row of ``weights`` (B, n): the
    smallest value whose cumulative weight reaches half the row's total, averaged with
    the next value when it reaches exactly half (so all-ones weights give np.median);
    NaN for a row of zero weight."""
    v = np.asarray(values, dtype=float)
    order = np.argsort(v, kind="stable")
    sv = v[order]
    w = np.atleast_2d(np.asarray(weights, dtype=float))[:, order]
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1]
    half = total[:, None] / 2.0
    lo = np.argmax(cum >= half, axis=1)
    hi = np.argmax(cum > half, axis=1)
    out = (sv[lo] + sv[hi]) / 2.0
    return np.where(total > 0, out, np.nan)


def _counts(rng: np.random.Generator, b: int, k: int) -> np.ndarray:
    """(b, k) draw counts of k levels drawn k times with replacement, b times."""
    idx = rng.integers(0, k, (b, k)) + k * np.arange(b)[:, None]
    return np.bincount(idx.ravel(), minlength=b * k).reshape(b, k).astype(float)


def crossed_ci(rows: Sequence[object], cols: Sequence[object],
               statistic: WeightedStatistic, *, unit: str, confidence: float = 0.95,
               n_resamples: int = 2_000, seed: int = 0, chunk: int = 500) -> CI:
    """Two-way cluster interval of ``statistic`` (module docstring); ``rows`` and ``cols``:
    each item's level of the two factors; the estimate is ``statistic`` with every weight 1.
    NaN replicates are dropped (bounds NaN when more than half are). ``n_units`` is R + C.
    Replicates that all agree (no spread: every item the same) give no interval, NaN
    bounds with ``no_interval``, not [est, est].
    """
    from scipy import stats  # imported on use: a cached rerun needs none

    r = pd.factorize(pd.Series(list(rows), dtype=object))[0]
    c = pd.factorize(pd.Series(list(cols), dtype=object))[0]
    n = r.size
    n_r, n_c = (int(r.max()) + 1, int(c.max()) + 1) if n else (0, 0)
    nan = float("nan")
    if n == 0:
        return CI(nan, nan, nan, confidence, 0, METHOD, unit, 0)
    est = float(np.asarray(statistic(np.ones((1, n))), dtype=float).reshape(-1)[0])
    if n_r < 2 or n_c < 2:
        return CI(est, nan, nan, confidence, n, METHOD, unit, n_r + n_c)
    rng = np.random.default_rng(seed)
    reps: dict[str, list[np.ndarray]] = {"rows": [], "cols": [], "items": []}
    done = 0
    while done < n_resamples:
        b = min(chunk, n_resamples - done)
        for name, w in (("rows", _counts(rng, b, n_r)[:, r]), ("cols", _counts(rng, b, n_c)[:, c]),
                        ("items", _counts(rng, b, n))):
            reps[name].append(np.asarray(statistic(w), dtype=float).reshape(b))
        done += b
    var = {}
    for name, vals in reps.items():
        v = np.concatenate(vals)
        v = v[~np.isnan(v)]
        if v.size < n_resamples / 2:
            return CI(est, nan, nan, confidence, n, METHOD, unit, n_r + n_c)
        var[name] = float(np.var(v, ddof=1))
    total = max(var["rows"] + var["cols"] - var["items"], var["rows"], var["cols"])
    if not total > 0:  # no replicate moved the statistic: [est, est] is no interval
        return undefined_ci(est, confidence, n, METHOD, unit, n_r + n_c)
    half = float(stats.t.ppf(0.5 + confidence / 2, min(n_r, n_c) - 1)) * np.sqrt(total)
    return CI(est, est - half, est + half, confidence, n, METHOD, unit, n_r + n_c)
