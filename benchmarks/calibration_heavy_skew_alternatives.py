"""Small-sample tests of a mean under heavy skew: can any keep its size at 10-60 units?

``benchmarks/calibration_heavy_skew.py`` shows that the sign-flip test of a mean (the
test ``paired_test`` used) rejects about 0.10 of true nulls at 10 units whose effects
are a centred exponential (skewness 2). This script measures, on simulated nulls of mean
0 (centred gamma, skewness 2 / sqrt(shape); centred lognormal with sigma 1, skewness 6.2),
the two-sided false-positive rate at alpha = 0.05 (in all, and split by the sign of the
sample mean: a test sized in all but not in each tail points the wrong way), and the
coverage of the matching 95 % interval of:

- ``sign-flip``: exact sign-flip test of the mean (the studentized sign-flip test is the
  same test, since t is monotone in the mean under sign flips);
- ``t``: Student's one-sample t-test / t interval over the unit values;
- ``boot-t eq``: equal-tailed bootstrap-t (percentile-t; Efron & Tibshirani 1993,
  Sec. 12.5): p = 2 min(P*(T* >= t), P*(T* <= t));
- ``boot-t gs``: the same test as genderscope implements it
  (:func:`genderscope.stats.bootstrap_t.bootstrap_t_pvalues`, ``paired_test(...,
  method="bootstrap-t")``), +-inf for T* of a resample with no spread;
- ``boot-t sym``: symmetric bootstrap-t (Hall 1988): p = (1 + #{|T*| >= |t|}) / (B + 1),
  interval mean +- q*(|T*|, 0.95) se;
- ``Johnson t``: Johnson's (1978) skewness-corrected t statistic, t quantiles (quadratic
  in the mean, so it inverts to no interval: Hall 1992's reason for the cubic);
- ``Hall t``: Hall's (1992, JRSS B 54, 221-228) monotone cubic transformation of t,
  H(T) = T + a T^2 + a^2 T^3 / 3 + g / (6 sqrt n) with a = g / (3 sqrt n), g the sample
  skewness, with t quantiles;
- ``Hall boot``: the same transformation calibrated by the bootstrap: H of every
  resample's T* with that resample's own skewness, p = 2 min(P*(H* >= H), P*(H* <= H)),
  the interval by inverting H (monotone) at H*'s quantiles.

Run (heavy-job lock; about 1 minute on 2 cores for the lognormal rows at 2,000 runs):

    python benchmarks/calibration_heavy_skew_alternatives.py [--sims 4000 --boot 999]
        [--dist gamma lognormal] [--units 5 10 20]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from genderscope.stats.bootstrap_t import bootstrap_t_pvalues
from genderscope.stats.signflip import sign_flip_pvalues

ALPHA = 0.05


def _t(d: np.ndarray, mu: float | np.ndarray = 0.0) -> np.ndarray:
    n = d.shape[-1]
    return (d.mean(axis=-1) - mu) / (d.std(axis=-1, ddof=1) / np.sqrt(n))


def _skewness(d: np.ndarray) -> np.ndarray:
    """Sample skewness along the last axis: third central moment / s^3 (s with n - 1)."""
    m = d.mean(axis=-1, keepdims=True)
    s = d.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, ((d - m) ** 3).mean(axis=-1) / s ** 3, 0.0)


def _hall_h(t: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    """Hall (1992): H(T) = T + a T^2 + a^2 T^3 / 3 + g / (6 sqrt n), a = g / (3 sqrt n)."""
    a = g / (3 * np.sqrt(n))
    return t + a * t ** 2 + a ** 2 * t ** 3 / 3 + g / (6 * np.sqrt(n))


def _hall_inverse(h: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    """T with H(T) = h: H(T) = ((1 + a T)^3 - 1) / (3 a) + g / (6 sqrt n) for a != 0."""
    a = g / (3 * np.sqrt(n))
    z = h - g / (6 * np.sqrt(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.cbrt(1 + 3 * a * z) - 1) / a
    return np.where(np.abs(a) > 1e-12, t, z)


def _bootstrap(d: np.ndarray, boot: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per row: T* draws (rows x boot) centred at the row mean, and each resample's
    skewness; degenerate resamples (all one value) get T* = 0, skewness 0."""
    sims, n = d.shape
    t_out = np.empty((sims, boot))
    g_out = np.empty((sims, boot))
    for i in range(sims):
        x = d[i][rng.integers(0, n, (boot, n))]
        sd = x.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (x.mean(axis=1) - d[i].mean()) / (sd / np.sqrt(n))
        t_out[i] = np.where(sd > 0, t, 0.0)
        g_out[i] = _skewness(x)
    return t_out, g_out


