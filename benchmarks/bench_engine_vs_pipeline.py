"""Benchmark (issue 2): p(person | Sent_TM) for the 18 BEC-Pro person words on the
distinct Sent_TM sentences of BEC-Pro EN, on a bert-base-shaped masked LM (random
weights, real bert-base-uncased vocabulary). The published file has 905 distinct
Sent_TM strings; 5 are the broken "lodging [MASK]ager" rows (two masks), whose
correct form is already among the other 900 (the set equals the generator's 900),
so 900 sentences x 18 words = 16,200 questions are timed.

Baseline: ``transformers.pipeline("fill-mask", targets=persons)`` one sentence at a time
(the seed's way). Engine: ``MaskedLM.fill_logprobs`` on all 16,200 questions in one call
(no store, so nothing is cached). Prints both times, the ratio and max |delta log p|.

    python benchmarks/bench_engine_vs_pipeline.py [--limit N] [--repeats R]
        [--device cpu|cuda] [--size base|tiny] [--record]

Data: the BEC-Pro folder found by ``genderscope.datasets.locations.find_benchmark``
(``$GENDERSCOPE_DATA``, else ``../shared/data`` beside the checkout: benchrecord.use_shared_data).
``--record`` writes the row to benchmarks/results/ for the speed table (docs/performance.md).
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

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from benchrecord import Recorder, add_record_options  # noqa: E402

from genderscope.datasets.locations import find_benchmark  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="first N distinct sentences only")
    ap.add_argument("--repeats", type=int, default=1, help="timed repeats (median reported)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (both ways)")
    ap.add_argument("--size", choices=["base", "tiny"], default="base",
                    help="tiny: a 2-layer model, to smoke-test this script")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)

    import torch
    from transformers import pipeline

    from genderscope.models.base import FillQuery
    from genderscope.models.masked import MaskedLM
    from genderscope.models.testing import build_bert

    torch.set_num_threads(os.cpu_count() or 1)
    shape = "bert-base shape" if args.size == "base" else "tiny BERT"
    bec = pd.read_csv(find_benchmark("bec-pro") / "BEC-Pro_EN.tsv", sep="\t")
    distinct = list(dict.fromkeys(bec["Sent_TM"]))
    # the published file has rows reading "lodging [MASK]ager" (two masks): skipped here
    sentences = [s for s in distinct if s.count("[MASK]") == 1][: args.limit]
    skipped = len(distinct) - len([s for s in distinct if s.count("[MASK]") == 1])
    persons = [p.lower() for p in dict.fromkeys(bec["Person"])]
    tmp = tempfile.TemporaryDirectory(prefix="bench-engine-")  # removed at exit
    folder = Path(tmp.name) / f"bert-{args.size}"
    build_bert(folder, size=args.size, seed=0)
    adapter = MaskedLM.from_pretrained(folder, device=args.device)
    fill = pipeline("fill-mask", model=adapter.model, tokenizer=adapter.tokenizer,
                    device=adapter.device,
                    top_k=len(persons))
    print(f"{len(sentences)} distinct Sent_TM sentences ({skipped} broken two-mask rows left "
          "out: their correct form is among them) "
          f"x {len(persons)} person words, "
          f"{shape} ({sum(p.numel() for p in adapter.model.parameters()) / 1e6:.1f}M "
          f"params), device {adapter.device}, torch threads={torch.get_num_threads()}")

    def run_pipeline() -> np.ndarray:
        out = np.zeros((len(sentences), len(persons)))
        for i, s in enumerate(sentences):
            preds = fill(s, targets=persons)
            got = {p["token_str"]: p["score"] for p in preds}
            out[i] = [np.log(got[p]) for p in persons]
        return out

    queries = [FillQuery(s.replace("[MASK]", "{target}"), p) for s in sentences for p in persons]

    def run_engine() -> np.ndarray:
        return adapter.fill_logprobs(queries).reshape(len(sentences), len(persons))

    times: dict[str, list[float]] = {"pipeline": [], "engine": []}
    results = {}
    for _ in range(args.repeats):
        for name, fn in (("pipeline", run_pipeline), ("engine", run_engine)):
            t0 = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - t0)
    tp, te = statistics.median(times["pipeline"]), statistics.median(times["engine"])
    delta = float(np.max(np.abs(results["pipeline"] - results["engine"])))
    print(f"pipeline fill-mask, one sentence at a time: {tp:8.2f} s (median of {args.repeats})")
    print(f"genderscope engine, one call:               {te:8.2f} s (median of {args.repeats})")
    print(f"speed-up: {tp / te:.2f}x   max |delta log p|: {delta:.2e}   "
          f"forward batches: {adapter.n_forward}")
    recorder.write(
        what=f"p(person) for {len(persons)} words on {len(sentences)} BEC-Pro sentences, "
             + shape,
        baseline='`pipeline("fill-mask")` per sentence', baseline_s=tp,
        genderscope=f"engine, one call (median of {args.repeats})", genderscope_s=te,
        device=str(adapter.device), extra=[{"name": "max |Δ log p|", "value": delta}])


if __name__ == "__main__":
    main()
