"""Benchmark (issue 5): WEAT permutation test with 100,000 random permutations on a
4 x 8-word test (WEAT 6: male/female names x career/family, GloVe 6B 50d).

Vectorised: :func:`genderscope.stats.difference_of_sums_test` (``exact_limit=0`` forces
sampling; the exact test over the 12,870 partitions is also timed). Baseline: a plain
per-permutation Python loop (shuffle the 16 association scores with ``random.shuffle``,
sum the two halves), over the same precomputed association scores, in the same run.
Prints the times (median of ``--repeats``), the ratio and both p-values.

    python benchmarks/bench_weat_permutations.py [--permutations N]
        [--record] [--whole-process]

``--whole-process``: instead, each way as a whole process timed from outside, python
start to exit (median of ``--repeats``): the loop as a script (imports, GloVe, the test's
words, association scores, the loop, p printed) against ``genderscope run weat --test
T --permutations N --exact-limit 0 --out DIR`` as a user types it (fresh store through
``$GENDERSCOPE_STORE``, the table on the terminal; it also computes the effect size's
bootstrap CI and saves its files); record case ``whole-process``.

Data: the SEAT tests folder found by ``genderscope.datasets.locations.find_benchmark``
(``$GENDERSCOPE_DATA``, else ``../shared/data`` beside the checkout: benchrecord.use_shared_data).
``--record`` writes the row to benchmarks/results/ for the speed table (docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from benchrecord import Recorder, add_record_options, genderscope_command, timed_process

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


def _scores(test_name: str) -> tuple[object, np.ndarray, np.ndarray, list]:
    """The test, the X and Y association scores on GloVe 6B 50d, and the four sets."""
    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.weat import association_scores
    from genderscope.models.vectors import load_vectors

    vecs = load_vectors("glove-6b-50d")
    test = resolve_test(test_name, find_benchmark("seat") / "tests")
    keys = [[vecs.key_for(w) for w in s.examples] for s in test.sets()]
    x, y, a, b = (vecs.vectors(k) for k in keys)
    s, _, _ = association_scores(np.vstack([x, y]), a, b)
    return test, s[:len(x)], s[len(x):], [x, y, a, b]


def whole_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """Both ways as whole processes, python start to exit, timed from outside."""
    work = Path(tempfile.mkdtemp(prefix="gs-bench-weat-"))
    env = dict(os.environ, COLUMNS="100",  # the data folder, as docs/data.md tells a user
               GENDERSCOPE_DATA=str(find_benchmark("seat").resolve().parent))
    head = genderscope_command()
    typed = ["run", "weat", "--test", args.test, "--permutations", str(args.permutations),
             "--exact-limit", "0", "--out", str(work / "gs")]
    loop_t, cli_t = [], []
    for k in range(args.repeats):  # alternating, so a drift in load hits both
        loop_t.append(timed_process([sys.executable, __file__, "--child-loop", "--test", args.test,
                              "--permutations", str(args.permutations)], env))
        shutil.rmtree(work / "gs", ignore_errors=True)
        cli_t.append(timed_process([*head, *typed], dict(env, GENDERSCOPE_STORE=str(
            work / f"store-{k}.sqlite"))))
        print(f"repeat {k + 1}: loop script {loop_t[-1]:.2f} s, genderscope "
              f"{cli_t[-1]:.2f} s", flush=True)
    loop_s, cli_s = statistics.median(loop_t), statistics.median(cli_t)
    print(f"whole processes: loop script {loop_s:.2f} s, `genderscope {' '.join(typed)}` "
          f"{cli_s:.2f} s: {loop_s / cli_s:.2f}x")
    shutil.rmtree(work, ignore_errors=True)
    recorder.write(
        case="whole-process",
        what=f"WEAT ({args.test}), {args.permutations:,} permutations, GloVe 6B 50d",
        baseline=f"the Python loop as a script, median of {args.repeats}", baseline_s=loop_s,
        genderscope=f"`genderscope run weat --test {args.test} --permutations "
                    f"{args.permutations} --exact-limit 0 --out DIR` (also the effect "
                    f"size's bootstrap CI), median of {args.repeats}",
        genderscope_s=cli_s, device=args.device)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--permutations", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--test", default="weat6")
    ap.add_argument("--device", default="cpu", choices=["cpu"],
                    help="the permutation test is numpy on the CPU; accepted for a uniform "
                         "interface")
    ap.add_argument("--whole-process", action="store_true",
                    help="each way as a whole process, as typed (record case whole-process)")
    ap.add_argument("--child-loop", action="store_true", help=argparse.SUPPRESS)
    add_record_options(ap)
    args = ap.parse_args()
    if args.child_loop:  # the baseline as a script: load, score, loop, print p
        _, sx, sy, _ = _scores(args.test)
        print(f"p = {loop_p_value(sx.tolist(), sy.tolist(), args.permutations, 0):.6f}")
        return
    recorder = Recorder.from_args(__file__, args)
    if args.whole_process:
        whole_process(args, recorder)
        return

    from genderscope.stats import difference_of_sums_test

    test, sx, sy, (x, y, a, b) = _scores(args.test)
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
