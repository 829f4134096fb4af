"""Interval of a standardised difference of two group means (WEAT's and SEAT's d).

Estimand: the population effect size of Caliskan et al. (2017, "Materials and Methods"),
``d = (mu_X - mu_Y) / sigma_XY``, where ``sigma_XY`` is the standard deviation of the
pooled population of X and Y scores in the sample's proportions ``p = n_X / n``,
``q = n_Y / n``: ``sigma_XY^2 = sigma^2 + p q (mu_X - mu_Y)^2`` (``sigma``: the common
within-set SD). So ``d = h(delta) = delta / sqrt(1 + p q delta^2)``, ``delta = (mu_X -
mu_Y) / sigma``, and ``h`` is increasing.

Interval: the noncentral-t interval of ``delta`` (Hedges & Olkin 1985, Ch. 5; the
inversion of Steiger & Fouladi 1997): ``t = (mean_X - mean_Y) / se`` with ``nu`` degrees
of freedom follows a noncentral t with noncentrality ``lambda = delta sigma / se``; the
limits of ``lambda`` solve ``P(T >= t | lambda_lo) = P(T <= t | lambda_hi) = (1 - c) / 2``,
scaled to ``delta`` by ``se / s_w`` (``s_w``: the pooled within-set SD) and mapped through
``h``. Exact for d under normal scores with equal variances (t's exact distribution is
then that noncentral t); unlike the t interval of the difference over a fixed sample SD it
counts that the pooled SD grows with the difference. At d = 0 it contains 0 exactly when
``|t| < t_(nu)``.

``se`` is cluster-robust (CR1) over the units of each set when several values share a
unit (SEAT's sentences share their source word), and ``nu = K_X + K_Y - 2`` units.
Known limit: heavy-tailed or skewed scores (docs/calibration.md, WEAT; the alternatives
tried: docs/statistics.md); such scores give the interval a caveat
(:func:`genderscope.stats.diagnostics.effect_size_caveat`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from genderscope.stats.diagnostics import effect_size_caveat, unit_means
from genderscope.stats.intervals import CI

METHOD = "noncentral t interval"


def _cr1_var(vals: np.ndarray, labels: Sequence[object]) -> tuple[float, int]:
    """CR1 variance of the mean of ``vals`` over the units ``labels`` (one value per unit:
    s^2 / n), and the number of units."""
    import pandas as pd

    codes = pd.factorize(pd.Series(list(labels), dtype=object))[0]
    k = int(codes.max()) + 1 if codes.size else 0
    if k < 2:
        return float("nan"), k
    tot = np.bincount(codes, weights=vals)
    cnt = np.bincount(codes)
    resid = tot - vals.mean() * cnt
    return k / (k - 1) * float(np.sum(resid ** 2)) / vals.size ** 2, k


def _ncp_limit(t: float, df: int, tail: float) -> float:
    """The noncentrality ``lam`` with ``P(T <= t | lam) = tail`` (decreasing in ``lam``)."""
    from scipy import optimize, stats

    def f(lam: float) -> float:
        p = float(stats.nct.cdf(t, df, lam))
        if np.isnan(p):  # far tails: scipy's series gives NaN where the cdf is ~0 or ~1
            p = 0.0 if lam > t else 1.0
        return p - tail

    lo, hi = t - 4.0, t + 4.0
    while f(lo) < 0:
        lo -= 4.0
    while f(hi) > 0:
        hi += 4.0
    return float(optimize.brentq(f, lo, hi, xtol=1e-10))


def standardized_difference_ci(sx: np.ndarray | Sequence[float],
                               sy: np.ndarray | Sequence[float],
                               units_x: Sequence[object] | None = None,
                               units_y: Sequence[object] | None = None, *,
                               estimate: float | None = None, confidence: float = 0.95,
                               unit: str = "words") -> CI:
    """The noncentral-t interval of Caliskan's d (module docstring) over the X and Y
    scores ``sx``, ``sy``; ``units_x``/``units_y`` label the unit of each value (None:
    every value its own unit). ``estimate``: the point estimate to report (default: d with
    the sample SD of X u Y, ddof = 1). NaN limits when a set has fewer than 2 units or
    the scores do not vary within the sets. ``caveat``: when the units' mean scores are
    skewed or heavy-tailed (module docstring)."""
    from genderscope.stats.permutation import effect_size

    x = np.asarray(sx, dtype=float).reshape(-1)
    y = np.asarray(sy, dtype=float).reshape(-1)
    d = float(effect_size(x, y)) if estimate is None else float(estimate)
    ux = list(units_x) if units_x is not None else list(range(x.size))
    uy = list(units_y) if units_y is not None else list(range(y.size))
    vx, kx = _cr1_var(x, ux) if x.size else (float("nan"), 0)
    vy, ky = _cr1_var(y, uy) if y.size else (float("nan"), 0)
    n = int(x.size + y.size)
    nan = CI(d, float("nan"), float("nan"), confidence, n, METHOD, unit, kx + ky)
    if kx < 2 or ky < 2:
        return nan
    se = float(np.sqrt(vx + vy))
    sw2 = (float(np.sum((x - x.mean()) ** 2)) + float(np.sum((y - y.mean()) ** 2))) / (n - 2)
    if not (se > 0 and sw2 > 0):
        return nan
    df = kx + ky - 2
    t = float(x.mean() - y.mean()) / se
    tail = (1 - confidence) / 2
    scale = se / float(np.sqrt(sw2))
    pq = x.size * y.size / n ** 2
    lo, hi = (scale * _ncp_limit(t, df, q) for q in (1 - tail, tail))
    caveat = effect_size_caveat(unit_means(x, ux), unit_means(y, uy), unit)
    return CI(d, lo / np.sqrt(1 + pq * lo ** 2), hi / np.sqrt(1 + pq * hi ** 2), confidence,
              n, METHOD, unit, kx + ky, caveat)
