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
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchrecord import Recorder, add_record_options  # noqa: E402

DEFAULT_PROBE = "discrimination-tamkin"


def probe_prompts(probe: str, n: int, data: Path) -> tuple[int, list[str]]:
    """(probe items, their first ``n`` prompts): GenderBench's ``sample_k`` draw of
    ``n // 3`` items for discrimination-tamkin (3 prompts each, as recorded before),
    else of ``n`` items."""
    import importlib

    mod = importlib.import_module(f"genderscope.measures.genderbench.{probe.replace('-', '_')}")
    items = n // 3 if probe == DEFAULT_PROBE else n
    spec = mod.build(data=data, sample_k=items)
    return items, [a.prompt for a in spec.attempts][:n]


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
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)

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
    eos = _eos_ids(model, tok)
    pad = tok.pad_token_id if tok.pad_token_id is not None else eos[0]
    kw = {"max_new_tokens": args.max_new_tokens, "do_sample": False, "eos_token_id": eos,
          "pad_token_id": pad}

    def decode(row: torch.Tensor) -> str:
        ids = row.tolist()
        ids = ids[:min((ids.index(e) for e in eos if e in ids), default=len(ids))]
        return tok.decode(ids, skip_special_tokens=True)

    @torch.inference_mode()
    def one_at_a_time(upto: int | None = None) -> list[str]:
        out = []
        for r in rendered[:upto]:
            x = tok(r, add_special_tokens=False, return_tensors="pt").to(dev)
            g = model.generate(**x, **kw)
            out.append(decode(g[0, x["input_ids"].shape[1]:]))
        return out

    @torch.inference_mode()
    def plain_batched() -> list[str]:
        tok.padding_side = "left"
        if tok.pad_token is None:  # some transformers versions give SmolLM2's none
            tok.pad_token = tok.eos_token
        order = sorted(range(len(rendered)), key=lambda i: len(rendered[i]))
        out: list[str] = [""] * len(rendered)
        for s in range(0, len(order), args.batch):
            part = order[s:s + args.batch]
            x = tok([rendered[i] for i in part], add_special_tokens=False, padding=True,
                    return_tensors="pt").to(dev)
            g = model.generate(**x, **kw)
            for j, i in enumerate(part):
                out[i] = decode(g[j, x["input_ids"].shape[1]:])
        return out

    def ours_fresh() -> list[str]:
        lm.store = Store(Path(tempfile.mkdtemp(dir=work)) / "s.sqlite")  # nothing cached
        return lm.chat(prompts, Decoding(max_new_tokens=args.max_new_tokens),
                       batch_size=args.batch)

    def timed(fn):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0

    one_at_a_time(2)  # warm-up (first-call costs), not timed
    times: dict[str, list[float]] = {"single": [], "plain": [], "ours": []}
    for _ in range(args.repeats):  # interleaved, so that load drifts hit every path
        single, t = timed(one_at_a_time)
        times["single"].append(t)
        plain, t = timed(plain_batched)
        times["plain"].append(t)
        ours, t = timed(ours_fresh)
        times["ours"].append(t)
    t_single, t_plain, t_ours = (statistics.median(times[k]) for k in ("single", "plain", "ours"))
    lm.store = Store(work / "s.sqlite")
    lm.chat(prompts, Decoding(max_new_tokens=args.max_new_tokens), batch_size=args.batch)
    n = len(prompts)
    differ_single = sum(a != b for a, b in zip(ours, single, strict=True))
    differ_plain = sum(a != b for a, b in zip(ours, plain, strict=True))
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
