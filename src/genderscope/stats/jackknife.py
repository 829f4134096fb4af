"""The infinitesimal jackknife over several independent samples: interval and test of a
statistic of all of them.

A statistic of K independent samples (target words X and Y, attribute words A and B,
RIPA's word pairs: every word's vector carries its own noise) has variance the sum of
what each sample contributes, each estimated from the statistic's derivative with
respect to the weight of each of the sample's units (the infinitesimal jackknife: the
delta method with the empirical influence function; Jaeckel 1972; Efron 1982, "The
Jackknife, the Bootstrap and Other Resampling Plans", SIAM, Ch. 6; for several samples
the variances add, Arvesen 1969, "Jackknifing U-statistics", Ann. Math. Stat. 40(6),
Sec. 3):

    V = sum_k V_k,   V_k = n_k / (n_k - 1) * sum_i (d theta / d w_(k, i))^2

with w_(k, i) the weight of unit i of sample k (every weight 1 at the estimate; the
statistic unchanged when a sample's weights scale together). For the mean of one sample
V is s^2 / n, so the interval is then Student's t. The interval is
``estimate +- t(df) sqrt(V)``, df Satterthwaite's (1946), df = V^2 / sum_k V_k^2 /
(n_k - 1) (Welch's for two means). Below 5 df no test is run ("too few units to test",
p NaN: the counterpart of :data:`genderscope.stats.design.MIN_UNITS_TO_TEST`).

The test of no change is the same t statistic with the variance under that null (a score
test; the interval is the Wald one), V_0 = sum_k n_k / (n_k - 1) sum_u (T_u - mean_k T)^2,
from each unit's own contribution T_u: the change with only u moved from before to
after, every other unit at the midpoint of its two measurements (a central difference).
Under no change a derivative's square also carries a second-order noise term (Efron &
Stein 1981) that V_0 does not. Away from no change the interval keeps the derivatives,
less the noise their squares carry (``corrections``; Goodman 1960, "On the exact
variance of products", JASA 55(292)), each sample's share kept at least its share under
no change (``floor``); :func:`genderscope.stats.change_interval.infer_change` floors the
total once instead. Why this design: docs/statistics.md, "Several samples of words".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from genderscope.core.design import Design
from genderscope.stats.design import MIN_UNITS_TO_TEST, TOO_FEW, Inference, MeanTest
from genderscope.stats.intervals import CI, t_test_p
from genderscope.stats.resample import wilson_bounds

METHOD = "several-sample infinitesimal jackknife t"
TEST = "t test of no change (jackknife, several samples)"


@dataclass(frozen=True)
class JackknifeVariance:
    """The variance of a statistic over several samples, its Satterthwaite df, each
    sample's share and size."""

    variance: float
    df: float
    by_sample: dict[str, float]
    sizes: dict[str, int]


def jackknife_variance(derivatives: Mapping[str, np.ndarray],
                       corrections: Mapping[str, np.ndarray] | None = None,
                       floor: Mapping[str, np.ndarray] | None = None,
                       interaction: tuple[float, float] | None = None) -> JackknifeVariance:
    """V and df (module docstring) from each sample's derivatives of the statistic with
    respect to its units' weights (``derivatives[name][i]``). ``corrections``: per unit,
    what noise adds to its derivative's square (subtracted); ``floor``: per unit, a
    centred influence whose variance each sample's V_k is kept at or above.
    ``interaction``: (V_e, its df), a variance both samples count once too many
    (:func:`two_way`), subtracted once from V and counted as its own term of
    Satterthwaite's df (V^2 / sum_k V_k^2 / df_k over every term, the subtracted one
    included; Satterthwaite 1946, eq. 4); V is floored at 0. A sample of one unit
    contributes nothing it could estimate: it is skipped."""
    by: dict[str, float] = {}
    sizes: dict[str, int] = {}
    den = 0.0
    for name, d in derivatives.items():
        g = np.asarray(d, dtype=float).reshape(-1)
        sizes[name] = int(g.size)
        if g.size < 2 or not np.all(np.isfinite(g)):
            by[name] = 0.0 if g.size < 2 else float("nan")
            continue
        sq = g * g
        if corrections is not None:
            sq = sq - np.asarray(corrections[name], dtype=float).reshape(-1)
        v = float(g.size / (g.size - 1) * np.sum(sq))
        if floor is not None:
            f = np.asarray(floor[name], dtype=float).reshape(-1)
            v = max(v, float(g.size / (g.size - 1) * np.sum(f * f)))
        v = max(v, 0.0)
        by[name] = v
        den += v * v / (g.size - 1)
    total = float(sum(by.values()))
    if interaction is not None and interaction[1] > 0:
        total = max(total - interaction[0], 0.0)
        den += interaction[0] ** 2 / interaction[1]
    df = total * total / den if den > 0 else float("nan")
    return JackknifeVariance(total, df, by, sizes)


