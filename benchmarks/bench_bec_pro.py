"""Benchmark: BEC-Pro EN end to end, the seed notebook's way vs ``genderscope run bec-pro``.

Model: bert-base-shaped BertForMaskedLM with seeded random weights and the real
bert-base-uncased vocabulary (``genderscope.models.testing.build_bert(size="base")``,
see docs/models.md); probabilities are meaningless, compute cost is real.

- seed way: for each of the 5,400 rows of the published BEC-Pro_EN.tsv,
  ``pipeline("fill-mask", targets=person)`` on Sent_TM and on Sent_TAM (score of
  the first mask = the person's), association = log p_TM - log p_TAM.
- plain script (the floor, for reference): the same quantity as the seed way, once per
  distinct Sent_TM/Sent_TAM sentence, in length-sorted batches; no genderscope, no
  saving, no statistics. genderscope scores more sequences than this: a multi-piece
  person word is scored piece by piece (l2r), not by its first piece.
- bare torch script (the floor of genderscope's forward passes): torch and transformers
  only, the distinct inputs genderscope runs (planned beforehand with the tokenizer, read
  from a JSON file), batches of 64, the output head only at the masked positions.
- genderscope: ``genderscope run bec-pro --model <folder> --lang en`` in process
  (model load, generation, scoring with a fresh store, bootstrap CIs, paired tests,
  plot, saving and recording), default options (span_masking="piece"). Every way
  imports its libraries (torch and transformers included) before the clock starts.
- whole processes: the seed script and ``genderscope run bec-pro`` as a user types it
  (console script, table on the terminal, no ``--json``), each timed from outside from
  python start to exit (a second record, case ``whole-process``; the seed's start-up is
  counted once, its rows scaled to 5,400 as above).

Each way runs in its own subprocess (peak RSS per way). Max |delta association|
is taken over the rows where both define the same quantity: a single-wordpiece
person word (the pipeline scores only the first piece of a target), a published
row with correct masks (not the 23 mis-masked rows), and a profession with as
many wordpieces as words (so one mask per piece == the published one per word).

Run (on an otherwise idle machine):  python benchmarks/bench_bec_pro.py
Options: --data-dir (the folder holding bec-pro/; default: the one
``genderscope.datasets.locations.find_benchmark`` finds, ``$GENDERSCOPE_DATA`` first),
--work (model + outputs folder), --rows N (seed way on the first N rows only, scaled
to 5,400), --size tiny (smoke test), --device cpu|cuda (every way), --repeats N (each
way N times, alternating; medians), --record (write the row to benchmarks/results/ for
the speed table in docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchrecord import Recorder, add_record_options, genderscope_command

REPO = Path(__file__).resolve().parents[1]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def seed_way(model_dir: Path, tsv: Path, out: Path, n_rows: int | None, device: str) -> dict:
    import numpy as np
    import pandas as pd
    from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir)
    fill = pipeline("fill-mask", model=model, tokenizer=tok, device=device)
    df = pd.read_csv(tsv, sep="\t", index_col=0, keep_default_na=False)
    if n_rows:
        df = df.iloc[:n_rows]

    def first_mask_score(text: str, person: str) -> float:
        res = fill(text, targets=[person])
        first = res[0] if isinstance(res[0], list) else res
        return float(first[0]["score"])

    assoc = []
    for _, r in df.iterrows():
        p_tm = first_mask_score(r.Sent_TM, r.Person)
        p_tam = first_mask_score(r.Sent_TAM, r.Person)
        assoc.append(np.log(p_tm) - np.log(p_tam))
    seconds = time.perf_counter() - t0
    pd.DataFrame({"row": df.index, "association": assoc}).to_csv(out, index=False)
    return {"seconds": seconds, "peak_rss_mb": _peak_mb(), "rows": len(df)}


def plain_way(model_dir: Path, tsv: Path, device: str) -> dict:
    """The floor: a plain script that scores the seed's quantity (the first mask's
    probability of the person's first word piece, Sent_TM and Sent_TAM) once per
    distinct sentence, in length-sorted batches of 64, without genderscope."""
    import pandas as pd
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).to(device).eval()
    df = pd.read_csv(tsv, sep="\t", index_col=0, keep_default_na=False)
    texts = sorted(set(df.Sent_TM) | set(df.Sent_TAM), key=len)
    first_mask_logprobs: dict[str, torch.Tensor] = {}
    with torch.inference_mode():
        for i in range(0, len(texts), 64):
            batch = texts[i:i + 64]
            enc = tok(batch, return_tensors="pt", padding=True).to(device)
            logits = model(**enc).logits
            pos = (enc["input_ids"] == tok.mask_token_id).int().argmax(dim=1)
            rows = logits[torch.arange(len(batch), device=device), pos].log_softmax(-1).cpu()
            first_mask_logprobs.update(zip(batch, rows, strict=True))
    ids = {p: tok.convert_tokens_to_ids(tok.tokenize(p)[0]) for p in set(df.Person)}
    assoc = [float(first_mask_logprobs[tm][ids[p]] - first_mask_logprobs[tam][ids[p]])
             for tm, tam, p in zip(df.Sent_TM, df.Sent_TAM, df.Person, strict=True)]
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "peak_rss_mb": _peak_mb(), "sentences": len(texts),
            "rows": len(assoc)}


def bare_inputs(model_dir: Path, out: Path) -> int:
    """Write the distinct inputs genderscope runs for BEC-Pro EN (token ids, planned with
    the tokenizer only) to ``out`` as JSON; returns their number."""
    from transformers import AutoTokenizer

    from genderscope.datasets.bec_pro import generate
    from genderscope.models.base import FillQuery
    from genderscope.models.masked import MaskedLM

    class Planner(MaskedLM):  # the input planning of MaskedLM, with a bare tokenizer
        tokenizer = None

    planner = Planner.__new__(Planner)
    planner.tokenizer = AutoTokenizer.from_pretrained(model_dir)
    rows = generate("en")
    queries = [FillQuery(r.tm_template(), r.person) for r in rows]
    queries += [FillQuery(r.tam_template(), r.person) for r in rows]
    inputs = sorted({req.input_ids for q in queries
                     for req in planner._plan_fill(q, "l2r", "piece")}, key=len)
    out.write_text(json.dumps(inputs))
    return len(inputs)


def bare_way(model_dir: Path, inputs_file: Path, device: str) -> dict:
    """The memory and time floor of genderscope's forward passes: torch and transformers
    only, the same distinct inputs, length-sorted batches of 64, the output head only at
    the masked positions; nothing saved, no statistics."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    inputs = [tuple(x) for x in json.loads(inputs_file.read_text())]
    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).to(device).eval()
    with torch.inference_mode():
        for i in range(0, len(inputs), 64):
            batch = inputs[i:i + 64]
            ids = torch.full((len(batch), max(map(len, batch))), tok.pad_token_id)
            for j, seq in enumerate(batch):
                ids[j, :len(seq)] = torch.tensor(seq)
            ids = ids.to(device)
            hidden = model.bert(input_ids=ids, attention_mask=(ids != tok.pad_token_id))[0]
            model.cls(hidden[ids == tok.mask_token_id]).log_softmax(-1).cpu()
    return {"seconds": time.perf_counter() - t0, "peak_rss_mb": _peak_mb(),
            "sequences": len(inputs)}


