"""Benchmark (issue 15): where a `genderscope run` spends its time besides the forward
pass, on a fresh store (first run) and on a warm one (cached rerun).

Cases (``--case``, repeatable; default all):

- ``bec-pro-tiny``: ``run bec-pro`` (EN, 5,400 rows) with a 2-layer random BERT and the
  real bert-base-uncased vocabulary (forward passes cost ~nothing);
- ``bec-pro-base``: the same with the bert-base shape (109.5M parameters);
- ``crows-smollm2``: ``run crows-pairs`` (1,508 pairs) on SmolLM2-135M (GGUF, packaged).

Each run is one whole process (``python -c "...main()"`` in a subprocess, timed from
outside), instrumented from inside with timers around: imports, model load
(``load_lm``), data generation/loading, scoring, statistics, saving (item files,
plot, store record); "other" is the rest (interpreter start, tables printed).
First run = the command as a user types it (the table on the terminal, no ``--json``) on
an empty store; rerun = that command with ``--json --no-progress`` on the warm store;
rerun as typed = the first run's command again on the warm store (target: within 1.2x of
the ``--json`` rerun). The record's row compares the two as-typed runs. Medians over
``--repeats``. Printed targets: rerun >= 10x faster than the first run (tiny BERT),
>= 20x (bert-base shape, SmolLM2); BEC-Pro EN generation <= 0.1 s; statistics of one
measure <= 0.5 s (their computation; the first import of scipy.stats, which a first run
pays inside its statistics phase once per process, is timed and printed beside it).

``--dtype-check`` (on by default with ``--device cuda``): max |delta score| of
bfloat16 (and float16 on CUDA) against float32 for BEC-Pro (association, bert-base
shape) and CrowS-Pairs (sentence log-likelihood, SmolLM2; decisions that flip).

    python benchmarks/bench_overhead.py [--device cpu|cuda] [--repeats 3] [--case ...]
        [--record]

Data: CrowS-Pairs from the folder ``genderscope.datasets.locations.find_benchmark``
finds (``$GENDERSCOPE_DATA``, else ``../shared/data`` beside the checkout:
benchrecord.use_shared_data); BEC-Pro is generated. ``--record`` writes one row per case
(first run vs warm-store rerun) to benchmarks/results/ for the speed table (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the timed child processes import nothing they do not need
    from benchrecord import Recorder

REPO = Path(__file__).resolve().parents[1]
CASES = ("bec-pro-tiny", "bec-pro-base", "crows-smollm2")
TARGET = {"bec-pro-tiny": 10.0, "bec-pro-base": 20.0, "crows-smollm2": 20.0}
PHASES = ("import", "load", "data", "scoring", "statistics", "saving", "other")


# -- child: one instrumented CLI run ------------------------------------------------------
WRAPPED = {  # module -> (class or None, function, phase) timed in the child
    "genderscope.models.loading": [(None, "load_lm", "load")],
    "genderscope.datasets.bec_pro": [(None, "generate", "data")],
    "genderscope.datasets.crows_pairs": [(None, "load_crows_pairs", "data")],
    "genderscope.measures.bec_pro": [(None, "score_rows", "scoring"),
                                     (None, "summarize", "statistics"),
                                     (None, "plot", "saving")],
    "genderscope.measures.crows_pairs": [(None, "score_pairs", "scoring"),
                                         (None, "summarise", "statistics"),
                                         (None, "per_bias_type", "statistics")],
    "genderscope.results": [("Result", "save", "saving")],
    "genderscope.store": [("Store", "record_run", "saving")],
}


IMPORT_TIMED = ("scipy.stats",)
"""Packages whose first import is timed on its own: scipy.stats is imported by the first
statistical test a measure runs, so it lands inside the statistics phase of a first run."""


def child(argv: list[str]) -> None:
    """One CLI run in this process, its phases timed. The timers are attached when a
    module is first imported (an import hook), so the benchmark imports nothing the
    command itself would not: a rerun that needs no measure code stays as light as it
    is without the benchmark."""
    import importlib.abc
    import importlib.machinery

    t_start = time.perf_counter()
    spent = dict.fromkeys(PHASES, 0.0)
    imports: dict[str, float] = {}  # "<package> in <phase>" -> seconds of its first import
    current = ["other"]

    def timed(owner: object, name: str, phase: str) -> None:
        real = getattr(owner, name)

        def wrapper(*a, **k):
            t = time.perf_counter()
            current.append(phase)
            try:
                return real(*a, **k)
            finally:
                current.pop()
                spent[phase] += time.perf_counter() - t
        setattr(owner, name, wrapper)

    class TimeOnImport(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):  # noqa: ANN001, ANN201
            if name not in WRAPPED and name not in IMPORT_TIMED:
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            run_module = spec.loader.exec_module

            def exec_module(module):  # noqa: ANN001, ANN202
                t = time.perf_counter()
                run_module(module)
                if name in IMPORT_TIMED:
                    imports[f"{name} in {current[-1]}"] = time.perf_counter() - t
                for cls, fn, phase in WRAPPED.get(name, ()):
                    timed(getattr(module, cls) if cls else module, fn, phase)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, TimeOnImport())
    from genderscope.cli.app import main

    spent["import"] = time.perf_counter() - t_start

    sys.argv = ["genderscope", *argv]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    total = time.perf_counter() - t_start
    spent["other"] = total - sum(v for k, v in spent.items() if k != "other")
    print("BENCH " + json.dumps({
        "code": code, "phases": spent, "inside_s": total, "imports": imports,
        "peak_rss_mb": _peak_rss_mb(),
        "torch_imported": "torch" in sys.modules}))


def _peak_rss_mb() -> float:
    """This process's peak resident memory: VmHWM (Linux; ru_maxrss would carry the
    parent's peak across fork + exec), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- parent -------------------------------------------------------------------------------