def jackknife_ci(estimate: float, derivatives: Mapping[str, np.ndarray], *,
                 confidence: float = 0.95, unit: str = "words",
                 corrections: Mapping[str, np.ndarray] | None = None,
                 floor: Mapping[str, np.ndarray] | None = None,
                 interaction: tuple[float, float] | None = None) -> tuple[CI, float]:
    """(the t interval of ``estimate``, its df) from ``derivatives`` (as
    :func:`jackknife_variance` takes them). When no unit moves the statistic (every
    derivative 0) the interval is the estimate itself and df NaN; NaN bounds when a
    derivative is not finite."""
    jv = jackknife_variance(derivatives, corrections, floor, interaction)
    return variance_ci(estimate, jv, confidence=confidence, unit=unit)


def variance_ci(estimate: float, jv: JackknifeVariance, *, confidence: float = 0.95,
                unit: str = "words") -> tuple[CI, float]:
    """:func:`jackknife_ci` from a variance already computed (:func:`jackknife_variance`)."""
    from scipy import stats  # imported on use: a cached rerun needs none

    n = int(sum(jv.sizes.values()))
    nan = float("nan")
    if jv.variance == 0.0:
        return CI(float(estimate), float(estimate), float(estimate), confidence, n, METHOD,
                  unit, n), nan
    if not jv.variance > 0 or not np.isfinite(jv.df):
        return CI(float(estimate), nan, nan, confidence, n, METHOD, unit, n), nan
    half = float(stats.t.ppf(0.5 + confidence / 2, jv.df)) * float(np.sqrt(jv.variance))
    return CI(float(estimate), float(estimate) - half, float(estimate) + half, confidence,
              n, METHOD, unit, n), jv.df


def infer_samples(design: Design, estimate: float, derivatives: Mapping[str, np.ndarray],
                  *, null: float | None = None, null_influence: Mapping[str, np.ndarray]
                  | None = None, corrections: Mapping[str, np.ndarray] | None = None,
                  interaction: tuple[float, float] | None = None,
                  confidence: float = 0.95) -> Inference:
    """The interval (and test) of a ``mean`` whose ``design`` is crossed: its units
    (``design.unit``) share the levels of the ``design.crossed`` factors, each an
    independent sample (module docstring). ``derivatives``: one array per sample (names
    free, e.g. ``"X"``, ``"A"``), as :func:`jackknife_variance` takes them, with
    ``corrections`` and ``interaction``. Given ``null``, its t test, with the variance under
    no change when ``null_influence`` gives each unit's own contribution centred within its
    sample (each sample's interval variance then kept at least that one), else the
    interval's."""
    unit = crossed_unit(design, derivatives)
    ci, df = jackknife_ci(estimate, derivatives, confidence=confidence, unit=unit,
                          corrections=corrections, floor=null_influence,
                          interaction=interaction)
    if null is None:
        return Inference(ci)
    base, df0 = (ci, df) if null_influence is None else jackknife_ci(
        estimate, null_influence, confidence=confidence, unit=unit)
    return Inference(ci, null_t_test(base, df0, null, int(ci.n_units or 0)))


def null_t_test(base: CI, df: float, null: float, n: int) -> MeanTest:
    """The t test of ``null`` with the variance of ``base`` (a :func:`variance_ci`) and its
    ``df``, over ``n`` units: "too few units to test" below 5 degrees of freedom."""
    nan = float("nan")
    if not np.isfinite(df):
        return MeanTest("none (every value the same)", nan, n)
    if df < MIN_UNITS_TO_TEST - 1:
        return MeanTest(TOO_FEW, nan, n)
    return MeanTest(TEST, t_test_p(base, df, null), n)


def crossed_unit(design: Design, derivatives: Mapping[str, np.ndarray]) -> str:
    """``design``'s unit in words (:func:`_unit`), after checking that it is a crossed mean
    and that ``derivatives`` has the units' sample and a crossed one (ValueError)."""
    if design.estimand != "mean" or not design.crossed:
        raise ValueError(f"design {design.describe()!r}: an interval over several samples "
                         "takes a crossed mean (declare crossed=...)")
    if len(derivatives) < 2:
        raise ValueError(f"design {design.describe()!r}: derivatives for the units and "
                         "every crossed sample are required")
    return _unit(design)


