"""Coverage of the report's tested-difference CI (report/compare.py, paired_difference)
with few clusters (issue 22, item 3).

Two models scored on K clusters (professions) of items; model A's gap to B varies by
cluster around a known mean ``MU`` (skewed, centred-gamma cluster effects) plus item
noise and a shared item effect. Statistics: a mean over items (equal cluster sizes) and
an accuracy share (0/1 items, unequal cluster sizes 4-14). Intervals compared: the
percentile cluster bootstrap (the only CI before this change) and the jackknife-t
interval over leave-one-cluster-out (what paired_difference now gives below 20 clusters).

    python benchmarks/calibration_report_compare_few_clusters.py [reps [K ...]]
"""

from __future__ import annotations

import sys

import numpy as np

from genderscope.reporting.compare import _jackknife_t, _percentile

MU = 0.3


def _skewed(rng, size, shape=6.0):
    return (rng.gamma(shape, 1.0, size) - shape) / np.sqrt(shape)


def _mean(x):
    return float(x[:, 0].mean())


def draw(rng, k, kind):
    if kind == "mean":
        codes = np.repeat(np.arange(k), 9)
        base = _skewed(rng, k)[codes] + rng.normal(0, 1, codes.size)
        gap = MU + _skewed(rng, k)[codes] + rng.normal(0, 0.5, codes.size)
        return base[:, None] + gap[:, None], base[:, None], codes, MU
    sizes = rng.integers(4, 15, k)
    codes = np.repeat(np.arange(k), sizes)
    logit_b = 0.5 + rng.normal(0, 0.8, k)[codes]
    # gap on the probability scale: cluster effect around MU/3 (a share gap of 0.1)
    pb = 1 / (1 + np.exp(-logit_b))
    g = 0.1 + 0.08 * _skewed(rng, k)[codes]
    pa = np.clip(pb + g, 0, 1)
    u = rng.random(codes.size)
    # truth: E[size * (pa - pb)] / E[size]; sizes independent of the gap, so the mean gap
    # of the clipped probabilities, estimated once by a large simulation below
    return (u < pa).astype(float)[:, None], (u < pb).astype(float)[:, None], codes, None


def truth_share(rng, n=400_000):
    logit_b = 0.5 + rng.normal(0, 0.8, n)
    pb = 1 / (1 + np.exp(-logit_b))
    pa = np.clip(pb + 0.1 + 0.08 * _skewed(rng, n), 0, 1)
    return float(np.mean(pa - pb))


def main(reps: int = 1000, n_boot: int = 400, ks: tuple[int, ...] = (5, 10, 20)) -> None:
    rng = np.random.default_rng(2203)
    t_share = truth_share(rng)
    print(f"share truth {t_share:.4f}; reps {reps}, percentile with {n_boot} resamples")
    for kind in ("mean", "share"):
        for k in ks:
            jk, pc = [], []
            for s in range(reps):
                x, y, codes, truth = draw(rng, k, kind)
                truth = t_share if truth is None else truth
                members = [np.flatnonzero(codes == j) for j in range(k)]
                obs = _mean(x) - _mean(y)
                lo, hi = _jackknife_t(x, y, _mean, obs, members, len(codes))
                jk.append(lo <= truth <= hi)
                lo, hi = _percentile(x, y, _mean, members, len(codes), n_boot,
                                     np.random.default_rng(s))
                pc.append(lo <= truth <= hi)
            print(f"{kind:5s} K={k:2d}: jackknife-t {np.mean(jk):.3f}  "
                  f"percentile {np.mean(pc):.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
         ks=tuple(int(a) for a in sys.argv[2:]) or (5, 10, 20))