def _two_sided(draws: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """2 min(P*(draw >= obs), P*(draw <= obs)) with the (k + 1) / (B + 1) estimator."""
    b = draws.shape[1]
    ge = (np.count_nonzero(draws >= obs[:, None], axis=1) + 1) / (b + 1)
    le = (np.count_nonzero(draws <= obs[:, None], axis=1) + 1) / (b + 1)
    return np.minimum(1.0, 2 * np.minimum(ge, le))


def _johnson(d: np.ndarray) -> np.ndarray:
    """Johnson (1978): t1 = [(m - 0) + g/(6 s^2 n) + g/(3 s^4) (m - 0)^2] / (s / sqrt n),
    g the sample third central moment."""
    n = d.shape[1]
    m = d.mean(axis=1)
    s2 = d.var(axis=1, ddof=1)
    g = ((d - m[:, None]) ** 3).sum(axis=1) * n / ((n - 1) * (n - 2))
    return (m + g / (6 * s2 * n) + g / (3 * s2 ** 2) * m ** 2) / np.sqrt(s2 / n)


def rows_for(d: np.ndarray, boot: int, rng: np.random.Generator, seed: int
             ) -> dict[str, tuple[np.ndarray, float]]:
    """name -> (rejected at alpha, per row of ``d`` (sims x n); coverage of 0)."""
    n = d.shape[1]
    q = stats.t.ppf(0.975, n - 1)
    out: dict[str, tuple[float, float]] = {}
    p_sf = sign_flip_pvalues(d, n_flips=1000, seed=seed)[0]
    out["sign-flip"] = (p_sf < ALPHA, float("nan"))
    t = _t(d)
    out["t"] = (np.abs(t) > q, float(np.mean(np.abs(t) <= q)))
    tb, gb = _bootstrap(d, boot, rng)
    m = d.mean(axis=1)
    se = d.std(axis=1, ddof=1) / np.sqrt(n)
    lo_q, hi_q = np.quantile(tb, [0.025, 0.975], axis=1)
    cover = (m - hi_q * se <= 0) & (m - lo_q * se >= 0)
    out["boot-t eq"] = (_two_sided(tb, t) < ALPHA, float(np.mean(cover)))
    p_gs, low, high, _ = bootstrap_t_pvalues(d, n_resamples=boot, seed=seed)
    out["boot-t gs"] = (p_gs < ALPHA, float(np.mean((low <= 0) & (high >= 0))))
    p_sym = (np.count_nonzero(np.abs(tb) >= np.abs(t)[:, None], axis=1) + 1) / (boot + 1)
    sym_q = np.quantile(np.abs(tb), 0.95, axis=1)
    out["boot-t sym"] = (p_sym < ALPHA, float(np.mean(np.abs(m) <= sym_q * se)))
    j = _johnson(d)
    out["Johnson t"] = (np.abs(j) > q, float("nan"))  # quadratic in the mean: no interval
    g = _skewness(d)
    h = _hall_h(t, g, n)
    out["Hall t"] = (np.abs(h) > q, float(np.mean(np.abs(h) <= q)))
    hb = _hall_h(tb, gb, n)
    h_lo, h_hi = np.quantile(hb, [0.025, 0.975], axis=1)
    # mu is in the interval when H((m - mu) / se) lies within H*'s quantiles; H is monotone
    t_lo, t_hi = _hall_inverse(h_lo, g, n), _hall_inverse(h_hi, g, n)
    out["Hall boot"] = (_two_sided(hb, h) < ALPHA,
                        float(np.mean((m - t_hi * se <= 0) & (m - t_lo * se >= 0))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sims", type=int, default=4000)
    ap.add_argument("--boot", type=int, default=999)
    ap.add_argument("--units", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--dist", nargs="+", default=["gamma", "lognormal"],
                    choices=["gamma", "lognormal"])
    args = ap.parse_args()
    rng = np.random.default_rng(22)
    print("effects               skew  units  test        FPR    mean>0  mean<0  coverage")
    designs: list[tuple[str, float, float]] = []
    if "gamma" in args.dist:
        designs += [(f"gamma shape {s:g}", s, 2 / np.sqrt(s)) for s in (1.0, 2.0, 6.0)]
    if "lognormal" in args.dist:
        designs.append(("lognormal sigma 1", 0.0, (np.e + 2) * np.sqrt(np.e - 1)))
    for name, shape, skew in designs:
        for n in args.units:
            if shape:
                d = (rng.gamma(shape, 1.0, (args.sims, n)) - shape) / np.sqrt(shape)
            else:
                d = rng.lognormal(0.0, 1.0, (args.sims, n)) - np.exp(0.5)
            up = d.mean(axis=1) > 0
            for test, (rej, cover) in rows_for(d, args.boot, rng, n).items():
                print(f"{name:20s}  {skew:4.2f}  {n:5d}  {test:10s}  {np.mean(rej):5.3f}  "
                      f"{np.mean(rej & up):6.3f}  {np.mean(rej & ~up):6.3f}  {cover:8.3f}",
                      flush=True)


if __name__ == "__main__":
    main()
