"""How often the skew caveats of :mod:`genderscope.stats.diagnostics` fire, and what the
p-value or interval they flag does when they fire and when they do not.

Means (the bootstrap-t test of mean 0, :func:`genderscope.stats.bootstrap_t.bootstrap_t_pvalues`,
as ``gs.run`` computes it through ``stats.design.infer``): mean-0 unit values, normal,
centred gamma with shape 4 (skewness 1), centred exponential (skewness 2) and centred
lognormal with sigma 1 (skewness 6.2), at 6, 10, 20 and 60 units. Printed per row: the
share of samples whose caveat fires, the false-positive rate at alpha 0.05 in all, among
the samples flagged and among those not flagged.

d (the noncentral-t interval of WEAT's effect size,
:func:`genderscope.stats.standardized.standardized_difference_ci`): 8 + 8 and 20 + 20
word scores, normal, t(3) or centred lognormal, scaled to SD 1, X shifted by 1 SD (truth
d = 0.894, as docs/calibration.md's rows); printed: the share flagged and the coverage in
all, flagged and not flagged.

Run (about 2 minutes on 2 shared cores at the defaults):

    python benchmarks/caveat_thresholds.py [--sims 2000] [--d-sims 1000] [--boot 999]
"""

from __future__ import annotations

import argparse

import numpy as np

from genderscope.stats.bootstrap_t import bootstrap_t_pvalues
from genderscope.stats.diagnostics import effect_size_caveat, mean_caveat
from genderscope.stats.standardized import standardized_difference_ci

ALPHA = 0.05
LOGNORMAL_SD = float(np.sqrt((np.e - 1) * np.e))
TRUE_D = 1 / np.sqrt(1 + 0.25)
"""Caliskan's d of X shifted by 1 SD over equal sets: delta / sqrt(1 + p q delta^2)."""


def mean_units(dist: str, sims: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """(sims x n) mean-0 unit values of ``dist``."""
    if dist == "normal":
        return rng.normal(size=(sims, n))
    if dist == "gamma 4":
        return (rng.gamma(4.0, 1.0, (sims, n)) - 4.0) / 2.0
    if dist == "exponential":
        return rng.exponential(1.0, (sims, n)) - 1.0
    return rng.lognormal(0.0, 1.0, (sims, n)) - np.exp(0.5)


def d_noise(dist: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """SD-1 scores of ``dist`` (centred)."""
    if dist == "normal":
        return rng.normal(size=size)
    if dist == "t3":
        return rng.standard_t(3, size) / np.sqrt(3.0)
    return (rng.lognormal(0.0, 1.0, size) - np.exp(0.5)) / LOGNORMAL_SD


def _share(mask: np.ndarray, of: np.ndarray) -> str:
    """'rate (count)' of ``of`` within ``mask``."""
    k = int(mask.sum())
    return f"{np.mean(of[mask]):.3f} ({k:5d})" if k else "    - (    0)"


def means(sims: int, boot: int, units: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    print("units  effects       flagged  FPR all  FPR flagged (n)  FPR not flagged (n)")
    for n in units:
        for dist in ("normal", "gamma 4", "exponential", "lognormal"):
            d = mean_units(dist, sims, n, rng)
            fired = np.array([mean_caveat(row) is not None for row in d])
            rej = np.concatenate([bootstrap_t_pvalues(d[i:i + 250], n_resamples=boot,
                                                      seed=seed + i)[0]
                                  for i in range(0, sims, 250)]) < ALPHA
            print(f"{n:5d}  {dist:12s}  {fired.mean():7.3f}  {rej.mean():7.3f}  "
                  f"{_share(fired, rej):>15s}  {_share(~fired, rej):>19s}", flush=True)


def effect_sizes(sims: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    print(f"words    scores     flagged  coverage all  flagged (n)       not flagged (n)"
          f"   (truth d = {TRUE_D:.3f})")
    for k in (8, 20):
        for dist in ("normal", "t3", "lognormal"):
            fired = np.zeros(sims, dtype=bool)
            cover = np.zeros(sims, dtype=bool)
            for s in range(sims):
                x = d_noise(dist, k, rng) + 1.0
                y = d_noise(dist, k, rng)
                fired[s] = effect_size_caveat(x, y) is not None
                ci = standardized_difference_ci(x, y)
                cover[s] = ci.ci_low <= TRUE_D <= ci.ci_high
            print(f"{k:2d} + {k:2d}  {dist:9s}  {fired.mean():7.3f}  {cover.mean():12.3f}  "
                  f"{_share(fired, cover):>15s}  {_share(~fired, cover):>15s}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sims", type=int, default=2000, help="Samples per row of means.")
    ap.add_argument("--d-sims", type=int, default=1000, help="Samples per row of d.")
    ap.add_argument("--boot", type=int, default=999, help="Bootstrap-t resamples.")
    ap.add_argument("--units", type=int, nargs="+", default=[6, 10, 20, 60])
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--only", choices=["mean", "d"], default=None)
    args = ap.parse_args()
    if args.only != "d":
        means(args.sims, args.boot, args.units, args.seed)
    if args.only != "mean":
        effect_sizes(args.d_sims, args.seed)


if __name__ == "__main__":
    main()
