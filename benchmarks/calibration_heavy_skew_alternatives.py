"""Small-cluster tests of a mean under heavy skew: can any keep its size at 10 units?

``benchmarks/calibration_heavy_skew.py`` shows that the sign-flip test of a mean (the
test ``paired_test`` uses) rejects about 0.10 of true nulls at 10 units whose effects
are a centred exponential (skewness 2). This script measures, on the same simulated
nulls (centred gamma, mean 0, skewness 2 / sqrt(shape)), the two-sided false-positive
rate at alpha = 0.05 and the coverage of the matching 95 % interval of:

- ``sign-flip``: exact sign-flip test of the mean (genderscope's test; the studentized
  sign-flip test is the same test, since t is monotone in the mean under sign flips);
- ``t``: Student's one-sample t-test / t interval over the unit values;
- ``boot-t eq``: equal-tailed bootstrap-t (percentile-t; Efron & Tibshirani 1993,
  Sec. 12.5);
- ``boot-t gs``: the same test as genderscope implements it
  (:func:`genderscope.stats.bootstrap_t.bootstrap_t_pvalues`, ``paired_test(...,
  method="bootstrap-t")``): p = 2 min(P*(T* >= t), P*(T* <= t)), +-inf for T* of a
  resample with no spread;
- ``boot-t sym``: symmetric bootstrap-t (Hall 1988), quantile of |T*|;
- ``Johnson t``: Johnson's (1978) skewness-corrected t statistic;
- ``Hall t``: Hall's (1992) monotone cubic transformation of t, with t quantiles.

Run (about 20 s on 2 cores for the defaults; heavy-job lock):

    python benchmarks/calibration_heavy_skew_alternatives.py [--sims 4000 --boot 999]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from genderscope.stats.bootstrap_t import bootstrap_t_pvalues
from genderscope.stats.signflip import sign_flip_pvalues


def _t(d: np.ndarray, mu: float | np.ndarray = 0.0) -> np.ndarray:
    n = d.shape[-1]
    return (d.mean(axis=-1) - mu) / (d.std(axis=-1, ddof=1) / np.sqrt(n))


def _bootstrap_t(d: np.ndarray, boot: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: T* draws (rows x boot) centred at the row mean; NaN-free (degenerate
    resamples, all one value, get T* = 0)."""
    sims, n = d.shape
    out = np.empty((sims, boot))
    for i in range(sims):
        idx = rng.integers(0, n, (boot, n))
        x = d[i][idx]
        sd = x.std(axis=1, ddof=1)
        t = (x.mean(axis=1) - d[i].mean()) / (sd / np.sqrt(n))
        out[i] = np.where(sd > 0, t, 0.0)
    return out, d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(n)


def _johnson(d: np.ndarray) -> np.ndarray:
    """Johnson (1978): t1 = [(m - 0) + g/(6 s^2 n) + g/(3 s^4) (m - 0)^2] / (s / sqrt n),
    g the sample third central moment."""
    n = d.shape[1]
    m = d.mean(axis=1)
    s2 = d.var(axis=1, ddof=1)
    g = ((d - m[:, None]) ** 3).sum(axis=1) * n / ((n - 1) * (n - 2))
    return (m + g / (6 * s2 * n) + g / (3 * s2 ** 2) * m ** 2) / np.sqrt(s2 / n)


def _hall(d: np.ndarray) -> np.ndarray:
    """Hall (1992): T = sqrt(n) (D + g D^2 / 3 + g^2 D^3 / 27 + g / (6 n)), D = m / s,
    g the sample skewness (monotone in D, so the test inverts to an interval)."""
    n = d.shape[1]
    m = d.mean(axis=1)
    s = d.std(axis=1, ddof=1)
    g = ((d - m[:, None]) ** 3).mean(axis=1) / s ** 3
    big_d = m / s
    return np.sqrt(n) * (big_d + g * big_d ** 2 / 3 + g ** 2 * big_d ** 3 / 27 + g / (6 * n))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=4000)
    ap.add_argument("--boot", type=int, default=999)
    ap.add_argument("--units", type=int, nargs="+", default=[5, 10, 20])
    args = ap.parse_args()
    rng = np.random.default_rng(22)
    print("shape  skew  units  test        FPR    coverage")
    for shape in (1.0, 2.0, 6.0):
        for n in args.units:
            d = (rng.gamma(shape, 1.0, (args.sims, n)) - shape) / np.sqrt(shape)
            q = stats.t.ppf(0.975, n - 1)
            rows = {}
            p_sf = sign_flip_pvalues(d, n_flips=1000, seed=n)[0]
            rows["sign-flip"] = (np.mean(p_sf < 0.05), float("nan"))
            t = _t(d)
            rows["t"] = (np.mean(np.abs(t) > q), np.mean(np.abs(t) <= q))
            tb, m, se = _bootstrap_t(d, args.boot, rng)
            lo_q, hi_q = np.quantile(tb, [0.025, 0.975], axis=1)
            # equal-tailed percentile-t interval: [m - hi_q se, m - lo_q se]
            cover_eq = (m - hi_q * se <= 0) & (m - lo_q * se >= 0)
            rows["boot-t eq"] = (np.mean(~cover_eq), np.mean(cover_eq))
            p_gs, low, high, _ = bootstrap_t_pvalues(d, n_resamples=args.boot, seed=n)
            rows["boot-t gs"] = (np.mean(p_gs < 0.05), np.mean((low <= 0) & (high >= 0)))
            sym_q = np.quantile(np.abs(tb), 0.95, axis=1)
            cover_sym = np.abs(m) <= sym_q * se
            rows["boot-t sym"] = (np.mean(~cover_sym), np.mean(cover_sym))
            j = _johnson(d)
            rows["Johnson t"] = (np.mean(np.abs(j) > q), float("nan"))
            h = _hall(d)
            rows["Hall t"] = (np.mean(np.abs(h) > q), np.mean(np.abs(h) <= q))
            for name, (fpr, cover) in rows.items():
                print(f"{shape:5.0f}  {2 / np.sqrt(shape):4.2f}  {n:5d}  {name:10s}  "
                      f"{fpr:5.3f}  {cover:8.3f}")


if __name__ == "__main__":
    main()
