"""Confidence intervals: bootstrap (scipy.stats.bootstrap) and Wilson for proportions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_RESAMPLES = 10_000


@dataclass(frozen=True)
class CI:
    """A point estimate with a two-sided confidence interval."""

    estimate: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    n: int = 0
    method: str = "percentile bootstrap"
    ci_unit: str | None = None
    """What the bootstrap resampled (e.g. "professions", "words"); None when not stated."""
    n_units: int | None = None
    """How many of those units there were (clusters), when they differ from ``n``."""
    caveat: str | None = None
    """One line when the values look like a design outside the interval's calibrated
    range (:mod:`genderscope.stats.diagnostics`); None (and left out of ``as_dict``)
    otherwise."""
    no_interval: str | None = None
    """Why ``ci_low`` and ``ci_high`` are NaN though the estimate is not (:func:`no_spread`):
    None (and left out of ``as_dict``) when there is an interval."""

    def as_dict(self) -> dict[str, float | int | str]:
        return fields_set(self, ("ci_unit", "n_units", "caveat", "no_interval"))

    def spans(self, value: float = 0.0) -> bool:
        """True when ``value`` lies inside the interval (no evidence of a difference)."""
        return self.ci_low <= value <= self.ci_high

    def __str__(self) -> str:
        return f"{self.estimate:.3f} [{self.ci_low:.3f}, {self.ci_high:.3f}]"


def fields_set(record: object, optional: tuple[str, ...] = ("caveat",)) -> dict[str, Any]:
    """A dataclass of scalar fields as a dict, in field order, each ``optional`` field only
    when it is not None. vars(), not asdict(): the same for scalar fields, without its
    recursive copy (a metric's estimate-only call makes a few of these)."""
    return {k: v for k, v in vars(record).items() if v is not None or k not in optional}


def no_spread(n: int, unit: str | None) -> str:
    """Why a mean (or another statistic) of ``n`` units that all give the same value has no
    interval: the units show no variation, so a bootstrap, jackknife or t interval over them
    is the point [x, x], which the data cannot establish (the next unit may differ; a
    share of 0 or 1 takes Wilson's interval instead, never a point)."""
    what = unit or "units"
    if n < 2:
        return f"{'one unit' if n == 1 else 'no units'} ({what}): interval undefined"
    return f"no spread over {n} {what}: interval undefined"


def undefined_ci(est: float, confidence: float, n: int, method: str, unit: str | None,
               n_units: int | None = None) -> CI:
    """The estimate with NaN bounds and :func:`no_spread` saying why."""
    nan = float("nan")
    return CI(est, nan, nan, confidence, n, method, unit, n_units,
              no_interval=no_spread(n if n_units is None else n_units, unit))


def bootstrap_ci(
    data: np.ndarray | list[float],
    statistic: Callable[..., np.ndarray] = np.mean,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    method: str = "percentile",
    unit: str | None = None,
) -> CI:
    """Bootstrap CI of ``statistic`` (vectorised, taking ``axis``) over a 1-D sample, NaNs
    dropped: percentile by default (robust for medians), ``method="BCa"`` bias-corrected.
    Degenerate samples (n < 2 or all values equal) have no interval: NaN bounds and
    ``no_interval`` (:func:`no_spread`), never the estimate as both bounds.
    ``unit``: the resampled unit (e.g. "texts"), stored as ``ci_unit``."""
    from scipy import stats  # imported on use: a cached rerun needs none

    x = np.asarray(data, dtype=float)
    x = x[~np.isnan(x)]
    name = f"{method} bootstrap"  # the same name whether or not there was anything to resample
    if x.size == 0:
        nan = float("nan")
        return CI(nan, nan, nan, confidence, 0, name, unit)
    est = float(statistic(x, axis=-1))
    if x.size < 2 or np.all(x == x[0]):
        return undefined_ci(est, confidence, int(x.size), name, unit)
    res = stats.bootstrap((x,), statistic, confidence_level=confidence, n_resamples=n_resamples,
                          method=method, rng=np.random.default_rng(seed), vectorized=True)
    lo, hi = res.confidence_interval
    return CI(est, float(lo), float(hi), confidence, int(x.size), name, unit)


def t_mean_ci(data: np.ndarray | list[float], *, confidence: float = 0.95,
              unit: str | None = None, bounds: tuple[float, float] | None = None) -> CI:
    """Student-t CI of a mean over a small set of independent units (NaNs dropped).

    mean ± t(n−1) · s/√n, from ``scipy.stats.ttest_1samp(...).confidence_interval``.
    Use it where few units vary (e.g. 8 attribute-word means): there a percentile
    bootstrap is too narrow (docs/calibration.md, "LPBS set mean"; docs/statistics.md).
    One unit, or units all equal, have no interval (NaN bounds, ``no_interval``).
    ``bounds``: the range the mean cannot leave (a percentage: (0, 100)); each end is
    clipped to it. The true mean lies in that range, so clipping never removes it: the
    coverage is the t interval's, and no end reads past a value the mean cannot take.
    """
    from scipy import stats  # imported on use: a cached rerun needs none

    x = np.asarray(data, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        nan = float("nan")
        return CI(nan, nan, nan, confidence, 0, "t interval", unit)
    est = float(x.mean())
    # values equal up to rounding (a spread within a few ulps of their size) have no
    # variance to build a t interval from (scipy would warn of catastrophic cancellation),
    # and [x, x] would claim what the data cannot establish: no interval
    if x.size < 2 or np.ptp(x) <= 20 * np.finfo(float).eps * max(np.abs(x).max(), 1e-300):
        return undefined_ci(est, confidence, int(x.size), "t interval", unit)
    lo, hi = stats.ttest_1samp(x, 0.0).confidence_interval(confidence_level=confidence)
    if bounds is not None:
        lo, hi = max(float(lo), bounds[0]), min(float(hi), bounds[1])
    return CI(est, float(lo), float(hi), confidence, int(x.size), "t interval", unit)


def t_from_ci(ci: CI, df: float, null: float = 0.0) -> float:
    """``(estimate - null) / SE``, the SE read off ``ci`` as a t(df) interval: its width
    over twice the t quantile."""
    from scipy import stats  # imported on use: a cached rerun needs none

    q = float(stats.t.ppf(0.5 + ci.confidence / 2, df))
    return (ci.estimate - null) / ((ci.ci_high - ci.ci_low) / (2 * q))


def t_test_p(ci: CI, df: float, null: float) -> float:
    """Two-sided p of :func:`t_from_ci` against t(df)."""
    from scipy import stats

    return float(2 * stats.t.sf(abs(t_from_ci(ci, df, null)), df))


def proportion_ci(successes: int, n: int, *, confidence: float = 0.95) -> CI:
    """Proportion ``successes / n`` with a Wilson score interval."""
    from scipy import stats  # imported on use: a cached rerun needs none

    if n == 0:
        nan = float("nan")
        return CI(nan, nan, nan, confidence, 0, "wilson")
    ci = stats.binomtest(int(successes), int(n)).proportion_ci(confidence_level=confidence,
                                                               method="wilson")
    return CI(successes / n, float(ci.low), float(ci.high), confidence, int(n), "wilson")
