"""Paired two-condition tests over independent units (e.g. professions, items).

The default test is of the **mean** difference, the quantity every estimate and CI
beside it is about, studentised: the equal-tailed bootstrap-t test
(:mod:`genderscope.stats.bootstrap_t`), which keeps its size when the differences are
skewed (the null is a mean of 0, not a symmetric distribution). ``method="mean"`` is the
sign-flip test (:mod:`genderscope.stats.signflip`, exact up to 24 units), exact where the
differences are symmetric under the null (two exchangeable conditions); ``method="rank"``
the Wilcoxon signed-rank test with its own estimate, the Hodges-Lehmann pseudo-median
(only when asked for: it tests the pseudo-median, not the mean; Bartl et al. 2020, Sec. 4,
let a Shapiro-Wilk test choose it or the paired t-test: docs/measures/bec_pro.md).
With 5 or fewer units no test is run: ``test`` is "too few units to test" and ``p_value``
NaN (the sign flip's and the signed-rank test's smallest two-sided p there is 1/16). The
bootstrap-t test carries the one-line ``caveat`` of
:func:`genderscope.stats.diagnostics.mean_caveat` when the differences are strongly skewed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genderscope.stats.design import MIN_UNITS_TO_TEST, TOO_FEW
from genderscope.stats.diagnostics import mean_caveat
from genderscope.stats.intervals import fields_set
from genderscope.stats.signflip import DEFAULT_FLIPS, hodges_lehmann, sign_flip_test

METHODS = ("bootstrap-t", "mean", "rank")


@dataclass(frozen=True)
class PairedTest:
    """Outcome of :func:`paired_test`.

    ``test`` names the test; ``estimand`` what it tests ("mean difference" or
    "pseudo-median (Hodges-Lehmann)") and ``estimate`` its value; ``mean_difference``
    is always mean(a - b). ``statistic``: the one-sample t of the differences (mean
    test; descriptive, the p-value is the sign-flip one) or W+ (rank test).
    ``effect_size_r``: r = sqrt(t^2 / (t^2 + df)) signed like t for the mean test;
    r = Z / sqrt(n) (Rosenthal 1991) for the rank test, Z the normal-approximation z of
    W+ over the n non-zero differences. ``exact``: the p-value enumerates every sign
    vector (mean) or uses the exact null of W+ (rank). ``caveat``: the bootstrap-t
    test's, when the differences are strongly skewed
    (:func:`genderscope.stats.diagnostics.mean_caveat`), else None.
    """

    test: str
    statistic: float
    p_value: float
    effect_size_r: float
    n: int
    mean_difference: float
    estimand: str = "mean difference"
    estimate: float = float("nan")
    exact: bool = False
    caveat: str | None = None

    def as_dict(self) -> dict[str, float | int | str | bool]:
        """The fields (``caveat`` only when there is one)."""
        return fields_set(self)


def paired_test(a: np.ndarray | list[float], b: np.ndarray | list[float], *,
                method: str = "bootstrap-t", n_flips: int = DEFAULT_FLIPS, seed: int = 0,
                unit: str = "units") -> PairedTest:
    """Two-sided paired test of ``a`` vs ``b`` (same length; pairs with a NaN dropped) by
    ``method`` (module docstring): ``"bootstrap-t"`` (``n_flips`` resamples), ``"mean"`` or
    ``"rank"`` (exact null for n <= 50 without ties, scipy's rule). ``unit``: what a pair is
    (professions), as the bootstrap-t test's caveat names it."""
    from scipy import stats  # imported on use: a cached rerun needs none

    if method not in METHODS:
        raise ValueError(f"unknown paired test {method!r}; use one of {', '.join(METHODS)}")
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    d = x[keep] - y[keep]
    n = int(d.size)
    nan = float("nan")
    mean = float(d.mean()) if n else nan
    estimand = "pseudo-median (Hodges-Lehmann)" if method == "rank" else "mean difference"
    estimate = (hodges_lehmann(d) if method == "rank" else mean) if n else nan
    if n < MIN_UNITS_TO_TEST:
        return PairedTest(TOO_FEW, nan, nan, nan, n, mean, estimand, estimate)
    if np.allclose(d, d[0]):
        return PairedTest("none", nan, nan, nan, n, mean, estimand, estimate)
    if method in ("mean", "bootstrap-t"):
        t = float(mean / (d.std(ddof=1) / np.sqrt(n)))
        r = float(np.sign(t) * np.sqrt(t * t / (t * t + n - 1)))
        if method == "bootstrap-t":
            from genderscope.stats.bootstrap_t import bootstrap_t_test

            p = bootstrap_t_test(d, n_resamples=n_flips, seed=seed).p_two_sided
            return PairedTest("bootstrap-t test of the mean", t, p, r, n, mean, estimand, mean,
                              caveat=mean_caveat(d, unit))
        res = sign_flip_test(d, n_flips=n_flips, seed=seed)
        label = "sign-flip test of the mean" + (" (exact)" if res.exact else "")
        return PairedTest(label, t, res.p_two_sided, r, n, mean, estimand, mean, res.exact)
    w = stats.wilcoxon(d)
    z = float(stats.wilcoxon(d, method="approx", alternative="greater").zstatistic)
    n_used = int(np.count_nonzero(d))
    exact = n_used <= 50 and np.unique(np.abs(d[d != 0])).size == n_used
    w_plus = float(np.sum(stats.rankdata(np.abs(d[d != 0]))[d[d != 0] > 0]))
    return PairedTest("Wilcoxon signed-rank", w_plus, float(w.pvalue),
                      float(z / np.sqrt(n_used)), n, mean, estimand, hodges_lehmann(d),
                      bool(exact))
