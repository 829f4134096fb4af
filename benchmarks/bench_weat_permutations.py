"""Benchmark (issue 5): WEAT permutation test with 100,000 random permutations on a
4 x 8-word test (WEAT 6: male/female names x career/family, GloVe 6B 50d).

Vectorised: :func:`genderscope.stats.difference_of_sums_test` (``exact_limit=0`` forces
sampling; the exact test over the 12,870 partitions is also timed). Baseline: a plain
per-permutation Python loop (shuffle the 16 association scores with ``random.shuffle``,
sum the two halves), over the same precomputed association scores, in the same run.
Prints the times (median of ``--repeats``), the ratio and both p-values.

    python benchmarks/bench_weat_permutations.py [--permutations N]
        [--record]

Data: the SEAT tests folder found by ``genderscope.datasets.locations.find_benchmark``
(``$GENDERSCOPE_DATA``, else ``shared/data`` or ``../shared/data``).
``--record`` writes the row to benchmarks/results/ for the README speed table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
from benchrecord import Recorder, add_record_options

from genderscope.datasets.locations import find_benchmark


def loop_p_value(sx: list[float], sy: list[float], n: int, seed: int) -> float:
    """One-sided p from ``n`` random re-partitions, one Python iteration each."""
    rng = random.Random(seed)
    scores = sx + sy
    nx = len(sx)
    observed = sum(sx) - sum(sy)
    ge = 0
    for _ in range(n):
        rng.shuffle(scores)
        s = sum(scores[:nx]) - sum(scores[nx:])
        if s >= observed - 1e-12:
            ge += 1
    return (ge + 1) / (n + 1)


def timed(fn, repeats: int) -> tuple[float, object]:  # noqa: ANN001
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--permutations", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--test", default="weat6")
    ap.add_argument("--device", default="cpu", choices=["cpu"],
                    help="the permutation test is numpy on the CPU; accepted for a uniform "
                         "interface")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)

    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.weat import association_scores
    from genderscope.models.vectors import load_vectors
    from genderscope.stats import difference_of_sums_test

    vecs = load_vectors("glove-6b-50d")
    test = resolve_test(args.test, find_benchmark("seat") / "tests")
    keys = [[vecs.key_for(w) for w in s.examples] for s in test.sets()]
    x, y, a, b = (vecs.vectors(k) for k in keys)
    s, _, _ = association_scores(np.vstack([x, y]), a, b)
    sx, sy = s[:len(x)], s[len(x):]
    n = args.permutations
    print(f"test {test.name}: |X|={len(x)} |Y|={len(y)} |A|={len(a)} |B|={len(b)}; "
          f"{n:,} permutations; median of {args.repeats} runs")

    t_vec, r_vec = timed(lambda: difference_of_sums_test(sx, sy, n_permutations=n, seed=0,
                                                         exact_limit=0), args.repeats)
    t_loop, p_loop = timed(lambda: loop_p_value(sx.tolist(), sy.tolist(), n, 0), args.repeats)
    t_exact, r_exact = timed(lambda: difference_of_sums_test(sx, sy), args.repeats)
    print(f"vectorised (numpy)     : {t_vec:8.3f} s   p = {r_vec.p_one_sided:.6f}")
    print(f"python loop            : {t_loop:8.3f} s   p = {p_loop:.6f}")
    print(f"speed-up loop/vector   : {t_loop / t_vec:8.1f} x")
    print(f"exact ({r_exact.n_permutations:,} partitions): {t_exact:8.3f} s   "
          f"p = {r_exact.p_one_sided:.6f}")
    print(f"effect size d = {r_vec.effect_size:.4f}, statistic S = {r_vec.statistic:.4f}")
    sizes = ", ".join(str(len(v)) for v in (x, y, a, b))
    recorder.write(
        what=f"WEAT ({test.name}), {n:,} permutations, sets of {sizes} words",
        baseline="Python loop", baseline_s=t_loop,
        genderscope=f"vectorised (numpy), median of {args.repeats}", genderscope_s=t_vec,
        device=args.device,
        extra=[{"name": "p (vectorised)", "value": float(r_vec.p_one_sided)},
               {"name": "p (loop)", "value": float(p_loop), "side": "baseline"}])


if __name__ == "__main__":
    main()
