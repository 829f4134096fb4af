"""Bootstrap-t (percentile-t) test and interval of a mean over few, skewed units.

Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, Sec. 12.5; Hall 1988 (Ann.
Statist. 16, 927-953) on why studentizing corrects the skewness term: from n unit values
d, T = (mean - mu) / (s / sqrt n); its distribution is estimated by resampling the units,
T* = (mean* - mean) / (s* / sqrt n). The equal-tailed 95 % interval is
[mean - q*(0.975) se, mean - q*(0.025) se], and the two-sided test of mu = 0 rejects when
that interval excludes 0: p = 2 min(P*(T* >= t), P*(T* <= t)) with the (k + 1) / (B + 1)
estimator. Unlike the sign-flip test it does not assume the differences symmetric under
the null, so it keeps its size under skew where the sign flip does not. It is not exact:
over strongly skewed units it is a known limit (docs/calibration.md, "Paired tests and
compare"), which :func:`bootstrap_t_test`'s ``caveat`` names
(:mod:`genderscope.stats.diagnostics`). A resample
whose units are all equal has s* = 0; its T* is +-inf (or 0 when its mean equals the
sample mean).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genderscope.stats.diagnostics import mean_caveat
from genderscope.stats.intervals import fields_set

DEFAULT_RESAMPLES = 9_999


@dataclass(frozen=True)
class BootstrapTResult:
    """Mean, its equal-tailed bootstrap-t 95 % interval and two-sided p."""

    mean: float
    ci_low: float
    ci_high: float
    p_two_sided: float
    t: float
    n: int
    n_resamples: int
    caveat: str | None = None
    """One line when the values are strongly skewed (outside the calibrated range:
    :func:`genderscope.stats.diagnostics.mean_caveat`), else None."""

    def as_dict(self) -> dict[str, float | int | str]:
        """The fields (``caveat`` only when there is one)."""
        return fields_set(self)


def bootstrap_t_pvalues(d: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                        confidence: float = 0.95, chunk: int = 500
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised core: ``d`` is (samples x n), one independent test per row (no NaNs,
    n >= 2). Returns (two-sided p, CI low, CI high, observed t), each (samples,). The
    rows share the resampled index vectors (they are independent data sets)."""
    x = np.atleast_2d(np.asarray(d, dtype=float))
    rows, n = x.shape
    mean = x.mean(axis=1)
    se = x.std(axis=1, ddof=1) / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = np.where(se > 0, mean / se, np.sign(mean) * np.inf)
    rng = np.random.default_rng(seed)
    draws = np.empty((rows, n_resamples))
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        xb = x[:, rng.integers(0, n, (stop - start, n))]  # rows x b x n
        num = xb.mean(axis=2) - mean[:, None]
        den = xb.std(axis=2, ddof=1) / np.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            tb = np.where(den > 0, num / den, np.sign(num) * np.inf)
        draws[:, start:stop] = np.nan_to_num(tb, nan=0.0, posinf=np.inf, neginf=-np.inf)
    ge = (np.count_nonzero(draws >= t_obs[:, None], axis=1) + 1) / (n_resamples + 1)
    le = (np.count_nonzero(draws <= t_obs[:, None], axis=1) + 1) / (n_resamples + 1)
    p = np.minimum(1.0, 2 * np.minimum(ge, le))
    alpha = 1 - confidence
    with np.errstate(invalid="ignore"):  # draws of +-inf (resamples of equal values)
        q_lo, q_hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=1)
        low, high = mean - q_hi * se, mean - q_lo * se
    return p, low, high, t_obs


def bootstrap_t_test(d: np.ndarray | list[float], *, n_resamples: int = DEFAULT_RESAMPLES,
                     seed: int = 0, confidence: float = 0.95) -> BootstrapTResult:
    """Bootstrap-t test that the mean of ``d`` (NaNs dropped) is 0, with its interval."""
    x = np.asarray(d, dtype=float)
    x = x[~np.isnan(x)]
    nan = float("nan")
    if x.size < 2:
        m = float(x.mean()) if x.size else nan
        return BootstrapTResult(m, nan, nan, nan, nan, int(x.size), 0)
    p, low, high, t = bootstrap_t_pvalues(x[None, :], n_resamples=n_resamples, seed=seed,
                                          confidence=confidence)
    return BootstrapTResult(float(x.mean()), float(low[0]), float(high[0]), float(p[0]),
                            float(t[0]), int(x.size), n_resamples, mean_caveat(x))
