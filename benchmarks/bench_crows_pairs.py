"""Benchmark (issue 4): CrowS-Pairs, all 1,508 pairs (3,016 sentences), on SmolLM2-135M.

Baseline: one sentence at a time, a plain loop of one forward pass per sentence
(start token + tokens, log-softmax, sum of the next-token log-probabilities), with
the adapter's own model, tokenizer and start token. Engine: ``run_crows_pairs``
on a ``CausalLM`` without a store (nothing cached: every sentence is computed,
de-duplicated, length-sorted and batched by the engine).

Prints both times, the ratio, the largest |delta log-likelihood| and the number of
pairs whose decision (stereotypical sentence preferred or not) differs (must be 0).

    python benchmarks/bench_crows_pairs.py [--limit N] [--model M]
        [--device cpu|cuda] [--record]

Data: the CrowS-Pairs folder found by ``genderscope.datasets.locations.find_benchmark``
(``$GENDERSCOPE_DATA``, else ``shared/data`` or ``../shared/data``).
``--record`` writes the row to benchmarks/results/ for the README speed table.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
from benchrecord import Recorder, add_record_options  # noqa: E402

from genderscope.datasets.locations import find_benchmark  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="first N pairs only")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)

    import torch

    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.measures.crows_pairs import run_crows_pairs
    from genderscope.models.loading import load_lm

    torch.set_num_threads(os.cpu_count() or 1)
    pairs = load_crows_pairs(find_benchmark("crows-pairs"))[: args.limit]
    t0 = time.perf_counter()
    lm = load_lm(args.model, device=args.device)  # no store: nothing cached
    print(f"model {args.model} loaded in {time.perf_counter() - t0:.1f} s; "
          f"fingerprint {lm.fingerprint[:16]}; start token {lm.describe().get('start_token')!r}; "
          f"{len(pairs)} pairs; device {lm.device}; torch threads={torch.get_num_threads()}")

    model, tok, start = lm.model, lm.tokenizer, lm.start_token_id

    @torch.inference_mode()
    def one(text: str) -> float:
        ids = ([start] if start is not None else []) + tok(text, add_special_tokens=False)[
            "input_ids"]
        x = torch.tensor([ids], device=lm.device)
        logp = torch.log_softmax(model(input_ids=x).logits.float(), dim=-1)[0]
        tgt = x[0, 1:]
        return float(logp[:-1].gather(1, tgt[:, None]).sum())

    t0 = time.perf_counter()
    base = np.array([[one(p.sent_more), one(p.sent_less)] for p in pairs])
    t_base = time.perf_counter() - t0

    t0 = time.perf_counter()
    res = run_crows_pairs(lm, pairs)
    t_engine = time.perf_counter() - t0

    more_r, less_r = np.round(base[:, 0], 3), np.round(base[:, 1], 3)
    base_pref = more_r > less_r  # sent_more is the more stereotypical sentence
    eng_pref = res.items.stereotypical_preferred.to_numpy(bool)
    delta = np.max(np.abs(base - res.items[["score_more", "score_less"]].to_numpy()))
    differ = int(np.sum(base_pref != eng_pref))
    print(f"one sentence at a time: {t_base:.1f} s ({2 * len(pairs) / t_base:.1f} sentences/s)")
    print(f"engine (batched, de-duplicated): {t_engine:.1f} s "
          f"({2 * len(pairs) / t_engine:.1f} sentences/s)")
    print(f"ratio baseline / engine: {t_base / t_engine:.2f}x")
    print(f"max |delta log-likelihood|: {delta:.2e} nats")
    print(f"pairs whose decision differs: {differ}")
    print(f"% stereotypical (engine): {100 * eng_pref.mean():.2f}; "
          f"(baseline): {100 * base_pref.mean():.2f}")
    recorder.write(
        what=f"CrowS-Pairs, {len(pairs):,} pairs, {args.model}",
        baseline="one sentence at a time", baseline_s=t_base,
        genderscope="engine (batched, de-duplicated)", genderscope_s=t_engine,
        device=str(lm.device),
        extra=[{"name": "decisions differ", "value": differ},
               {"name": "max |Δ log-likelihood|", "value": float(delta), "unit": "nats"}])
    if differ:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