def two_way(cell_derivatives: np.ndarray, rows: np.ndarray, cols: np.ndarray
            ) -> tuple[dict[str, np.ndarray], tuple[float, float]]:
    """A statistic of a rows x cols crossed layout (items x templates), from its
    derivative d_rc with respect to each cell's weight: (the derivatives with respect
    to each row's and each column's weight, the sums of their cells' d_rc, as
    ``{"rows": ..., "cols": ...}``; (V_e, df_e)). V_e = R C / df_e sum e_rc^2, e the
    two-way residual of d (d less its row and column means, plus the grand mean),
    df_e = cells - R - C + 1 ((R - 1)(C - 1) on a full grid): the interaction (cell)
    variance that the row and the column variances each include, to be subtracted once
    (Cornfield & Tukey 1956's V = s_r^2 / C' + s_c^2 / R' - s_e^2 / (R C) for a mean of a
    full grid). ``rows`` and ``cols``: each cell's level, 0-based integers."""
    d = np.asarray(cell_derivatives, dtype=float).reshape(-1)
    r = np.asarray(rows, dtype=int).reshape(-1)
    c = np.asarray(cols, dtype=int).reshape(-1)
    n_r, n_c = int(r.max()) + 1, int(c.max()) + 1
    by_r, by_c = np.bincount(r, d, n_r), np.bincount(c, d, n_c)
    e = d - (by_r / np.bincount(r, minlength=n_r))[r] - (by_c / np.bincount(c, minlength=n_c))[c] \
        + d.mean()
    df_e = d.size - n_r - n_c + 1
    v_e = n_r * n_c / df_e * float(np.sum(e * e)) if df_e > 0 else 0.0
    return {"rows": by_r, "cols": by_c}, (v_e, float(max(df_e, 0)))


SHARE_METHOD = "crossed design-effect Wilson"


def infer_share(design: Design, hits: np.ndarray, answers: np.ndarray, rows: np.ndarray,
                cols: np.ndarray, *, confidence: float = 0.95) -> Inference:
    """The interval of a ``proportion`` whose ``design`` is crossed: the share
    p = sum_c h_c / N of answers counted, N = sum_c n_c, over the cells c of a rows x cols
    layout (items x templates), h_c of a cell's n_c answers counted; ``rows`` and ``cols``
    each cell's level, 0-based integers. No test.

    The interval of :func:`genderscope.stats.resample.cluster_proportion_ci` carried over
    to a crossed design: Wilson's score interval (Wilson 1927, JASA 22(158);
    :func:`genderscope.stats.resample.wilson_bounds`) at Kish's effective sample size
    n* = p (1 - p) / V, V the crossed design's variance of p (:func:`two_way` and
    :func:`jackknife_variance` from each cell's derivative (h_c - p n_c) / N, the cell
    interaction subtracted once), with the t(df) quantile, df Satterthwaite's (Korn &
    Graubard 1998). V is kept at least the answers' binomial variance p (1 - p) / N; where
    that is the larger, the interval is Wilson's of N answers with the normal quantile.
    When p is 0 or 1 it is Wilson's at N with the t quantile of the factor with fewer
    levels (its levels - 1 df), so never [0, 0]. Wilson's limits keep rare shares'
    coverage where a Wald interval collapses or reaches below 0 (Agresti & Coull 1998,
    Am. Stat. 52(2); Brown, Cai & DasGupta 2001, Stat. Sci. 16(2)). Calibrated in
    tests/measures/test_amplification_lm.py (docs/calibration.md)."""
    from scipy import stats  # imported on use: a cached rerun needs none

    if design.estimand != "proportion" or len(design.crossed) != 1:
        raise ValueError(f"design {design.describe()!r}: infer_share takes a proportion "
                         "crossed with one factor (declare crossed=(...,))")
    h = np.asarray(hits, dtype=float).reshape(-1)
    n = np.asarray(answers, dtype=float).reshape(-1)
    r = np.asarray(rows, dtype=int).reshape(-1)
    c = np.asarray(cols, dtype=int).reshape(-1)
    unit, cells, total = _unit(design), int(h.size), float(n.sum())
    if not total > 0:
        nan = float("nan")
        return Inference(CI(nan, nan, nan, confidence, 0, SHARE_METHOD, unit, cells))
    p = float(h.sum() / total)
    binomial = p * (1 - p) / total
    if binomial == 0.0:  # p is 0 or 1
        levels = [k - 1 for k in (np.unique(r).size, np.unique(c).size) if k > 1]
        m, df = total, float(min(levels)) if levels else float("inf")
    else:
        by, interaction = two_way((h - p * n) / total, r, c)
        jv = jackknife_variance({design.unit: by["rows"], design.crossed[0]: by["cols"]},
                                interaction=interaction)
        if jv.variance > binomial and np.isfinite(jv.df):
            m, df = p * (1 - p) / jv.variance, jv.df
        else:
            m, df = total, float("inf")
    q = float(stats.t.ppf(0.5 + confidence / 2, df))
    low, high = wilson_bounds(p, m, q)
    return Inference(CI(p, low, high, confidence, int(total), SHARE_METHOD, unit, cells))


def _unit(design: Design) -> str:
    """``target words x attribute words``: what the interval resamples."""
    return " x ".join((design.unit, *design.crossed))
