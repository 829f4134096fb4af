"""Benchmark (issue 28): genderscope vs WEFE 1.0.1 on the full GloVe 6B 50d (400,000
words): Hard Debias of the whole vocabulary, and RIPA, RND, ECT, MAC, RNSB of WEAT 6.

WEFE runs in its own venv (tests/wefe_env.py) in a subprocess, on the same vectors
written once as word2vec binary; genderscope runs in this process. Each side times its
own calls inside its process, after imports and loading, and reports its peak resident
memory (``ru_maxrss``, the whole process: vectors included). The two sides alternate:
``--rounds`` blocks of WEFE's ``--repeats`` samples then ours, each side's samples
pooled (median), so a change in the machine's load falls on both.

Same work on both sides: each metric's compared time is one call that looks the test's
words up in the 400k vocabulary and computes the point estimate -- WEFE's
``run_query`` (for RIPA, RND and ECT, which genderscope reports for both attribute sets
A and B, two queries timed together), genderscope's metric function with
``n_resamples=0`` (RIPA and RND: ``n_permutations=0``, no test). The
Query objects are built outside WEFE's timing, as the AssociationTest is outside ours.
The time of the full genderscope call (bootstrap CI of 10,000 resamples, RNSB 1,000
classifier refits, and the tests) is recorded beside it. Hard Debias: the same output on
both sides (tests/agreement/test_wefe_agreement.py).

    flock /tmp/gs-heavy.lock python benchmarks/bench_wefe.py [--repeats 3] [--rounds 2] [--record]
        [--whole-process [--cases ect,hard]]

``--whole-process``: instead, each row's two ways as whole processes timed from outside,
python start to exit (median of ``--repeats``, the two alternating): WEFE's side is
benchmarks/wefe_user_script.py run with WEFE's venv python (gensim loads GloVe 6B 50d
from its own format, written once beforehand; WEFE's WEAT 6 sets; the metric, or
HardDebias with the debiased vectors saved; the result printed); ours is
``genderscope run <metric> --vectors glove-6b-50d --test weat6 --out DIR`` or
``genderscope debias hard --vectors glove-6b-50d --out DIR`` as a user types it (console
script, fresh store through ``$GENDERSCOPE_STORE`` and fresh ``--out`` each repeat, the
table on the terminal). The CLI does more than WEFE's script (bootstrap CIs, tests,
files; Hard Debias: the before/after measures), which each record names. The two
sides' estimates (Hard Debias: vectors) are compared; record cases
``<metric>-whole-process`` and ``hard-whole-process``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchrecord import REPO, Recorder, add_record_options, genderscope_command, timed_process

sys.path.insert(0, str(REPO))

METRICS = ("ripa", "rnd", "ect", "mac", "rnsb")


INNER = 20
"""A point estimate takes about a millisecond or less: on both sides each timed sample of
it is the mean of INNER calls (the median of all samples is reported)."""


def samples(fn, repeats: int, per: int = 1) -> list[float]:  # noqa: ANN001
    """``repeats`` samples of the seconds of one call, each the mean of ``per`` calls."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(per):
            fn()
        times.append((time.perf_counter() - t0) / per)
    return times


def timed(fn, repeats: int, per: int = 1) -> float:  # noqa: ANN001
    """Median seconds of one call over ``repeats`` samples of ``per`` calls each."""
    return statistics.median(samples(fn, repeats, per))

USER_SCRIPT = Path(__file__).with_name("wefe_user_script.py")
CLI_EXTRA = {
    "ripa": "also the bootstrap CI of 10,000 resamples and the exact sign-flip test (256 "
            "flips), for A and B",
    "rnd": "also the bootstrap CI of 10,000 resamples and the exact permutation test "
           "(12,870 partitions), for A and B",
    "ect": "also the bootstrap CI of 10,000 resamples, for A and B",
    "mac": "also the bootstrap CI of 10,000 resamples",
    "rnsb": "also the bootstrap CI of 1,000 classifier refits",
    "hard": "also WEAT, RIPA, RND, ECT and MAC of weat6, 7, 8 before and after with "
            "bootstrap CIs and paired tests, the analogy and cluster checks, debias.json",
}
"""What the CLI does beyond WEFE's script (both sides load, compute and print; the CLI
also writes items.csv/summary.json and its run to the store)."""


def _agreement(case: str, wefe_out: dict, ours: Path, wefe_bin: Path) -> list[dict]:
    """The two sides' difference: the estimates (max |ours - WEFE|) or, for Hard Debias,
    the vectors (min cosine, max |ours - WEFE| over the words both wrote)."""
    import numpy as np

    if case == "hard":
        from genderscope.models.vectors import load_vectors

        a, b = load_vectors(ours / "vectors.bin"), load_vectors(wefe_bin)
        words = [w for w in a.words if w in b]
        x, y = a.vectors(words).astype(np.float64), b.vectors(words).astype(np.float64)
        cos = np.einsum("ij,ij->i", x, y) / (np.linalg.norm(x, axis=1)
                                             * np.linalg.norm(y, axis=1) + 1e-300)
        return [{"name": "vectors compared", "value": len(words)},
                {"name": "1 - min cosine (ours, WEFE)", "value": float(1 - cos.min())},
                {"name": "max |ours - WEFE|", "value": float(np.abs(x - y).max())}]
    summary = json.loads((ours / "summary.json").read_text())["summary"]
    mine = ({"all": summary[case]["estimate"]} if case in ("mac", "rnsb") else
            {k: v["estimate"] for k, v in summary["attributes"].items()})
    if sorted(mine) != sorted(wefe_out):
        raise SystemExit(f"{case}: estimates of {sorted(mine)} vs WEFE's {sorted(wefe_out)}")
    diff = max(abs(mine[k] - wefe_out[k]) for k in mine)
    return [{"name": f"max |ours - WEFE| over {len(mine)} estimate"
                     + ("s" if len(mine) > 1 else ""), "value": diff}]


