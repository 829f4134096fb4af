"""Caveats: a one-line warning when an interval or test was computed from unit values that
look like a design where docs/calibration.md measured it outside its bar ("known limit").

Two known limits are flagged: the bootstrap-t test and interval of a mean
(:mod:`genderscope.stats.bootstrap_t`) over strongly skewed units, and the noncentral-t
interval of WEAT's and SEAT's d (:mod:`genderscope.stats.standardized`) over heavy-tailed
or skewed scores.

The diagnostics are the sample skewness G1 and excess kurtosis G2, the adjusted
Fisher-Pearson estimators (Joanes & Gill 1998, "Comparing measures of sample skewness and
kurtosis", The Statistician 47(1), Eq. 2 and 4: ``scipy.stats.skew(x, bias=False)`` and
``scipy.stats.kurtosis(x, bias=False)``); the thresholds, chosen by
``python benchmarks/caveat_thresholds.py``, and how often they fire: docs/report.md,
"Caveats". A caveat flags the data, never a corrected p-value: few units rarely show how
skewed their population is, so it says "outside the calibrated range" (docs/statistics.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SKEW_LIMIT = 1.5
"""|G1| above which a mean's units read as strongly skewed (from 10 units)."""
SKEW_LIMIT_FEW = 2.0
"""The same below 10 units, where G1 of normal units varies more."""
FEW = 10
MAX_UNITS = 60
"""The largest number of units the calibration found outside the bar (docs/calibration.md);
no caveat above it."""
D_SKEW_LIMIT = 1.5
"""|G1| of d's within-set residuals above which its scores read as skewed."""
D_KURTOSIS_LIMIT = 3.0
"""G2 of d's within-set residuals above which its scores read as heavy-tailed."""

MEAN_LIMIT = ("bootstrap-t with skewness 6 at 10-60 units: false-positive rate "
              "0.070-0.091, coverage 0.903-0.924")
"""The known limit a mean's caveat cites (docs/calibration.md, 'paired test: bootstrap-t'
rows, centred lognormal effects)."""
D_LIMIT = "coverage 0.797-0.898 with t(3) or lognormal scores"
"""The known limit d's caveat cites (docs/calibration.md, 'WEAT d CI: noncentral t')."""


def skewness(values: np.ndarray | Sequence[float]) -> float:
    """Adjusted sample skewness G1 = g1 sqrt(n (n - 1)) / (n - 2), g1 = m3 / m2^1.5
    (``scipy.stats.skew(bias=False)``; NaNs dropped; NaN under 3 values or with no
    spread)."""
    return _adjusted(values, 3, "skew")


def excess_kurtosis(values: np.ndarray | Sequence[float]) -> float:
    """Adjusted sample excess kurtosis G2 = ((n + 1) g2 + 6) (n - 1) / ((n - 2) (n - 3)),
    g2 = m4 / m2^2 - 3 (``scipy.stats.kurtosis(bias=False)``; NaNs dropped; NaN under 4
    values or with no spread)."""
    return _adjusted(values, 4, "kurtosis")


def _adjusted(values: np.ndarray | Sequence[float], least: int, name: str) -> float:
    from scipy import stats  # imported on use: a cached rerun needs none

    x = _finite(values)
    if x.size < least or not np.ptp(x) > 0:
        return float("nan")
    return float(getattr(stats, name)(x, bias=False))


def mean_caveat(values: np.ndarray | Sequence[float], unit: str = "units", *,
                sizes: tuple[int, int] = (6, MAX_UNITS), limit: str = MEAN_LIMIT,
                risk: str = "the p-value can be too small and the interval too narrow"
                ) -> str | None:
    """The caveat of a bootstrap-t p-value and interval of the mean of ``values`` (one per
    unit), or None: it fires when 6 to :data:`MAX_UNITS` units have |G1| above
    :data:`SKEW_LIMIT` (:data:`SKEW_LIMIT_FEW` under 10 units). Another bootstrap-t with
    its own known limit (the report's over clusters) passes the numbers of units where
    the calibration found it (``sizes``, inclusive), that limit's figures (``limit``) and
    what of it the limit concerns (``risk``)."""
    x = _finite(values)
    n = int(x.size)
    g = skewness(x)
    if not (max(6, sizes[0]) <= n <= sizes[1] and np.isfinite(g)):
        return None
    if abs(g) <= (SKEW_LIMIT_FEW if n < FEW else SKEW_LIMIT):
        return None
    return (f"{unit} strongly skewed (skewness {g:.1f}, {n} {unit}): outside the calibrated "
            f"range; for units this skewed {risk} ({limit} in docs/calibration.md)")


def effect_size_caveat(x: np.ndarray | Sequence[float], y: np.ndarray | Sequence[float],
                       unit: str = "words") -> str | None:
    """The caveat of the noncentral-t interval of d over the X and Y scores (one per unit),
    or None: it fires when the scores less their set's mean, pooled, have |G1| above
    :data:`D_SKEW_LIMIT` or G2 above :data:`D_KURTOSIS_LIMIT`."""
    a, b = _finite(x), _finite(y)
    if a.size < 2 or b.size < 2:
        return None
    r = np.concatenate([a - a.mean(), b - b.mean()])
    g1, g2 = skewness(r), excess_kurtosis(r)
    if not ((np.isfinite(g1) and abs(g1) > D_SKEW_LIMIT)
            or (np.isfinite(g2) and g2 > D_KURTOSIS_LIMIT)):
        return None
    return (f"scores heavy-tailed or skewed (skewness {g1:.1f}, excess kurtosis {g2:.1f}, "
            f"{a.size} + {b.size} {unit}): outside the calibrated range; for such scores the "
            f"interval of d can be too narrow ({D_LIMIT} in docs/calibration.md)")


def unit_means(values: np.ndarray | Sequence[float],
               units: Sequence[object] | np.ndarray) -> np.ndarray:
    """The mean of ``values`` within each unit label (in order of first appearance): the
    values an interval over clustered units is computed from."""
    import pandas as pd

    v = np.asarray(values, dtype=float).reshape(-1)
    codes, _ = pd.factorize(pd.Series(list(units), dtype=object))
    if not codes.size:
        return v[:0]
    return np.bincount(codes, weights=v) / np.bincount(codes)


def _finite(values: np.ndarray | Sequence[float]) -> np.ndarray:
    x = np.asarray(values, dtype=float).reshape(-1)
    return x[np.isfinite(x)]