def _run(argv: list[str], env: dict[str, str], cwd: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--", *argv]
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    wall = time.perf_counter() - t
    line = [x for x in done.stdout.splitlines() if x.startswith("BENCH ")]
    if done.returncode != 0 or not line:
        raise SystemExit(f"failed: {' '.join(argv)}\n{done.stderr[-3000:]}")
    res = json.loads(line[-1][len("BENCH "):])
    if res["code"] != 0:
        raise SystemExit(f"genderscope exited {res['code']}: {done.stderr[-3000:]}")
    res["process_s"] = wall
    return res


def _model(case: str, work: Path) -> str:
    if case == "crows-smollm2":
        return "smollm2"
    size = "tiny" if case.endswith("tiny") else "base"
    folder = work / f"bert-{size}-random"
    if not (folder / "config.json").is_file():
        from genderscope.models.testing import build_bert

        build_bert(folder, size=size, seed=0)
    return str(folder)


def _argv(case: str, model: str, store: Path, out: Path, device: str,
          crows_limit: int | None = None) -> list[str]:
    if case.startswith("bec-pro"):
        return ["run", "bec-pro", "--model", model, "--lang", "en", "--store", str(store),
                "--out", str(out), "--no-progress", "--json", "--device", device]
    return ["run", "crows-pairs", "--model", model, "--data", str(_data_root()), "--store",
            str(store), "--out", str(out), "--no-progress", "--json", "--device", device,
            *(["--limit", str(crows_limit)] if crows_limit else [])]


def _data_root() -> Path:
    """The folder holding crows-pairs/, absolute (the runs start in --work)."""
    from genderscope.datasets.locations import find_benchmark

    return find_benchmark("crows-pairs").resolve().parent


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _phase(runs: list[dict], p: str) -> float:
    return statistics.median(r["phases"][p] for r in runs)


def bench_case(case: str, args: argparse.Namespace, env: dict[str, str]) -> dict:
    model = _model(case, args.work)
    first, again, typed = [], [], []
    for k in range(args.repeats):
        store = args.work / f"{case}-{k}.sqlite"
        for p in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
            p.unlink(missing_ok=True)
        argv = _argv(case, model, store, args.work / f"{case}-out", args.device,
                     args.crows_limit)
        as_typed = [a for a in argv if a not in ("--json", "--no-progress")]
        first.append(_run(as_typed, env, args.work))  # as a user types it: the table
        again.append(_run(argv, env, args.work))  # warm store, --json --no-progress
        typed.append(_run(as_typed, env, args.work))  # the first command again
    return {"case": case, "first": first, "again": again, "typed": typed}


def _statistics_split(runs: list[dict]) -> tuple[float, float]:
    """Medians of (scipy.stats' first import inside the statistics phase, the rest of
    that phase: the statistics' computation)."""
    key = "scipy.stats in statistics"
    return (statistics.median(r["imports"].get(key, 0.0) for r in runs),
            statistics.median(r["phases"]["statistics"] - r["imports"].get(key, 0.0)
                              for r in runs))


def report(res: dict) -> list[str]:
    lines = []
    for label in ("first", "again"):
        runs = res[label]
        cells = "".join(f"{_phase(runs, p):9.2f}" for p in PHASES)
        lines.append(f"{res['case']:14s} {'first run' if label == 'first' else 'rerun':9s} "
                     f"{_median(runs, 'process_s'):9.2f}{cells}"
                     f"{_median(runs, 'peak_rss_mb'):9.0f}  "
                     f"{'yes' if all(r['torch_imported'] for r in runs) else 'no'}")
    ratio = _median(res["first"], "process_s") / _median(res["again"], "process_s")
    target = TARGET[res["case"]]
    lines.append(f"  -> warm-store rerun {ratio:.1f}x faster than the first run (target >= "
                 f"{target:.0f}x): {'PASS' if ratio >= target else 'FAIL'}")
    typed_s = _median(res["typed"], "process_s")
    slower = typed_s / _median(res["again"], "process_s")
    lines.append(f"  -> rerun as typed (table, no --json) {typed_s:.2f} s, peak RSS "
                 f"{_median(res['typed'], 'peak_rss_mb'):.0f} MB: {slower:.2f}x the --json "
                 f"rerun (target <= 1.2x): {'PASS' if slower <= 1.2 else 'FAIL'}; "
                 f"{_median(res['first'], 'process_s') / typed_s:.1f}x faster than the "
                 "first run")
    stats_s = _phase(res["first"], "statistics")
    scipy_s, computing = _statistics_split(res["first"])
    lines.append(f"  -> statistics {stats_s:.2f} s: importing scipy.stats {scipy_s:.2f} s "
                 f"(once per process) + computing {computing:.2f} s (target <= 0.5 s): "
                 f"{'PASS' if computing <= 0.5 else 'FAIL'}")
    if res["case"].startswith("bec-pro"):
        gen = _phase(res["first"], "data")
        lines.append(f"  -> BEC-Pro EN generation {gen:.3f} s (target <= 0.1 s): "
                     f"{'PASS' if gen <= 0.1 else 'FAIL'}")
    return lines


def markdown(results: list[dict], args: argparse.Namespace, header: str) -> str:
    """The figures as a Markdown table (for docs/performance.md)."""
    rows = [header, "", "| case | run | process s | " + " | ".join(PHASES) +
            " | peak RSS MB | torch imported |", "|---|---|" + "---|" * (len(PHASES) + 3)]
    for res in results:
        for label in ("first", "again"):
            runs = res[label]
            rows.append(f"| {res['case']} | {'first run' if label == 'first' else 'rerun'} | "
                        f"{_median(runs, 'process_s'):.2f} | "
                        + " | ".join(f"{_phase(runs, p):.2f}" for p in PHASES)
                        + f" | {_median(runs, 'peak_rss_mb'):.0f} | "
                        f"{'yes' if all(r['torch_imported'] for r in runs) else 'no'} |")
    rows.append("")
    for res in results:
        ratio = _median(res["first"], "process_s") / _median(res["again"], "process_s")
        scipy_s, computing = _statistics_split(res["first"])
        rows.append(f"- {res['case']}: warm-store rerun **{ratio:.1f}x** faster than the first "
                    f"run (target >= {TARGET[res['case']]:.0f}x); first-run statistics "
                    f"computed in {computing:.2f} s, plus {scipy_s:.2f} s importing "
                    "scipy.stats")
    return "\n".join(rows) + "\n"


WHAT = {"bec-pro-tiny": "warm-store rerun of `run bec-pro` (EN, 5,400 rows), tiny BERT",
        "bec-pro-base": "warm-store rerun of `run bec-pro` (EN, 5,400 rows), bert-base shape",
        "crows-smollm2": "warm-store rerun of `run crows-pairs`, SmolLM2"}


def record(recorder: Recorder, res: dict, args: argparse.Namespace) -> None:
    """One record per case: the command as typed on a fresh store vs the same command on
    the warm one; the ``--json --no-progress`` rerun beside it."""
    what = WHAT[res["case"]]
    if res["case"] == "crows-smollm2":
        what += f" ({args.crows_limit}-pair subset)" if args.crows_limit else " (1,508 pairs)"
    torch_again = any(r["torch_imported"] for r in res["again"])
    scipy_s, computing = _statistics_split(res["first"])
    typed_s = _median(res["typed"], "process_s")
    json_s = _median(res["again"], "process_s")
    recorder.write(
        case=res["case"], what=what, baseline="first run (fresh store)",
        baseline_s=_median(res["first"], "process_s"),
        genderscope="the same command again" + ("" if torch_again else
                                                ", no torch, no model")
                    + f" (median of {args.repeats})",
        genderscope_s=typed_s, device=args.device,
        extra=[{"name": "peak RSS", "value": _median(res["first"], "peak_rss_mb"),
                "unit": "MB", "side": "baseline"},
               {"name": "peak RSS", "value": _median(res["typed"], "peak_rss_mb"),
                "unit": "MB"},
               {"name": "target", "value": f">= {TARGET[res['case']]:.0f}x"},
               {"name": "rerun with --json --no-progress", "value": json_s, "unit": "s"},
               {"name": "its peak RSS", "value": _median(res["again"], "peak_rss_mb"),
                "unit": "MB"},
               {"name": "as typed / --json", "value": f"{typed_s / json_s:.2f}x "
                "(target <= 1.2x)"},
               {"name": "first run: statistics computed in", "value": computing, "unit": "s",
                "side": "baseline"},
               {"name": "first run: scipy.stats import", "value": scipy_s, "unit": "s",
                "side": "baseline"}])


def dtype_check(args: argparse.Namespace) -> list[str]:
    """max |delta| of half-precision scores against float32, in process."""
    import numpy as np

    from genderscope.datasets.bec_pro import generate
    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.measures.bec_pro import score_rows
    from genderscope.measures.crows_pairs import score_pairs
    from genderscope.models.loading import load_lm

    dtypes = ["bfloat16"] + (["float16"] if args.device.startswith("cuda") else [])
    lines = []
    rows = generate("en")
    bert = _model("bec-pro-base", args.work)
    ref = score_rows(load_lm(bert, device=args.device), rows)["association"].to_numpy()
    for dt in dtypes:
        got = score_rows(load_lm(bert, device=args.device, dtype=dt), rows)["association"]
        d = np.abs(got.to_numpy() - ref)
        lines.append(f"BEC-Pro EN association, bert-base shape, {dt} vs float32: max |delta| "
                     f"{d.max():.3g} nats, median {np.median(d):.3g} (5,400 rows)")
    pairs = load_crows_pairs(_data_root() / "crows-pairs")[:args.crows_limit or None]
    texts = [(p.sent_more, p.sent_less) for p in pairs]
    lm = load_lm("smollm2", device=args.device)
    more, less, _ = score_pairs(lm, texts)
    for dt in dtypes:
        m2, l2, _ = score_pairs(load_lm("smollm2", device=args.device, dtype=dt), texts)
        d = np.abs(np.concatenate([m2 - more, l2 - less]))
        flips = int(np.sum((np.round(more, 3) > np.round(less, 3)) !=
                           (np.round(m2, 3) > np.round(l2, 3))))
        lines.append(f"CrowS-Pairs sentence log-likelihood, SmolLM2, {dt} vs float32: max "
                     f"|delta| {d.max():.3g} nats, median {np.median(d):.3g}; decisions "
                     f"flipped {flips} of {len(pairs)} pairs")
    return lines


def main() -> None:
    if "--child" in sys.argv:
        child(sys.argv[sys.argv.index("--") + 1:])
        return
    from benchrecord import Recorder, add_record_options

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (passed to every run)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per case (median reported)")
    ap.add_argument("--case", action="append", choices=CASES, default=None)
    ap.add_argument("--work", type=Path,
                    default=Path(tempfile.gettempdir()) / "genderscope-bench-overhead")
    ap.add_argument("--dtype-check", action=argparse.BooleanOptionalAction, default=None,
                    help="half precision vs float32 (default: on with --device cuda)")
    ap.add_argument("--markdown", type=Path, default=None,
                    help="also write the figures as a Markdown table to this file")
    ap.add_argument("--crows-limit", type=int, default=None,
                    help="CrowS-Pairs on a seeded subset of N pairs (the CLI's --limit; "
                         "--dtype-check: the first N pairs)")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    args.work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), TOKENIZERS_PARALLELISM="false")
    load0 = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    results = [bench_case(c, args, env) for c in (args.case or CASES)]
    head = f"{'case':14s} {'run':9s} {'process':>9s}" + "".join(f"{p:>9s}" for p in PHASES) \
        + f"{'peak MB':>9s}  torch"
    header = (f"device {args.device}; {args.repeats} repeats (medians, seconds); started "
              f"{started}; load average at start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    print(header)
    print(head)
    for res in results:
        print("\n".join(report(res)))
    dtype_lines: list[str] = []
    if args.dtype_check or (args.dtype_check is None and args.device.startswith("cuda")):
        dtype_lines = dtype_check(args)
        print("\n".join(dtype_lines))
    for res in results:
        record(recorder, res, args)
    load1 = os.getloadavg()
    print(f"load average at end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    if args.markdown is not None:
        text = markdown(results, args, header + f"; load average at end "
                        f"{load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
        args.markdown.write_text(text + "".join(f"- {line}\n" for line in dtype_lines))


if __name__ == "__main__":
    main()