def engine_way(model_dir: Path, out_dir: Path, device: str) -> dict:
    # The libraries are imported before the clock starts, as in the seed way and the
    # plain script: torch and transformers too (genderscope imports them only when it
    # loads a model, so without this its clock alone would pay their ~3 s).
    import torch  # noqa: F401
    from transformers import AutoModelForMaskedLM, AutoTokenizer  # noqa: F401
    from typer.testing import CliRunner

    import genderscope.measures.bec_pro  # noqa: F401
    import genderscope.models.loading  # noqa: F401
    import genderscope.models.masked  # noqa: F401
    from genderscope.cli.app import app

    store = out_dir / "bench-store.sqlite"
    if store.exists():
        store.unlink()
    t0 = time.perf_counter()
    res = CliRunner().invoke(app, ["run", "bec-pro", "--model", str(model_dir), "--lang", "en",
                                   "--out", str(out_dir / "genderscope"), "--store", str(store),
                                   "--no-progress", "--json", "--device", device])
    seconds = time.perf_counter() - t0
    if res.exit_code != 0:
        raise SystemExit(f"genderscope run failed: {res.output}\n{res.exception!r}")
    return {"seconds": seconds, "peak_rss_mb": _peak_mb()}


def _child(mode: str, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--child", mode, "--work", str(args.work),
           "--data-dir", str(args.data_dir)]
    if args.rows:
        cmd += ["--rows", str(args.rows)]
    cmd += ["--size", args.size, "--device", args.device]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    res = json.loads(done.stdout.strip().splitlines()[-1])
    res["process_s"] = wall  # python start to exit, timed from outside
    return res