def whole_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """Each row's two ways as whole processes, python start to exit, timed from outside."""
    from genderscope.datasets.locations import find_benchmark
    from genderscope.models.vectors import load_vectors
    from genderscope.vector_debias import write_word2vec_binary
    from tests.wefe_env import wefe_python

    python, why = wefe_python()
    if python is None:
        sys.exit(f"WEFE unavailable: {why}")
    cases = [c for c in args.cases.split(",") if c]
    data, lists = find_benchmark("seat").resolve().parent, find_benchmark("debiaswe")
    work = Path(tempfile.mkdtemp(prefix="gs-bench-wefe-"))
    vecs = load_vectors("glove-6b-50d")  # GloVe in gensim's own format, for WEFE's script
    words = [w for w in vecs.words if w and not any(c.isspace() for c in w)]
    write_word2vec_binary(work / "glove.bin", words, vecs.vectors(words))
    n_words = len(vecs)
    del vecs
    kv = work / "glove.kv"
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    timed_process([str(python), "-c", "import sys; from gensim.models import KeyedVectors;"
                   " KeyedVectors.load_word2vec_format(sys.argv[1], binary=True)"
                   ".save(sys.argv[2])", str(work / "glove.bin"), str(kv)], base_env)
    (work / "glove.bin").unlink()
    env = dict(os.environ, COLUMNS="100", GENDERSCOPE_DATA=str(data))
    head = genderscope_command()
    typed = {c: (["debias", "hard", "--vectors", "glove-6b-50d"] if c == "hard" else
                 ["run", c, "--vectors", "glove-6b-50d", "--test", args.test]) for c in cases}
    wefe_t: dict[str, list[float]] = {c: [] for c in cases}
    cli_t: dict[str, list[float]] = {c: [] for c in cases}
    agree: dict[str, list[dict]] = {}
    for k in range(args.repeats):  # alternating, so a drift in load hits both
        for c in cases:
            res, out, deb = work / f"wefe-{c}.json", work / f"gs-{c}-{k}", work / "wefe.bin"
            extra = ["--lists", str(lists), "--out", str(deb)] if c == "hard" else []
            wefe_t[c].append(timed_process([str(python), str(USER_SCRIPT), str(kv), c, *extra,
                                            "--result", str(res)], base_env))
            cli_t[c].append(timed_process([*head, *typed[c], "--out", str(out)], dict(
                env, GENDERSCOPE_STORE=str(work / f"store-{c}-{k}.sqlite"))))
            if k == 0:
                agree[c] = _agreement(c, json.loads(res.read_text()), out, deb)
            shutil.rmtree(out, ignore_errors=True)
            print(f"repeat {k + 1} {c}: WEFE script {wefe_t[c][-1]:.2f} s, genderscope "
                  f"{cli_t[c][-1]:.2f} s; {agree[c]}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    for c in cases:
        wefe_s, cli_s = statistics.median(wefe_t[c]), statistics.median(cli_t[c])
        shown = " ".join([*typed[c], "--out", "DIR"])
        print(f"{c}: WEFE script {wefe_s:.2f} s, `genderscope {shown}` {cli_s:.2f} s: "
              f"{wefe_s / cli_s:.2f}x")
        what = (f"Hard Debias of GloVe 6B 50d ({n_words:,} words), debiased vectors saved"
                if c == "hard" else f"{c.upper()} of {args.test}"
                + (" (A and B)" if c in ("ripa", "rnd", "ect") else "")
                + f" on GloVe 6B 50d ({n_words:,} words)")
        base = ("HardDebias, vectors saved as word2vec binary" if c == "hard" else
                f"{c.upper()} run_query" + (" x2 (A, B)" if c in ("ripa", "rnd", "ect")
                                            else ""))
        recorder.write(
            case=f"{c}-whole-process", what=what,
            baseline=f"WEFE 1.0.1 user script (gensim loads GloVe from its own format; "
                     f"{base}; result printed), median of {args.repeats}",
            baseline_s=wefe_s,
            genderscope=f"`genderscope {shown}` ({CLI_EXTRA[c]}), median of {args.repeats}",
            genderscope_s=cli_s, device=args.device, extra=agree[c])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2,
                    help="alternating blocks of WEFE's then our samples, pooled")
    ap.add_argument("--test", default="weat6")
    ap.add_argument("--device", default="cpu", choices=["cpu"])
    ap.add_argument("--whole-process", action="store_true",
                    help="each way as a whole process, as typed (record cases "
                         "<metric>-whole-process, hard-whole-process)")
    ap.add_argument("--cases", default=",".join(("hard", *METRICS)),
                    help="--whole-process: the rows to measure (comma-separated)")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)
    if args.whole_process:
        whole_process(args, recorder)
        return

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
                            "attribute_sets": [[keys["A"]], [keys["B"]]], "seed": 0})
    with tempfile.TemporaryDirectory() as tmp:
        words = [w for w in vecs.words if w and not any(c.isspace() for c in w)]
        path = write_word2vec_binary(Path(tmp) / "glove.bin", words, vecs.vectors(words))
        spec = {"vectors": str(path), "queries": queries, "repeat": args.repeats,
                "inner": INNER,
                "debias": [{"name": "hard", "method": "hard", "out": None,
                            "definitional": [list(p) for p in lists.definitional],
                            "equalize": [list(p) for p in lists.equalize],
                            "ignore": list(lists.gender_specific)}]}
        (Path(tmp) / "spec.json").write_text(json.dumps(spec))
        # like for like with WEFE: the estimate alone (no bootstrap; RND: no permutations)
        bare = {m: {"n_resamples": 0, **({"n_permutations": 0, "exact_limit": 0} if m == "rnd"
                                         else {"n_permutations": 0} if m == "ripa" else {})}
                for m in METRICS}
        for m in METRICS:
            FUNCS[m](vecs, test, **bare[m])  # warm: imports (scikit-learn for RNSB) not timed
        wefe_runs: dict[str, list[float]] = {}
        ours_runs: dict[str, list[float]] = {}
        wefe_rss = 0.0
        for _ in range(max(1, args.rounds)):  # WEFE's block, then ours, alternating
            run_reference(python, Path(tmp) / "spec.json", Path(tmp) / "out.json",
                          timeout=3600)
            ref = json.loads((Path(tmp) / "out.json").read_text())
            wefe_rss = max(wefe_rss, ref["max_rss_mib"])
            for k, v in ref["seconds"].items():
                wefe_runs.setdefault(k, []).extend(v)
            ours_runs.setdefault("hard", []).extend(
                samples(lambda: hard_debias(vecs, lists), args.repeats))
            for m in METRICS:
                ours_runs.setdefault(m, []).extend(
                    samples(lambda m=m: FUNCS[m](vecs, test, **bare[m]), args.repeats,
                            per=INNER))
    wefe_s = {k: statistics.median(v) for k, v in wefe_runs.items()}
    ours_s = {k: statistics.median(v) for k, v in ours_runs.items()}
    full_s = {m: timed(lambda m=m: FUNCS[m](vecs, test), args.repeats) for m in METRICS}
    ref["max_rss_mib"] = wefe_rss
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n_samples = args.repeats * max(1, args.rounds)
    print(f"{len(vecs):,} words x {vecs.dim}; median of {n_samples} ({args.rounds} "
          f"alternating rounds of {args.repeats}); peak RSS: "
          f"genderscope {rss:.0f} MiB, WEFE {ref['max_rss_mib']:.0f} MiB")
    print(f"{'':6} {'WEFE s':>10} {'genderscope s':>14} {'ratio':>8} {'with stats s':>13}")
    for k in ("hard", *METRICS):
        print(f"{k:6} {wefe_s[k]:10.6f} {ours_s[k]:14.6f} {wefe_s[k] / ours_s[k]:8.2f} "
              f"{full_s.get(k, float('nan')):13.4f}")
        what = (f"Hard Debias of GloVe 6B 50d ({len(vecs):,} words)" if k == "hard" else
                f"{k.upper()} of {test.name} (A and B) on GloVe 6B 50d ({len(vecs):,} "
                "words), point estimate incl. word look-up" if k in ("ripa", "rnd", "ect")
                else f"{k.upper()} of {test.name} on GloVe 6B 50d ({len(vecs):,} words), "
                "point estimate incl. word look-up")
        base = ("WEFE HardDebias 1.0.1" if k == "hard" else
                f"WEFE {k.upper()} 1.0.1 run_query" + (" x2 (A, B)" if k in ("ripa", "rnd",
                                                                             "ect") else ""))
        label = ("numpy, chunked" if k == "hard" else "estimate only (n_resamples=0)")
        recorder.write(what=what, baseline=base, baseline_s=wefe_s[k],
                       genderscope=f"{label}, median of {n_samples} ({args.rounds} "
                                   f"alternating rounds)",
                       genderscope_s=ours_s[k], device=args.device, case=k,
                       extra=[*([{"name": "with 95% CI" + (" + test" if k in ("ripa", "rnd")
                                                           else ""),
                                  "value": round(full_s[k], 4), "unit": "s"}]
                                if k in full_s else []),
                              {"name": "peak RSS", "value": round(rss), "unit": "MiB"},
                              {"name": "peak RSS", "value": round(ref["max_rss_mib"]),
                               "unit": "MiB", "side": "baseline"}])


if __name__ == "__main__":
    main()
