"""Percentile bootstrap over item indices, for statistics that need more than a
1-D sample (F1 from labels and predictions, ratios of two groups' medians,
macro averages over terms). Strata are resampled independently."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from genderscope.stats.intervals import CI, DEFAULT_RESAMPLES, undefined_ci

IndexStatistic = Callable[[Sequence[np.ndarray]], np.ndarray]
"""Takes one index array per stratum, each shaped (B, n_i); returns B values."""


def _percentile_bounds(draw: Callable[[int], np.ndarray], n_resamples: int, chunk: int,
                       confidence: float) -> tuple[float, float] | None:
    """The percentile interval of ``n_resamples`` bootstrap values, drawn at most ``chunk``
    at a time (``draw(b)``: b values). NaN values are dropped; when more than half are
    NaN the bounds are NaN. None when every value is the same: the units resampled show
    no spread, and [x, x] is no interval (:func:`genderscope.stats.intervals.no_spread`)."""
    values: list[np.ndarray] = []
    done = 0
    while done < n_resamples:
        b = min(chunk, n_resamples - done)
        values.append(np.asarray(draw(b), dtype=float).reshape(b))
        done += b
    v = np.concatenate(values)
    v = v[~np.isnan(v)]
    if v.size < n_resamples / 2:
        return float("nan"), float("nan")
    if v.min() == v.max():
        return None
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(v, [alpha, 1 - alpha])
    return float(lo), float(hi)


def index_bootstrap_ci(sizes: Sequence[int], statistic: IndexStatistic, *,
                       confidence: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES,
                       seed: int = 0, chunk: int = 500, unit: str | None = None) -> CI:
    """Point estimate (``statistic`` on the identity indices) and stratified percentile
    bootstrap CI: each resample draws ``sizes[i]`` indices with replacement from stratum i.
    NaN resamples (a zero denominator) are dropped (:func:`_percentile_bounds`). ``unit``:
    what one index stands for (stored as ``ci_unit``)."""
    sizes = [int(n) for n in sizes]
    ident = [np.arange(n)[None, :] for n in sizes]
    est = float(np.asarray(statistic(ident), dtype=float).reshape(-1)[0])
    n_total = int(sum(sizes))
    if any(n == 0 for n in sizes):
        nan = float("nan")
        return CI(est, nan, nan, confidence, n_total, "percentile bootstrap", unit)
    rng = np.random.default_rng(seed)
    bounds = _percentile_bounds(
        lambda b: statistic([rng.integers(0, n, size=(b, n)) for n in sizes]),
        n_resamples, chunk, confidence)
    if bounds is None:
        return undefined_ci(est, confidence, n_total, "percentile bootstrap", unit)
    return CI(est, *bounds, confidence, n_total, "percentile bootstrap", unit)


TotalsStatistic = Callable[[np.ndarray], np.ndarray]
"""Takes summed cluster totals shaped (B, m); returns B values."""


def cluster_bootstrap_ci(totals: np.ndarray, statistic: TotalsStatistic, *, unit: str,
                         n_items: int | None = None, confidence: float = 0.95,
                         n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                         chunk: int = 2_000, strata: np.ndarray | None = None) -> CI:
    """Percentile cluster bootstrap for statistics of additive per-cluster totals.

    ``totals`` is (K clusters x m): per cluster, the sums the statistic needs (e.g. sum and
    count for a mean; tp/fp/fn for an F1). Each resample draws K clusters with replacement
    (multinomial counts w, (B, K)) and evaluates ``statistic(w @ totals)``; the estimate is
    ``statistic`` of the column sums. A cluster's items stay together, so the interval
    reflects between-cluster variation (Davison & Hinkley 1997, Sec. 3.8); NaN resamples as
    :func:`_percentile_bounds`. ``strata`` (one code per cluster) resamples each stratum's
    clusters apart, keeping its cluster count (fixed groups a metric contrasts, e.g.
    HiringBloomberg's four occupations).
    """
    tot = np.asarray(totals, dtype=float)
    if tot.ndim == 1:
        tot = tot[:, None]
    k = tot.shape[0]
    n = int(n_items if n_items is not None else k)
    nan = float("nan")
    if k == 0:
        return CI(nan, nan, nan, confidence, n, "cluster percentile bootstrap", unit, 0)
    est = float(np.asarray(statistic(tot.sum(axis=0)[None, :]), dtype=float).reshape(-1)[0])
    if k < 2:
        return CI(est, nan, nan, confidence, n, "cluster percentile bootstrap", unit, k)
    rng = np.random.default_rng(seed)
    codes = np.zeros(k, dtype=int) if strata is None else _codes(list(strata))
    groups = [np.flatnonzero(codes == c) for c in range(int(codes.max()) + 1)]

    def draw(b: int) -> np.ndarray:
        w = np.zeros((b, k))
        for g in groups:
            w[:, g] = rng.multinomial(g.size, np.full(g.size, 1.0 / g.size), size=b)
        return statistic(w @ tot)

    bounds = _percentile_bounds(draw, n_resamples, chunk, confidence)
    if bounds is None:
        return undefined_ci(est, confidence, n, "cluster percentile bootstrap", unit, k)
    return CI(est, *bounds, confidence, n, "cluster percentile bootstrap", unit, k)


def cluster_totals(clusters: Sequence[object] | np.ndarray, columns: np.ndarray
                   ) -> np.ndarray:
    """Per-cluster sums of ``columns`` (items x m), clusters in order of first appearance."""
    codes = _codes(clusters)
    cols = np.asarray(columns, dtype=float)
    if cols.ndim == 1:
        cols = cols[:, None]
    out = np.zeros((int(codes.max()) + 1 if codes.size else 0, cols.shape[1]))
    np.add.at(out, codes, cols)
    return out


def _codes(clusters: Sequence[object] | np.ndarray) -> np.ndarray:
    seen: dict[object, int] = {}
    return np.array([seen.setdefault(c, len(seen)) for c in clusters], dtype=int)


def cluster_t_ci(totals: np.ndarray, *, unit: str, n_items: int | None = None,
                 confidence: float = 0.95) -> CI:
    """Cluster-robust t interval of a mean from per-cluster (sum, count) ``totals`` (K x 2).

    Estimate m = sum(Y_k) / sum(N_k); variance K / (K - 1) * sum_k (Y_k - m N_k)^2 / N^2
    (the CR1 sandwich of Cameron & Miller 2015, Sec. VI.B, for a mean) with t(K - 1)
    quantiles. With equal cluster sizes this is exactly Student's t interval over the
    K cluster means. Every cluster at the same mean (no residual) has no interval: NaN
    bounds and ``no_interval``, not [m, m].
    """
    from scipy import stats  # imported on use: a cached rerun needs none

    tot = np.asarray(totals, dtype=float)
    k = tot.shape[0]
    n = int(n_items if n_items is not None else k)
    nan = float("nan")
    if k == 0 or tot[:, 1].sum() == 0:
        return CI(nan, nan, nan, confidence, n, "cluster t interval", unit, k)
    big_n = tot[:, 1].sum()
    est = float(tot[:, 0].sum() / big_n)
    if k < 2:
        return CI(est, nan, nan, confidence, n, "cluster t interval", unit, k)
    resid = tot[:, 0] - est * tot[:, 1]
    se = float(np.sqrt(k / (k - 1) * np.sum(resid ** 2)) / big_n)
    if not se > 20 * np.finfo(float).eps * max(abs(est), 1e-300):
        return undefined_ci(est, confidence, n, "cluster t interval", unit, k)
    q = float(stats.t.ppf(0.5 + confidence / 2, k - 1))
    return CI(est, est - q * se, est + q * se, confidence, n, "cluster t interval", unit, k)


def cluster_mean_ci(values: np.ndarray | Sequence[float], clusters: Sequence[object] |
                    np.ndarray, *, unit: str, confidence: float = 0.95,
                    n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> CI:
    """Mean of ``values`` (NaNs dropped) with the cluster t interval over ``clusters``
    (:func:`cluster_t_ci`; docs/calibration.md, "Clustered means and few units")."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(list(clusters), dtype=object)
    keep = ~np.isnan(v)
    v, c = v[keep], c[keep]
    if v.size == 0:
        nan = float("nan")
        return CI(nan, nan, nan, confidence, 0, "cluster percentile bootstrap", unit, 0)
    tot = cluster_totals(c, np.column_stack([v, np.ones_like(v)]))
    del n_resamples, seed  # kept for callers; the t interval needs no resampling
    return cluster_t_ci(tot, unit=unit, n_items=int(v.size), confidence=confidence)


def cluster_proportion_ci(values: np.ndarray | Sequence[float], clusters: Sequence[object] |
                          np.ndarray, *, unit: str, confidence: float = 0.95) -> CI:
    """Proportion of 0/1 ``values`` (NaNs dropped) whose units share ``clusters``: Wilson's
    score interval with the design-effect sample size and t(K - 1) quantiles
    (:func:`cluster_share_ci` of the clusters' (successes, units) totals)."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(list(clusters), dtype=object)
    if c.size != v.size:
        raise ValueError(f"cluster_proportion_ci: {c.size} cluster labels for {v.size} values")
    keep = ~np.isnan(v)
    v, c = v[keep], c[keep]
    if np.any((v != 0) & (v != 1)):
        raise ValueError("cluster_proportion_ci: values must be 0 or 1")
    tot = cluster_totals(c, np.column_stack([v, np.ones_like(v)]))
    return cluster_share_ci(tot.reshape(-1, 2), unit=unit, confidence=confidence)


def cluster_share_ci(totals: np.ndarray, *, unit: str, n_items: int | None = None,
                     confidence: float = 0.95) -> CI:
    """A share p = sum(Y_k) / sum(N_k) of units with an outcome, from per-cluster
    (Y_k successes, N_k units) ``totals`` (K x 2; clusters with N_k = 0 dropped):
    Wilson's score interval with the design-effect sample size and t(K - 1) quantiles.

    With n = sum N_k units in K clusters, the cluster-robust variance (CR1, as in
    :func:`cluster_t_ci`) v = K / (K - 1) * sum_k (Y_k - p N_k)^2 / n^2 and the design
    effect deff = v / (p (1 - p) / n) (Kish 1965), Wilson's interval is computed
    at Kish's effective sample size n* = n / deff with the t(K - 1) quantile in place of z:
    the degrees-of-freedom adjusted effective sample size of Korn & Graubard (1998),
    "Confidence intervals for proportions with small expected number of positive counts
    estimated from survey data", Survey Methodology 24(2), here with Wilson's limits (SAS
    PROC SURVEYFREQ's "modified Wilson"; compared by Dean & Pagano 2015, J. Survey Stat.
    Methodol. 3(4)). Unlike a cluster bootstrap or the cluster t interval it stays in
    [0, 1] and never collapses to a point when every cluster has the same outcome
    (docs/statistics.md, "Proportions"). deff is floored at 1. When p is 0 or 1 the data
    hold no variance to estimate deff from, and the units of a cluster may agree as one:
    n* is then K, each cluster counted once (the largest design effect, n / K, for equal
    clusters; the units themselves when none share a cluster). ``n_items``: the ``n``
    recorded (default: the units). Calibrated in tests/stats/test_calibration_design.py,
    tests/stats/test_calibration_probes.py and docs/calibration.md.
    """
    from scipy import stats  # imported on use: a cached rerun needs none

    tot = np.asarray(totals, dtype=float).reshape(-1, 2)
    tot = tot[tot[:, 1] > 0]
    method = "design-effect Wilson"
    nan = float("nan")
    k, n = int(tot.shape[0]), float(tot[:, 1].sum())
    n_rec = int(n_items if n_items is not None else n)
    if k == 0:
        return CI(nan, nan, nan, confidence, n_rec, method, unit, 0)
    if np.any(tot[:, 0] < 0) or np.any(tot[:, 0] > tot[:, 1]):
        raise ValueError("cluster_share_ci: successes must lie in [0, units] per cluster")
    p = float(tot[:, 0].sum() / n)
    if k < 2:
        return CI(p, nan, nan, confidence, n_rec, method, unit, k)
    var = k / (k - 1) * float(np.sum((tot[:, 0] - p * tot[:, 1]) ** 2)) / n ** 2
    srs = p * (1 - p) / n
    m = n / max(var / srs, 1.0) if srs > 0 else float(k)
    q = float(stats.t.ppf(0.5 + confidence / 2, k - 1))
    low, high = wilson_bounds(p, m, q)
    return CI(p, low, high, confidence, n_rec, method, unit, k)


def wilson_bounds(p: float, m: float, q: float) -> tuple[float, float]:
    """Wilson's score interval (Wilson 1927) of a share ``p`` at (effective) sample size
    ``m`` with quantile ``q`` (z, or a t quantile for a design's degrees of freedom):
    centre (p + q^2 / 2m) / (1 + q^2 / m) +- q / (1 + q^2 / m) sqrt(p (1 - p) / m +
    q^2 / 4m^2), clipped to [0, 1]; exactly 0 (1) when p is 0 (1), with no rounding."""
    centre = (p + q * q / (2 * m)) / (1 + q * q / m)
    half = q / (1 + q * q / m) * np.sqrt(p * (1 - p) / m + q * q / (4 * m * m))
    low = 0.0 if p == 0.0 else max(0.0, float(centre - half))
    high = 1.0 if p == 1.0 else min(1.0, float(centre + half))
    return low, high
