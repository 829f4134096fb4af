"""Percentile bootstrap over item indices, for statistics that need more than a
1-D sample (F1 from labels and predictions, ratios of two groups' medians,
macro averages over terms). Strata are resampled independently."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from genderscope.stats.intervals import CI, DEFAULT_RESAMPLES

IndexStatistic = Callable[[Sequence[np.ndarray]], np.ndarray]
"""Takes one index array per stratum, each shaped (B, n_i); returns B values."""


def index_bootstrap_ci(sizes: Sequence[int], statistic: IndexStatistic, *,
                       confidence: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES,
                       seed: int = 0, chunk: int = 500) -> CI:
    """Point estimate and percentile bootstrap CI of ``statistic``.

    Each resample draws ``sizes[i]`` indices with replacement from stratum i
    (a stratified bootstrap). The estimate is ``statistic`` on the identity
    indices. Resamples whose statistic is NaN (e.g. a ratio with a zero
    denominator) are dropped; when more than half are NaN the bounds are NaN.
    """
    sizes = [int(n) for n in sizes]
    ident = [np.arange(n)[None, :] for n in sizes]
    est = float(np.asarray(statistic(ident), dtype=float).reshape(-1)[0])
    n_total = int(sum(sizes))
    if any(n == 0 for n in sizes):
        nan = float("nan")
        return CI(est, nan, nan, confidence, n_total, "percentile bootstrap")
    rng = np.random.default_rng(seed)
    values: list[np.ndarray] = []
    done = 0
    while done < n_resamples:
        b = min(chunk, n_resamples - done)
        idx = [rng.integers(0, n, size=(b, n)) for n in sizes]
        values.append(np.asarray(statistic(idx), dtype=float).reshape(b))
        done += b
    v = np.concatenate(values)
    v = v[~np.isnan(v)]
    if v.size < n_resamples / 2:
        nan = float("nan")
        return CI(est, nan, nan, confidence, n_total, "percentile bootstrap")
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(v, [alpha, 1 - alpha])
    return CI(est, float(lo), float(hi), confidence, n_total, "percentile bootstrap")
