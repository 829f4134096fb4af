"""Benchmark (issue 29): scoring cost of a debiased model against the plain model on the
same inputs.

Scores the log-likelihood of the same CrowS-Pairs sentences (no store: every sentence is
computed) with the plain causal model and with its INLP, SentenceDebias and Self-Debias
folders; prints the median time of ``--repeats`` runs each and the ratio to the plain
model (target for the projections: <= 1.2x; Self-Debias runs one forward pass more per
prefix, so its cost is stated, not capped). Timed in-process: each model is loaded and
warmed up before the clock; records ``inlp``, ``sentence-debias``, ``self-debias``.

    flock /tmp/gs-heavy.lock python benchmarks/bench_debias_scoring.py [--model smollm2]
        [--sentences 300] [--repeats 3] [--work DIR] [--device cpu|cuda] [--record]
        [--whole-process [--limit 150]]

``--whole-process``: instead, each model as a whole process timed from outside, python
start to exit, as a user types it: ``genderscope run crows-pairs --model smollm2 --limit
N --out DIR`` (the plain model) against the same command with ``--model FOLDER``, FOLDER
being the technique's debias folder (``genderscope debias <technique> --model smollm2
--out FOLDER``). Each process gets a fresh store (``$GENDERSCOPE_STORE`` in a temporary
folder) and a fresh ``--out``, so nothing is cached; the table goes to the terminal (no
``--json``). The four commands alternate within each of ``--repeats`` rounds; medians.
The same seeded subset of N pairs on every side (checked from items.csv). Records
``<technique>-whole-process``.

The folders are those of ``benchmarks/debias_smollm2.py`` (``--work``) when they exist,
else made here with small settings (the cost of a projection does not depend on how it
was estimated).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

USER_ENV = dict(os.environ)  # what the whole-process children start from
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchrecord import Recorder, add_record_options, genderscope_command, timed_process  # noqa: E402

TECHS = ("inlp", "sentence-debias", "self-debias")


def debias_folders(model: str, work: Path) -> dict[str, Path]:
    """Each technique's debias folder under ``work``, made with small settings if absent."""
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.debias_folder import is_debias_folder

    folders = {}
    for tech in TECHS:
        folder = work / tech
        if not is_debias_folder(folder):
            folder = work / f"bench-{tech}"
            opts = {"inlp": {"limit": 100, "n_per_class": 50, "n_classifiers": 10},
                    "sentence-debias": {"limit": 100, "max_pairs": 100},
                    "self-debias": {}}[tech]
            debias_lm(tech, model, folder, overwrite=True, **opts)
        folders[tech] = folder
    return folders


def in_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """Each model loaded and warmed up, then the same sentences scored ``--repeats``
    times (no store)."""
    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.datasets.locations import find_benchmark
    from genderscope.models.loading import load_lm

    pairs = load_crows_pairs(find_benchmark("crows-pairs"))
    texts = list(dict.fromkeys(s for p in pairs for s in (p.sent_more, p.sent_less)))
    texts = texts[:args.sentences]
    folders = debias_folders(args.model, args.work)
    times: dict[str, float] = {}
    totals: dict[str, float] = {}
    for name in ("plain", *TECHS):
        lm = load_lm(args.model if name == "plain" else folders[name],
                     device=args.device)  # no store
        lm.log_likelihood(texts[:8])  # load and warm up
        runs = []
        for _ in range(args.repeats):
            lm._engine.n_forward = 0  # type: ignore[union-attr]
            t0 = time.perf_counter()
            scores = lm.log_likelihood(texts)
            runs.append(time.perf_counter() - t0)
        times[name] = statistics.median(runs)
        totals[name] = sum(s.total for s in scores)
        print(f"{name}: median {times[name]:.2f} s of {args.repeats} "
              f"({', '.join(f'{r:.2f}' for r in runs)}); sum LL {totals[name]:.1f}",
              flush=True)
    print(f"\n{len(texts)} distinct CrowS-Pairs sentences, model {args.model}")
    for tech in TECHS:
        print(f"{tech}: {times[tech] / times['plain']:.2f}x the plain model")
        recorder.write(what=f"log-likelihood of {len(texts)} CrowS-Pairs sentences, "
                       f"{args.model} debiased by {tech} (cost, lower is better)",
                       case=tech, baseline="plain model", baseline_s=times["plain"],
                       genderscope=f"{tech} model", genderscope_s=times[tech],
                       device=args.device,
                       extra=[{"name": "cost vs plain",
                               "value": round(times[tech] / times["plain"], 3)}])


