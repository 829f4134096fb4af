"""Paired two-condition tests, as used by Bartl et al. (2020, Sec. 4): a
Shapiro-Wilk test of the differences decides between the paired t-test and
the Wilcoxon signed-rank test; effect size r is reported with either."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class PairedTest:
    """Outcome of :func:`paired_test`.

    ``effect_size_r``: for the t-test r = sqrt(t^2 / (t^2 + df)) signed like t;
    for Wilcoxon r = Z / sqrt(n) (Rosenthal 1991) with Z the normal-approximation
    z statistic of W+ that :func:`scipy.stats.wilcoxon` returns (``zstatistic``,
    method "approx"), so r is finite and > 0 when the positive differences carry
    the larger ranks; n counts the non-zero differences that Z is computed from.
    ``statistic`` is t, or W+ (the sum of the ranks of positive differences).
    ``mean_difference`` is mean(a - b).
    """

    test: str
    statistic: float
    p_value: float
    effect_size_r: float
    n: int
    mean_difference: float
    shapiro_p: float

    def as_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def paired_test(a: np.ndarray | list[float], b: np.ndarray | list[float], *,
                alpha: float = 0.05) -> PairedTest:
    """Compare paired samples ``a`` and ``b`` (same length, pairs with a NaN dropped)."""
    from scipy import stats  # imported on use: a cached rerun needs none

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    d = x[keep] - y[keep]
    n = int(d.size)
    nan = float("nan")
    if n < 3 or np.allclose(d, d[0]):
        return PairedTest("none", nan, nan, nan, n, float(d.mean()) if n else nan, nan)
    shapiro_p = float(stats.shapiro(d).pvalue)
    if shapiro_p >= alpha:
        res = stats.ttest_rel(x[keep], y[keep])
        t = float(res.statistic)
        df = n - 1
        r = float(np.sign(t) * np.sqrt(t * t / (t * t + df)))
        return PairedTest("paired t-test", t, float(res.pvalue), r, n, float(d.mean()), shapiro_p)
    # alternative="greater": the z statistic of W+ (signed); two-sided p from the same z.
    res = stats.wilcoxon(d, method="approx", alternative="greater")
    z = float(res.zstatistic)
    p_two = float(stats.wilcoxon(d, method="approx").pvalue)
    n_used = int(np.count_nonzero(d))
    return PairedTest("Wilcoxon signed-rank", float(res.statistic), p_two,
                      z / np.sqrt(n_used), n, float(d.mean()), shapiro_p)
