"""Size of the report's model-vs-model test of a mean over clusters of equal or unequal
size under a skewed, mean-0 gap: the current cluster bootstrap-t against alternatives.

Design as tests/calibration_sims.py ``report_skew_rows`` / ``report_unequal_skew_rows``:
K professions of 9 items (equal) or 2-30 items (unequal, uniform); the models' item
difference is the profession's gap e_k (normal, centred exponential or centred
lognormal, mean 0) plus N(0, 0.5) item noise, so the difference of the two item means is
d = sum_k T_k / sum_k n_k, a ratio estimator over clusters (T_k the cluster's total
difference, n_k its size). B = 199 resamples, reject at p <= 0.05 (``REPORT_B``).

Tests compared (two-sided p of d = 0; clusters resampled whole, with their sizes):

- ``current``: compare.py's bootstrap-t as committed: T = d / jackknife SE; SE* from
  each resample's own jackknife below 50 clusters, from 50 the jackknife influence
  values of the original sample, of the clusters drawn (not recomputed at d*, N*);
  equal-tailed p.
- ``ratio``: bootstrap-t studentised by the linearised ratio SE, recomputed in every
  resample: SE^2 = K / (K - 1) * sum_k (T_k - d n_k)^2 / N^2 (Cochran 1977, Sec. 6.4;
  Davison & Hinkley 1997, Sec. 3.8); equal-tailed p.
- ``ratio-sym``: as ``ratio`` with the symmetric p, P*(|T*| >= |T|) (Hall 1988: the
  symmetric bootstrap-t has coverage error O(n^-2) against O(n^-1) equal-tailed).
- ``current-sym``: ``current``'s studentisation with the symmetric p.
- ``wild``: wild cluster bootstrap-t (unrestricted, Rademacher weights on each cluster's
  linearised values; Cameron, Gelbach & Miller 2008), ratio SE, equal-tailed p.

    python benchmarks/calibration_report_unequal_clusters.py [--sims 500] [--boot 199]

Vectorised over resamples (a mean only); prints one table of false-positive rates.
"""

from __future__ import annotations

import argparse

import numpy as np

ALPHA = 0.05


def _gap(rng: np.random.Generator, k: int, dist: str) -> np.ndarray:
    if dist == "normal":
        return rng.normal(0.0, 1.0, k)
    if dist == "exponential":
        return rng.exponential(1.0, k) - 1.0
    return rng.lognormal(0.0, 1.0, k) - np.exp(0.5)


def _p(draws: np.ndarray, t_obs: float, symmetric: bool) -> float:
    draws = draws[~np.isnan(draws)]
    if symmetric:
        return float((np.count_nonzero(np.abs(draws) >= abs(t_obs)) + 1) / (draws.size + 1))
    ge = (np.count_nonzero(draws >= t_obs) + 1) / (draws.size + 1)
    le = (np.count_nonzero(draws <= t_obs) + 1) / (draws.size + 1)
    return float(min(1.0, 2 * min(ge, le)))


def _jack_se(tot: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Jackknife SE of sum(tot) / sum(size) over the last axis (one row per sample)."""
    k = tot.shape[-1]
    s, m = tot.sum(-1, keepdims=True), size.sum(-1, keepdims=True)
    loo = (s - tot) / (m - size)
    return np.sqrt((k - 1) / k * ((loo - loo.mean(-1, keepdims=True)) ** 2).sum(-1))


def _ratio_se(tot: np.ndarray, size: np.ndarray) -> np.ndarray:
    k = tot.shape[-1]
    m = size.sum(-1, keepdims=True)
    d = tot.sum(-1, keepdims=True) / m
    z = tot - d * size
    return np.sqrt(k / (k - 1) * (z ** 2).sum(-1)) / m[..., 0]


def one(rng: np.random.Generator, k: int, unequal: bool, dist: str, boot: int
        ) -> dict[str, float]:
    size = rng.integers(2, 31, k).astype(float) if unequal else np.full(k, 9.0)
    tot = size * _gap(rng, k, dist) + rng.normal(0.0, 0.5 * np.sqrt(size))
    n = size.sum()
    d = tot.sum() / n
    idx = rng.integers(0, k, (boot, k))
    tb, sb = tot[idx], size[idx]
    db = tb.sum(1) / sb.sum(1)
    out: dict[str, float] = {}
    # current: jackknife SE; influence values of the original sample from 50 clusters
    loo = (tot.sum() - tot) / (n - size)
    infl = (k - 1) * (loo.mean() - loo)
    se = np.sqrt(np.sum(infl ** 2) / (k * (k - 1)))
    if k < 50:
        se_b = _jack_se(tb, sb)
    else:
        li = infl[idx]
        se_b = np.sqrt(((li - li.mean(1, keepdims=True)) ** 2).sum(1) / (k * (k - 1)))
    t_cur = (db - d) / se_b
    out["current"] = _p(t_cur, d / se, False)
    out["current-sym"] = _p(t_cur, d / se, True)
    # linearised ratio SE, recomputed in each resample
    se_r = float(_ratio_se(tot, size))
    t_r = (db - d) / _ratio_se(tb, sb)
    out["ratio"] = _p(t_r, d / se_r, False)
    out["ratio-sym"] = _p(t_r, d / se_r, True)
    # wild cluster bootstrap-t: z_k = T_k - d n_k flipped by Rademacher signs
    z = tot - d * size
    w = rng.choice([-1.0, 1.0], (boot, k))
    tw = d * size + w * z
    dw = tw.sum(1) / n
    zw = tw - dw[:, None] * size
    se_w = np.sqrt(k / (k - 1) * (zw ** 2).sum(1)) / n
    out["wild"] = _p((dw - d) / se_w, d / se_r, False)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sims", type=int, default=500)
    ap.add_argument("--boot", type=int, default=199)
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--units", type=int, nargs="+", default=[20, 50, 100])
    args = ap.parse_args()
    methods = ["current", "current-sym", "ratio", "ratio-sym", "wild"]
    print(f"false-positive rate at p <= 0.05 ({args.sims} runs, B = {args.boot}); "
          "bar [0.03, 0.07]")
    print(f"{'sizes':8} {'gap':12} {'K':>4} " + " ".join(f"{m:>11}" for m in methods))
    for unequal in (False, True):
        for dist in ("normal", "exponential", "lognormal"):
            for k in args.units:
                rng = np.random.default_rng([args.seed, k, int(unequal), len(dist)])
                rej = dict.fromkeys(methods, 0)
                for _ in range(args.sims):
                    for m, p in one(rng, k, unequal, dist, args.boot).items():
                        rej[m] += p <= ALPHA + 1e-12
                print(f"{'2-30' if unequal else '9':8} {dist:12} {k:>4} "
                      + " ".join(f"{rej[m] / args.sims:>11.3f}" for m in methods))


if __name__ == "__main__":
    main()
