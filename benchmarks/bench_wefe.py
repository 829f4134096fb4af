"""Benchmark (issue 28): genderscope vs WEFE 1.0.1 on the full GloVe 6B 50d (400,000
words): Hard Debias of the whole vocabulary, and RIPA, RND, ECT, MAC, RNSB of WEAT 6.

WEFE runs in its own venv (tests/wefe_env.py) in a subprocess, on the same vectors
written once as word2vec binary; genderscope runs in this process. Each side times its
own calls inside its process, after imports and loading (median of ``--repeats``), and
reports its peak resident memory (``ru_maxrss``, the whole process: vectors included).
What each side computes: WEFE a point estimate per metric; genderscope the estimate
*with* its bootstrap CI (10,000 resamples; RNSB 1,000 classifier refits) and, for RIPA
and RND, the test -- so a metric row compares unlike work, said in its label. Hard
Debias: the same output on both sides (tests/test_wefe_agreement.py).

    flock /tmp/gs-heavy.lock python benchmarks/bench_wefe.py [--repeats 3] [--record]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchrecord import REPO, Recorder, add_record_options

sys.path.insert(0, str(REPO))

METRICS = ("ripa", "rnd", "ect", "mac", "rnsb")


def timed(fn, repeats: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--test", default="weat6")
    ap.add_argument("--device", default="cpu", choices=["cpu"])
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)

    from genderscope.datasets.locations import find_benchmark
    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.embedding_metrics import METRICS as FUNCS
    from genderscope.measures.embedding_metrics._sets import look_up
    from genderscope.measures.embedding_metrics.ripa import word_pairs
    from genderscope.models.vectors import load_vectors
    from genderscope.vector_debias import hard_debias, load_lists, write_word2vec_binary
    from tests.wefe_env import run_reference, wefe_python

    python, why = wefe_python()
    if python is None:
        sys.exit(f"WEFE unavailable: {why}")
    vecs = load_vectors("glove-6b-50d")
    _ = vecs.matrix  # parse now: loading is not timed
    test = resolve_test(args.test, find_benchmark("seat") / "tests")
    lists = load_lists()
    keys = look_up(vecs, test).keys
    pairs, _ = word_pairs(vecs, test, case_fallback=True)
    queries = []
    for m in METRICS:
        if m in ("mac", "rnsb"):
            queries.append({"name": m, "metric": m, "targets": [keys["X"], keys["Y"]],
                            "attributes": [keys["A"], keys["B"]], "seed": 0})
        else:
            tg = ([[p[0] for p in pairs], [p[1] for p in pairs]] if m == "ripa"
                  else [keys["X"], keys["Y"]])
            queries.append({"name": m, "metric": m, "targets": tg,
                            "attributes": [keys["A"]], "seed": 0})
    with tempfile.TemporaryDirectory() as tmp:
        words = [w for w in vecs.words if w and not any(c.isspace() for c in w)]
        path = write_word2vec_binary(Path(tmp) / "glove.bin", words, vecs.vectors(words))
        spec = {"vectors": str(path), "queries": queries, "repeat": args.repeats,
                "debias": [{"name": "hard", "method": "hard", "out": None,
                            "definitional": [list(p) for p in lists.definitional],
                            "equalize": [list(p) for p in lists.equalize],
                            "ignore": list(lists.gender_specific)}]}
        (Path(tmp) / "spec.json").write_text(json.dumps(spec))
        run_reference(python, Path(tmp) / "spec.json", Path(tmp) / "out.json", timeout=3600)
        ref = json.loads((Path(tmp) / "out.json").read_text())
    wefe_s = {k: statistics.median(v) for k, v in ref["seconds"].items()}
    ours_s = {"hard": timed(lambda: hard_debias(vecs, lists), args.repeats)}
    point_s = {}
    for m in METRICS:
        ours_s[m] = timed(lambda m=m: FUNCS[m](vecs, test), args.repeats)
        # like for like with WEFE: the estimate alone (no bootstrap; RND: no permutations)
        bare = {"n_resamples": 0, **({"n_permutations": 0, "exact_limit": 0} if m == "rnd"
                                     else {})}
        point_s[m] = timed(lambda m=m, bare=bare: FUNCS[m](vecs, test, **bare), args.repeats)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(vecs):,} words x {vecs.dim}; median of {args.repeats}; peak RSS: "
          f"genderscope {rss:.0f} MiB, WEFE {ref['max_rss_mib']:.0f} MiB")
    print(f"{'':6} {'WEFE s':>10} {'genderscope s':>14} {'ratio':>8} {'estimate only s':>16}")
    for k in ("hard", *METRICS):
        print(f"{k:6} {wefe_s[k]:10.4f} {ours_s[k]:14.4f} {wefe_s[k] / ours_s[k]:8.2f} "
              f"{point_s.get(k, float('nan')):16.4f}")
        what = (f"Hard Debias of GloVe 6B 50d ({len(vecs):,} words)" if k == "hard" else
                f"{k.upper()} of {test.name} on GloVe 6B 50d ({len(vecs):,} words)")
        label = ("numpy, chunked" if k == "hard" else
                 "estimate + 95% bootstrap CI" + (" + test" if k in ("ripa", "rnd") else ""))
        recorder.write(what=what, baseline=f"WEFE {'HardDebias' if k == 'hard' else k.upper()}"
                       " 1.0.1 (point estimate)" if k != "hard" else "WEFE HardDebias 1.0.1",
                       baseline_s=wefe_s[k], genderscope=f"{label}, median of {args.repeats}",
                       genderscope_s=ours_s[k], device=args.device, case=k,
                       extra=[*([{"name": "estimate only", "value": round(point_s[k], 4),
                                  "unit": "s"}] if k in point_s else []),
                              {"name": "peak RSS", "value": round(rss), "unit": "MiB"},
                              {"name": "peak RSS", "value": round(ref["max_rss_mib"]),
                               "unit": "MiB", "side": "baseline"}])


if __name__ == "__main__":
    main()