def cli_way(model_dir: Path, out_dir: Path, device: str) -> dict:
    """``genderscope run bec-pro`` as a user types it (the console script, the table on
    the terminal, no ``--json``), timed from outside: python start, imports, model load,
    scoring, statistics, plot, saving, exit."""
    head = genderscope_command()
    store = out_dir / "bench-store-cli.sqlite"
    for p in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
        p.unlink(missing_ok=True)
    shutil.rmtree(out_dir / "genderscope-cli", ignore_errors=True)  # the bench's own folder
    cmd = [*head, "run", "bec-pro", "--model", str(model_dir), "--lang", "en", "--out",
           str(out_dir / "genderscope-cli"), "--store", str(store),
           "--device", device]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env=dict(os.environ, COLUMNS="100"))
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"genderscope run failed:\n{done.stderr[-3000:]}")
    return {"seconds": wall, "process_s": wall}


def _median_run(runs: list[dict]) -> dict:
    """The run with the median time (the lower middle one of an even count): its
    seconds and its own peak RSS."""
    return sorted(runs, key=lambda r: r["seconds"])[(len(runs) - 1) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="folder holding bec-pro/ (default: find_benchmark's lookup)")
    ap.add_argument("--work", type=Path,
                    default=Path(tempfile.gettempdir()) / "genderscope-bench-bec-pro")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--size", choices=["base", "tiny"], default="base",
                    help="tiny: a 2-layer model, to smoke-test this script")
    ap.add_argument("--reuse-seed", action="store_true",
                    help="reuse seed.json/seed.csv of an earlier run (the seed way takes ~14 min)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (every way)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs of each way, alternating (the median run is reported)")
    ap.add_argument("--child", choices=["seed", "engine", "plain", "bare"], default=None)
    add_record_options(ap)
    args = ap.parse_args()
    if args.child is None:  # the children get the resolved folder
        if str(REPO / "src") not in sys.path:
            sys.path.insert(0, str(REPO / "src"))
        from genderscope.datasets.locations import find_benchmark

        roots = [args.data_dir] if args.data_dir is not None else None
        args.data_dir = find_benchmark("bec-pro", roots).resolve().parent
    model_dir = args.work / f"bert-{args.size}-random"
    tsv = args.data_dir / "bec-pro" / "BEC-Pro_EN.tsv"
    if args.child == "seed":
        res = seed_way(model_dir, tsv, args.work / "seed.csv", args.rows, args.device)
        (args.work / "seed.json").write_text(json.dumps(res))
        print(json.dumps(res))
        return
    if args.child == "engine":
        print(json.dumps(engine_way(model_dir, args.work, args.device)))
        return
    if args.child == "bare":
        print(json.dumps(bare_way(model_dir, args.work / "bare-inputs.json", args.device)))
        return
    if args.child == "plain":
        print(json.dumps(plain_way(model_dir, tsv, args.device)))
        return

    recorder = Recorder.from_args(__file__, args)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    args.work.mkdir(parents=True, exist_ok=True)
    if not (model_dir / "config.json").exists():
        from genderscope.models.testing import build_bert

        build_bert(model_dir, size=args.size, seed=0)
    reused = args.reuse_seed and (args.work / "seed.json").is_file()
    bare_inputs(model_dir, args.work / "bare-inputs.json")
    runs: dict[str, list[dict]] = {"engine": [], "plain": [], "bare": [], "seed": [],
                                   "cli": []}
    for k in range(args.repeats):  # the ways alternate, so a drift in load hits all of them
        for mode in ("engine", "cli", "plain", "bare", "seed"):
            if mode == "seed" and reused:
                continue
            runs[mode].append(cli_way(model_dir, args.work, args.device) if mode == "cli"
                              else _child(mode, args))
            print(f"repeat {k + 1}/{args.repeats} {mode}: {runs[mode][-1]['seconds']:.1f} s",
                  flush=True)
    engine, plain = _median_run(runs["engine"]), _median_run(runs["plain"])
    bare = _median_run(runs["bare"])
    if reused:
        seed = json.loads((args.work / "seed.json").read_text())
        print(f"seed way: reusing {args.work / 'seed.json'} and seed.csv from an earlier run")
    else:
        seed = _median_run(runs["seed"])

    import pandas as pd
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    pub = pd.read_csv(tsv, sep="\t", index_col=0, keep_default_na=False)
    ours = pd.read_csv(args.work / "genderscope" / "items.csv")
    theirs = pd.read_csv(args.work / "seed.csv").set_index("row")
    bad = {3625, 3985, 4345, 4705, 5065, *range(4321, 4681, 20)}
    deltas = []
    for i in theirs.index:
        r = pub.loc[i]
        if i in bad or len(tok.tokenize(r.Person)) != 1:
            continue
        if len(tok.tokenize(r.Profession)) != len(r.Profession.split()):
            continue
        assert ours.loc[i, "sentence"] == r.Sentence
        deltas.append(abs(ours.loc[i, "association"] - theirs.loc[i, "association"]))
    seed_s = seed["seconds"] * (5400 / seed["rows"])
    print(f"rows: 5400 (seed way timed on {seed['rows']}"
          + ("" if seed["rows"] == 5400 else ", scaled to 5400") + ")")
    print(f"seed way (pipeline per row, TM + TAM): {seed_s:8.1f} s   peak RSS "
          f"{seed['peak_rss_mb']:.0f} MB")
    print(f"genderscope run bec-pro (end to end):  {engine['seconds']:8.1f} s   peak RSS "
          f"{engine['peak_rss_mb']:.0f} MB")
    print(f"plain script, {plain['sentences']} distinct sentences (first piece only): "
          f"{plain['seconds']:8.1f} s   peak RSS {plain['peak_rss_mb']:.0f} MB   "
          f"({seed_s / plain['seconds']:.1f}x the seed way)")
    print(f"bare torch script, genderscope's {bare['sequences']} inputs, head at the masks: "
          f"{bare['seconds']:8.1f} s   peak RSS {bare['peak_rss_mb']:.0f} MB (the floor of "
          "the forward passes)")
    if args.repeats > 1:
        for mode, label in (("engine", "genderscope"), ("plain", "plain"), ("bare", "bare"),
                            ("seed", "seed")):
            if runs[mode]:
                times = ", ".join(f"{r['seconds']:.1f}" for r in runs[mode])
                print(f"  {label} runs: {times} s (median reported)")
    print(f"speed-up: {seed_s / engine['seconds']:.1f}x")
    cli = _median_run(runs["cli"])
    seed_whole = None
    if "process_s" in seed:  # python start to exit; the start-up is paid once, not scaled
        seed_whole = seed["process_s"] - seed["seconds"] + seed_s
        print(f"whole processes (python start to exit): seed script {seed_whole:.1f} s, "
              f"`genderscope run bec-pro` as typed {cli['seconds']:.1f} s: "
              f"{seed_whole / cli['seconds']:.1f}x")
    print(f"max |delta association| over {len(deltas)} comparable rows: {max(deltas):.2e}")
    baseline = "the seed's per-row pipeline"
    if reused:  # one earlier run of the seed way; only the other ways were repeated
        baseline += (", one earlier run (reused)" if args.repeats == 1 else
                     f", one earlier run (reused; the other ways: medians of {args.repeats})")
    elif args.repeats > 1:
        baseline += f", median of {args.repeats} runs of each way"
    if seed["rows"] != 5400:
        baseline += f" (timed on {seed['rows']} rows, scaled to 5,400)"
    shape = "bert-base shape" if args.size == "base" else "tiny BERT"
    if seed_whole is not None:
        recorder.write(
            case="whole-process", what=f"BEC-Pro EN end to end (5,400 rows), {shape}",
            baseline=baseline.replace("the seed's per-row pipeline",
                                      "the seed's per-row pipeline as a script"),
            baseline_s=seed_whole,
            genderscope="`genderscope run bec-pro --model DIR --lang en --out DIR`",
            genderscope_s=cli["seconds"], device=args.device,
            extra=[{"name": "same run, in-process clocks", "value":
                    f"{seed_s:.1f} s vs {engine['seconds']:.1f} s"}])
    recorder.write(
        what=f"BEC-Pro EN end to end (5,400 rows), {shape}", baseline=baseline,
        baseline_s=seed_s, genderscope="`genderscope run bec-pro`",
        genderscope_s=engine["seconds"], device=args.device,
        extra=[{"name": "peak RSS", "value": seed["peak_rss_mb"], "unit": "MB",
                "side": "baseline"},
               {"name": "peak RSS", "value": engine["peak_rss_mb"], "unit": "MB"},
               {"name": "plain distinct-sentence script", "value": plain["seconds"],
                "unit": "s", "side": "baseline"},
               {"name": "plain script peak RSS", "value": plain["peak_rss_mb"], "unit": "MB",
                "side": "baseline"},
               {"name": "bare torch script, same inputs", "value": bare["seconds"],
                "unit": "s", "side": "baseline"},
               {"name": "bare script peak RSS", "value": bare["peak_rss_mb"], "unit": "MB",
                "side": "baseline"},
               {"name": "max |Δ association|", "value": float(max(deltas))},
               {"name": "rows compared", "value": len(deltas)}])


if __name__ == "__main__":
    main()
