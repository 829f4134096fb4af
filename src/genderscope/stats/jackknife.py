"""The infinitesimal jackknife over several independent samples: interval and test of a
statistic of all of them (issue 36, row 2).

A statistic computed from K independent samples (the target words X and Y, the attribute
words A and B, RIPA's word pairs: every word's vector carries its own noise) varies with
each of them. Its variance is the sum of the variances each sample contributes, each
estimated from the statistic's derivative with respect to the weight of each of the
sample's units (the infinitesimal jackknife, i.e. the delta method with the empirical
influence function; Jaeckel 1972; Efron 1982, "The Jackknife, the Bootstrap and Other
Resampling Plans", SIAM, Ch. 6; for several samples the variances add, Arvesen 1969,
"Jackknifing U-statistics", Ann. Math. Stat. 40(6), Sec. 3):

    V = sum_k V_k,   V_k = n_k / (n_k - 1) * sum_i (d theta / d w_(k, i))^2

with w_(k, i) the weight of unit i of sample k (every weight 1 at the estimate, and the
statistic unchanged when a sample's weights are scaled together). For the mean of one
sample V is s^2 / n exactly (the factor n_k / (n_k - 1)), so the interval below is then
Student's t interval. The interval is ``estimate +- t(df) sqrt(V)``, df by Satterthwaite
(1946) over the samples, df = V^2 / sum_k V_k^2 / (n_k - 1) (Welch's df for two sample
means); without a pairing the test of ``null`` is its t statistic, not run ("too few
units to test", p NaN) when df < 5, the t interval's counterpart of fewer than 6 units
(:data:`genderscope.stats.design.MIN_UNITS_TO_TEST`).

The test: where the design is ``paired`` (each unit measured twice, before and after, and
exchangeable between the two under no change: a word's two vectors are the same vector
plus independent noise), the swap test (:func:`swap_test`): each unit's two measurements
swapped with probability 1/2, ``n_swaps`` times, the statistic recomputed; two-sided p =
(1 + #|T*| >= |T|) / (1 + n_swaps), exact under that null whatever the statistic (Fisher
1935's sign flip, for a linear statistic exactly). The jackknife variance counts a
product of two of a sample's deviations twice (the base words' spread times their
noise: Efron & Stein 1981), so where it dominates (RND's and ECT's centroids) the t test
of the interval rejects too seldom (0.008-0.016 of no-change runs); the swap test is
sized there, and the interval is a known limit (docs/calibration.md).

Resampling one sample only (holding the words the values share fixed) leaves out the
variance the others contribute: the before/after comparison of debiased word vectors that
treated per-word values as independent "found" a change between two noisy copies of the
same vectors in 0.09-0.35 of runs (docs/calibration.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from genderscope.core.design import Design
from genderscope.stats.design import MIN_UNITS_TO_TEST, TOO_FEW, Inference, MeanTest
from genderscope.stats.intervals import CI

METHOD = "several-sample infinitesimal jackknife t"
TEST = "jackknife t test of the mean"
SWAP_TEST = "swap test (before/after exchanged per word)"
DEFAULT_SWAPS = 999
SwapStatistic = Callable[[np.ndarray], np.ndarray]
"""(B, n_units) bool masks (True: that unit's two measurements swapped) -> (B, k): the
statistics (one or several) recomputed under each."""


def swap_test(statistic: SwapStatistic, n_units: int, *, n_swaps: int = DEFAULT_SWAPS,
              seed: int = 0, chunk: int = 200) -> np.ndarray:
    """Two-sided p of each of ``statistic``'s k values (module docstring): ``n_swaps``
    random swaps of the units' two measurements (``chunk`` at a time), the observed value
    counted as one of them."""
    observed = np.abs(np.asarray(statistic(np.zeros((1, n_units), dtype=bool)),
                                 dtype=float))[0]
    rng = np.random.default_rng(seed)
    hits = np.zeros_like(observed)
    tol = 1e-12 * np.maximum(1.0, observed)
    for lo in range(0, n_swaps, chunk):
        masks = rng.random((min(chunk, n_swaps - lo), n_units)) < 0.5
        t = np.abs(np.asarray(statistic(masks), dtype=float))
        hits += np.sum(t >= observed - tol, axis=0)
    return (1.0 + hits) / (1.0 + n_swaps)


@dataclass(frozen=True)
class JackknifeVariance:
    """The variance of a statistic over several samples, its Satterthwaite df, each
    sample's share and size."""

    variance: float
    df: float
    by_sample: dict[str, float]
    sizes: dict[str, int]


def jackknife_variance(derivatives: Mapping[str, np.ndarray]) -> JackknifeVariance:
    """V and df (module docstring) from each sample's derivatives of the statistic with
    respect to its units' weights (``derivatives[name][i]``). A sample of one unit
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
        v = float(g.size / (g.size - 1) * np.sum(g * g))
        by[name] = v
        den += v * v / (g.size - 1)
    total = float(sum(by.values()))
    df = total * total / den if den > 0 else float("nan")
    return JackknifeVariance(total, df, by, sizes)


def jackknife_ci(estimate: float, derivatives: Mapping[str, np.ndarray], *,
                 confidence: float = 0.95, unit: str = "words") -> tuple[CI, float]:
    """(the t interval of ``estimate``, its df) from ``derivatives`` (as
    :func:`jackknife_variance` takes them); NaN bounds when no sample varies."""
    from scipy import stats  # imported on use: a cached rerun needs none

    jv = jackknife_variance(derivatives)
    n = int(sum(jv.sizes.values()))
    nan = float("nan")
    if not jv.variance > 0 or not np.isfinite(jv.df):
        return CI(float(estimate), nan, nan, confidence, n, METHOD, unit, n), nan
    half = float(stats.t.ppf(0.5 + confidence / 2, jv.df)) * float(np.sqrt(jv.variance))
    return CI(float(estimate), float(estimate) - half, float(estimate) + half, confidence,
              n, METHOD, unit, n), jv.df


def t_test_p(ci: CI, df: float, null: float) -> float:
    """Two-sided p of ``(estimate - null) / SE`` against t(df), SE read off ``ci``."""
    from scipy import stats

    q = float(stats.t.ppf(0.5 + ci.confidence / 2, df))
    se = (ci.ci_high - ci.ci_low) / (2 * q)
    return float(2 * stats.t.sf(abs((ci.estimate - null) / se), df))


def infer_samples(design: Design, estimate: float, derivatives: Mapping[str, np.ndarray],
                  *, null: float | None = None, confidence: float = 0.95,
                  swap_p: float | None = None) -> Inference:
    """The interval (and test) of a ``mean`` whose ``design`` is crossed: its units
    (``design.unit``) share the levels of the ``design.crossed`` factors, each an
    independent sample. ``derivatives``: the statistic's derivative with respect to the
    weight of each unit of each sample, one array per sample (the units' own sets and
    every crossed factor's; names free, e.g. ``"X"``, ``"A"``). The several-sample
    jackknife t interval (module docstring) and, given ``null``: for a ``paired`` design
    the swap test, whose p (:func:`swap_test`, of the statistic less ``null``) the caller
    gives as ``swap_p``; else the interval's t test ("too few units to test" below 5
    degrees of freedom)."""
    if design.estimand != "mean" or not design.crossed:
        raise ValueError(f"design {design.describe()!r}: infer_samples takes a crossed "
                         "mean (declare crossed=...)")
    if len(derivatives) < 2:
        raise ValueError(f"design {design.describe()!r}: derivatives for the units and "
                         "every crossed sample are required")
    ci, df = jackknife_ci(estimate, derivatives, confidence=confidence, unit=_unit(design))
    if null is None:
        return Inference(ci)
    nan = float("nan")
    n = int(ci.n_units or 0)
    if design.paired is not None:
        if swap_p is None:
            raise ValueError(f"design {design.describe()!r}: a paired design is tested by "
                             "the swap test; give its swap_p")
        if n < MIN_UNITS_TO_TEST:
            return Inference(ci, MeanTest(TOO_FEW, nan, n))
        return Inference(ci, MeanTest(SWAP_TEST, float(swap_p), n))
    if not np.isfinite(df):
        return Inference(ci, MeanTest("none (every value the same)", nan, n))
    if df < MIN_UNITS_TO_TEST - 1:
        return Inference(ci, MeanTest(TOO_FEW, nan, n))
    return Inference(ci, MeanTest(TEST, t_test_p(ci, df, null), n))


def _unit(design: Design) -> str:
    """``target words x attribute words``: what the interval resamples."""
    return " x ".join((design.unit, *design.crossed))
