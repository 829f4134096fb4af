"""Sign-flip (paired permutation) test of a mean, and the Hodges-Lehmann estimate.

Sign-flip test (Fisher 1935, Sec. 21; Good 2005, *Permutation, Parametric and
Bootstrap Tests of Hypotheses*, Sec. 3.1): given n independent unit-level differences
d_1..d_n, symmetric about 0 under the null, the statistic is their mean; its null
distribution is the mean of (e_1 d_1, ..., e_n d_n) over sign vectors e in {-1, +1}^n.
Every one of the 2^n vectors when 2^n <= ``exact_limit`` (n <= 24 by default; the
p-value is then exact, e.g. p >= 1/16 two-sided at n = 5), else ``n_flips`` seeded
random vectors with the (k + 1) / (B + 1) estimator. The test is of the *mean*, the
same quantity as the estimate and its CI; its size holds for differences symmetric
under the null, and not for strongly skewed ones (docs/calibration.md, "Paired tests and
compare": within the bar at skewness 0.8-1.4, above it at 2), so
:mod:`genderscope.stats.design` uses it only where the sign is arbitrary by design.

Hodges-Lehmann estimate (Hodges & Lehmann 1963): the median of the Walsh averages
(d_i + d_j) / 2, i <= j; the location the Wilcoxon signed-rank test is about.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

DEFAULT_FLIPS = 10_000
DEFAULT_EXACT_LIMIT = 1 << 24


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


def _half_sums(x: np.ndarray) -> np.ndarray:
    """Sums of e * x over every sign vector e of the (short) vector x."""
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate([sums + v, sums - v])
    return sums


def _exact_counts(x: np.ndarray, tol: float) -> tuple[int, int, int]:
    """(#|S| >= |s|, #S >= s, #S <= s) over all 2^n sign vectors, S their signed sums and
    s the observed sum; meet in the middle: 2^(n/2) sums per half, one sorted."""
    obs = float(x.sum())
    a = _half_sums(x[: x.size // 2])
    b = np.sort(_half_sums(x[x.size // 2:]))
    m = b.size

    def at_least(t: np.ndarray) -> int:  # pairs with a + b >= t
        return int(np.sum(m - np.searchsorted(b, t - a, side="left")))

    def at_most(t: np.ndarray) -> int:  # pairs with a + b <= t
        return int(np.sum(np.searchsorted(b, t - a, side="right")))

    t = abs(obs) - tol
    two = a.size * m if t <= 0 else at_least(t) + at_most(-t)
    return two, at_least(obs - tol), at_most(obs + tol)


def sign_flip_pvalues(d: np.ndarray, *, n_flips: int = DEFAULT_FLIPS, seed: int = 0,
                      exact_limit: int = DEFAULT_EXACT_LIMIT
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
    """Vectorised core: ``d`` is (samples x n), one independent test per row (no NaNs).
    Returns (two-sided p, p greater, p less, number of sign vectors, exact), p shaped
    (samples,); two-sided p counts |mean_flipped| >= |mean_observed|. Exact counts split the
    signs in two halves (2^(n/2) sums each), so n = 24 takes milliseconds."""
    x = np.atleast_2d(np.asarray(d, dtype=float))
    n = x.shape[1]
    exact = (1 << n) <= exact_limit
    obs = x.mean(axis=1)
    tol = 1e-12 * np.maximum(1.0, np.abs(obs))
    if exact:
        b = 1 << n
        counts = np.array([_exact_counts(row, t * n) for row, t in zip(x, tol, strict=True)],
                          dtype=float).reshape(-1, 3)
        return counts[:, 0] / b, counts[:, 1] / b, counts[:, 2] / b, b, True
    rng = np.random.default_rng(seed)
    two = np.zeros(x.shape[0])
    ge = np.zeros(x.shape[0])
    le = np.zeros(x.shape[0])
    step = max(1, min(n_flips, (1 << 22) // max(1, x.shape[0] * n)))
    for start in range(0, n_flips, step):
        stop = min(n_flips, start + step)
        signs = np.where(rng.random((stop - start, n)) < 0.5, 1.0, -1.0)
        m = x @ signs.T / n  # (samples, flips)
        two += np.count_nonzero(np.abs(m) >= (np.abs(obs) - tol)[:, None], axis=1)
        ge += np.count_nonzero(m >= (obs - tol)[:, None], axis=1)
        le += np.count_nonzero(m <= (obs + tol)[:, None], axis=1)
    b = n_flips
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
