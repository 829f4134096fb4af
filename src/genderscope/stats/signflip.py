"""Sign-flip (paired permutation) test of a mean, and the Hodges-Lehmann estimate.

Sign-flip test (Fisher 1935, Sec. 21; Good 2005, *Permutation, Parametric and
Bootstrap Tests of Hypotheses*, Sec. 3.1): given n independent unit-level differences
d_1..d_n, symmetric about 0 under the null, the statistic is their mean; its null
distribution is the mean of (e_1 d_1, ..., e_n d_n) over sign vectors e in {-1, +1}^n.
Every one of the 2^n vectors when 2^n <= ``exact_limit`` (n <= 20 by default; the
p-value is then exact, e.g. p >= 1/16 two-sided at n = 5), else ``n_flips`` seeded
random vectors with the (k + 1) / (B + 1) estimator. The test is of the *mean*, the
same quantity as the estimate and its CI; its size holds for symmetric differences,
and approximately for skewed ones (tests/test_calibration.py measures it).

Hodges-Lehmann estimate (Hodges & Lehmann 1963): the median of the Walsh averages
(d_i + d_j) / 2, i <= j; the location the Wilcoxon signed-rank test is about.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

DEFAULT_FLIPS = 10_000
DEFAULT_EXACT_LIMIT = 1 << 20


@dataclass(frozen=True)
class SignFlipResult:
    """Mean of the differences and its sign-flip p-values (two-sided, and each side)."""

    mean: float
    p_two_sided: float
    p_greater: float
    p_less: float
    n: int
    n_flips: int
    exact: bool

    def as_dict(self) -> dict[str, float | int | bool]:
        return asdict(self)


def _signs(start: int, stop: int, n: int) -> np.ndarray:
    """Sign vectors number start..stop-1 of the 2^n (bit j of the number -> unit j)."""
    bits = (np.arange(start, stop, dtype=np.int64)[:, None] >> np.arange(n)) & 1
    return 1.0 - 2.0 * bits


def sign_flip_pvalues(d: np.ndarray, *, n_flips: int = DEFAULT_FLIPS, seed: int = 0,
                      exact_limit: int = DEFAULT_EXACT_LIMIT
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
    """Vectorised core: ``d`` is (samples x n), one independent test per row (no NaNs).

    Returns (two-sided p, p greater, p less, number of sign vectors, exact) with the
    p-values shaped (samples,). Two-sided p counts |mean_flipped| >= |mean_observed|.
    """
    x = np.atleast_2d(np.asarray(d, dtype=float))
    n = x.shape[1]
    exact = (1 << n) <= exact_limit
    b = 1 << n if exact else n_flips
    rng = np.random.default_rng(seed)
    obs = x.mean(axis=1)
    tol = 1e-12 * np.maximum(1.0, np.abs(obs))
    two = np.zeros(x.shape[0])
    ge = np.zeros(x.shape[0])
    le = np.zeros(x.shape[0])
    step = max(1, min(b, (1 << 22) // max(1, x.shape[0] * n)))
    for start in range(0, b, step):
        stop = min(b, start + step)
        signs = (_signs(start, stop, n) if exact
                 else np.where(rng.random((stop - start, n)) < 0.5, 1.0, -1.0))
        m = x @ signs.T / n  # (samples, flips)
        two += np.count_nonzero(np.abs(m) >= (np.abs(obs) - tol)[:, None], axis=1)
        ge += np.count_nonzero(m >= (obs - tol)[:, None], axis=1)
        le += np.count_nonzero(m <= (obs + tol)[:, None], axis=1)
    if exact:
        return two / b, ge / b, le / b, b, True
    return (two + 1) / (b + 1), (ge + 1) / (b + 1), (le + 1) / (b + 1), b, False


def sign_flip_test(d: np.ndarray | list[float], *, n_flips: int = DEFAULT_FLIPS, seed: int = 0,
                   exact_limit: int = DEFAULT_EXACT_LIMIT) -> SignFlipResult:
    """Sign-flip test that the mean of the differences ``d`` is 0 (NaNs dropped)."""
    x = np.asarray(d, dtype=float)
    x = x[~np.isnan(x)]
    nan = float("nan")
    if x.size == 0:
        return SignFlipResult(nan, nan, nan, nan, 0, 0, False)
    two, ge, le, b, exact = sign_flip_pvalues(x[None, :], n_flips=n_flips, seed=seed,
                                              exact_limit=exact_limit)
    return SignFlipResult(float(x.mean()), float(two[0]), float(ge[0]), float(le[0]),
                          int(x.size), int(b), bool(exact))


def hodges_lehmann(d: np.ndarray | list[float]) -> float:
    """Median of the Walsh averages (d_i + d_j) / 2 over i <= j (NaNs dropped)."""
    x = np.asarray(d, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return float("nan")
    i, j = np.triu_indices(x.size)
    return float(np.median((x[i] + x[j]) / 2.0))
