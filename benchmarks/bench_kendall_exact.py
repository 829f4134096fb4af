"""Benchmark: the exact null of Kendall's tau-b in ``run-many --correlation kendall``
(:func:`genderscope.stats.rankings._kendall_null`), all n! orderings of one ranking at
once, against the per-ordering baseline it replaced (one ``scipy.stats.kendalltau`` call
per ordering), on the same two random rankings in the same run. Prints the median of
``--repeats`` times of each, their ratio and the largest difference of the two nulls.

    python benchmarks/bench_kendall_exact.py [--models 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import numpy as np
from scipy import stats

from genderscope.stats.rankings import EXACT_MAX_MODELS, _kendall_null


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=EXACT_MAX_MODELS)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=args.models), rng.normal(size=args.models)
    orders = np.array(list(itertools.permutations(range(args.models))))
    loop, vectorised = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        want = np.array([stats.kendalltau(x, y[o]).statistic for o in orders])
        loop.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        got = _kendall_null(x, y, orders)
        vectorised.append(time.perf_counter() - t0)
    a, b = statistics.median(loop), statistics.median(vectorised)
    print(f"{args.models} models, {len(orders):,} orderings: per-ordering scipy {a:.2f} s, "
          f"all at once {b:.4f} s (medians of {args.repeats}); ratio {a / b:.0f}; "
          f"largest difference {np.abs(want - got).max():.1e}")


if __name__ == "__main__":
    main()
