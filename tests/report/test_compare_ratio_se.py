"""The report's bootstrap-t p over 50 or more clusters of unequal size studentises each
resample by its own linearised ratio SE (reporting/compare.py, ``_ratio_se``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from genderscope.reporting.compare import paired_difference
from genderscope.reporting.entry import Paired


def _mean(x: np.ndarray) -> float:
    return float(x[:, 0].mean())


def _ratio_se(tot: np.ndarray, size: np.ndarray) -> float:
    """sqrt(K / (K - 1) sum (T_k - d N_k)^2) / N, d = sum T_k / N (Cochran 1977, 6.4)."""
    k, n = tot.size, size.sum()
    z = tot - tot.sum() / n * size
    return float(np.sqrt(k / (k - 1) * np.sum(z ** 2)) / n)


def _reference_p(tot: np.ndarray, size: np.ndarray, seed: int, n_resamples: int,
                 b: int) -> float:
    """Equal-tailed cluster bootstrap-t p of d = 0, written from the totals; the same
    draws as paired_difference (its percentile CI's resamples come first)."""
    rng = np.random.default_rng(seed)
    k = tot.size
    for _ in range(n_resamples):
        rng.integers(0, k, k)
    d = tot.sum() / size.sum()
    t_obs = d / _ratio_se(tot, size)
    draws = np.empty(b)
    for i in range(b):
        idx = rng.integers(0, k, k)
        d_b = tot[idx].sum() / size[idx].sum()
        draws[i] = (d_b - d) / _ratio_se(tot[idx], size[idx])
    ge = (np.count_nonzero(draws >= t_obs) + 1) / (b + 1)
    le = (np.count_nonzero(draws <= t_obs) + 1) / (b + 1)
    return min(1.0, 2 * min(ge, le))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bootstrap_t_over_unequal_clusters_uses_the_resamples_ratio_se(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    k = 60
    size = rng.integers(2, 31, k)
    prof = np.repeat(np.arange(k), size)
    index = pd.Index([f"i{i}" for i in range(prof.size)])
    clusters = pd.Series(prof.astype(str), index=index)
    base = rng.normal(0, 1, prof.size)
    gap = (rng.lognormal(0, 1, k) - np.exp(0.5))[prof] + rng.normal(0, 0.5, prof.size)
    a = Paired(pd.DataFrame({"v": base + gap}, index=index), _mean, "p", clusters)
    b = Paired(pd.DataFrame({"v": base}, index=index), _mean, "p", clusters)
    p = paired_difference(a, b, n_resamples=20, n_permutations=999, seed=seed)[5]
    # clusters sort by label as strings ("0", "1", "10", ...): totals in that order
    order = np.argsort(np.arange(k).astype(str), kind="stable")
    tot = np.bincount(prof, weights=gap, minlength=k)[order]
    assert p == pytest.approx(_reference_p(tot, size[order].astype(float), seed, 20, 999),
                              abs=1e-12)