def _pair_ids(out: Path) -> list[str]:
    import csv

    with (out / "items.csv").open(encoding="utf-8") as f:
        return sorted(row["pair_id"] for row in csv.DictReader(f))


def whole_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """The plain model and each debias folder through ``genderscope run crows-pairs`` as
    whole processes, python start to exit, timed from outside; alternating; medians."""
    from genderscope.datasets.locations import find_benchmark

    folders = debias_folders(args.model, args.work)
    work = Path(tempfile.mkdtemp(prefix="gs-bench-debias-"))
    env = dict(USER_ENV, COLUMNS="100", HF_HUB_OFFLINE="1",  # as docs/data.md tells a user
               GENDERSCOPE_DATA=str(find_benchmark("crows-pairs").resolve().parent))
    head = genderscope_command()
    device = ["--device", args.device] if args.device != "cpu" else []
    models = {"plain": args.model, **{t: str(f) for t, f in folders.items()}}
    runs: dict[str, list[float]] = {name: [] for name in models}
    items: dict[str, list[str]] = {}
    for k in range(args.repeats):  # alternating, so a drift in load hits every side
        for name, model in models.items():
            out = work / f"out-{name}-{k}"
            typed = ["run", "crows-pairs", "--model", model, "--limit", str(args.limit),
                     *device, "--out", str(out)]
            runs[name].append(timed_process([*head, *typed], dict(
                env, GENDERSCOPE_STORE=str(work / f"store-{name}-{k}.sqlite"))))
            ids = _pair_ids(out)
            if items.setdefault(name, ids) != ids or ids != items["plain"]:
                raise SystemExit(f"{name} scored other pairs than the plain model")
            shutil.rmtree(out, ignore_errors=True)
        print(f"repeat {k + 1}: " + ", ".join(f"{n} {runs[n][-1]:.2f} s" for n in models),
              flush=True)
    shutil.rmtree(work, ignore_errors=True)
    med = {name: statistics.median(r) for name, r in runs.items()}
    n = len(items["plain"])
    cmd = f"genderscope run crows-pairs --model {{}} --limit {args.limit}" + (
        f" --device {args.device}" if device else "") + " --out DIR"
    print(f"\nwhole processes, {n} CrowS-Pairs pairs, median of {args.repeats}:")
    print(f"plain `{cmd.format(args.model)}`: {med['plain']:.2f} s")
    for tech in TECHS:
        cost = med[tech] / med["plain"]
        print(f"{tech} `{cmd.format('FOLDER')}`: {med[tech]:.2f} s, {cost:.2f}x the plain "
              f"model's process")
        recorder.write(
            case=f"{tech}-whole-process",
            what=f"CrowS-Pairs, {n} pairs, {args.model} debiased by {tech} (FOLDER: "
                 f"`genderscope debias {tech} --model {args.model} --out FOLDER`), as "
                 "typed (cost, lower is better)",
            baseline=f"`{cmd.format(args.model)}`, median of {args.repeats}",
            baseline_s=med["plain"],
            genderscope=f"`{cmd.format('FOLDER')}`, median of {args.repeats}",
            genderscope_s=med[tech], device=args.device,
            extra=[{"name": "cost vs plain", "value": round(cost, 3)}])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--sentences", type=int, default=300, help="in-process: first N "
                    "distinct CrowS-Pairs sentences")
    ap.add_argument("--limit", type=int, default=150, help="--whole-process: the CLI's "
                    "seeded subset of N pairs (--limit N)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path.home() / ".cache" / "genderscope" /
                    "debias-smollm2")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (scoring only)")
    ap.add_argument("--whole-process", action="store_true",
                    help="each model as a whole process, as typed (records "
                         "<technique>-whole-process)")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)
    if args.whole_process:
        whole_process(args, recorder)
    else:
        in_process(args, recorder)


if __name__ == "__main__":
    main()
