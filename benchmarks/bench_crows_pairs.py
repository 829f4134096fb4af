"""Benchmark (issue 4): CrowS-Pairs, all 1,508 pairs (3,016 sentences), on SmolLM2-135M.

Baseline: one sentence at a time, a plain loop of one forward pass per sentence
(start token + tokens, log-softmax, sum of the next-token log-probabilities), with
the adapter's own model, tokenizer and start token. Engine: ``run_crows_pairs``
on a ``CausalLM`` without a store (nothing cached: every sentence is computed,
de-duplicated, length-sorted and batched by the engine).

Prints both times, the ratio, the largest |delta log-likelihood| and the number of
pairs whose decision (stereotypical sentence preferred or not) differs (must be 0).

    python benchmarks/bench_crows_pairs.py [--limit N] [--model M]
        [--device cpu|cuda] [--record] [--whole-process]

``--whole-process``: instead, each way as a whole process timed from outside, python
start to exit: the one-sentence-at-a-time loop as a script (imports, model load, data,
the loop, a CSV of scores) against ``genderscope run crows-pairs --model M --out DIR`` as
a user types it (console script, fresh store through ``$GENDERSCOPE_STORE``, the table
on the terminal, no ``--json``); record case ``whole-process``. With ``--limit N`` both
score the CLI's seeded subset of N pairs (``--subset-seed 0``; a smoke test).

Data: the CrowS-Pairs folder found by ``genderscope.datasets.locations.find_benchmark``
(``$GENDERSCOPE_DATA``, else ``../shared/data`` beside the checkout: benchrecord.use_shared_data).
``--record`` writes the row to benchmarks/results/ for the speed table (docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
from benchrecord import Recorder, add_record_options, genderscope_command, timed_process  # noqa: E402

from genderscope.datasets.locations import find_benchmark  # noqa: E402


def sentence_scorer(lm):  # noqa: ANN001, ANN201 - a CausalLM; torch imported by the caller
    """The baseline: one forward pass per sentence (start token + tokens, log-softmax, sum
    of the next-token log-probabilities), with the adapter's model, tokenizer, start."""
    import torch

    model, tok, start = lm.model, lm.tokenizer, lm.start_token_id

    @torch.inference_mode()
    def one(text: str) -> float:
        ids = ([start] if start is not None else []) + tok(text, add_special_tokens=False)[
            "input_ids"]
        x = torch.tensor([ids], device=lm.device)
        logp = torch.log_softmax(model(input_ids=x).logits.float(), dim=-1)[0]
        return float(logp[:-1].gather(1, x[0, 1:, None]).sum())

    return one


def loop_script(args: argparse.Namespace) -> None:
    """The baseline as a script (``--child-loop CSV``): load, score one sentence at a
    time, write pair_id, score_more, score_less."""
    import pandas as pd
    import torch

    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.models.loading import load_lm

    torch.set_num_threads(os.cpu_count() or 1)
    from genderscope.catalog._common import subset

    pairs = subset(load_crows_pairs(find_benchmark("crows-pairs")), args.limit, 0)
    lm = load_lm(args.model, device=args.device)

    one = sentence_scorer(lm)

    pd.DataFrame({"pair_id": [p.pair_id for p in pairs],
                  "score_more": [one(p.sent_more) for p in pairs],
                  "score_less": [one(p.sent_less) for p in pairs]}).to_csv(
        args.child_loop, index=False)


def whole_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """Both ways as whole processes, python start to exit, timed from outside."""
    import pandas as pd

    work = Path(tempfile.mkdtemp(prefix="gs-bench-crows-"))
    env = dict(os.environ, COLUMNS="100")
    limit = ["--limit", str(args.limit)] if args.limit else []
    loop_s = timed_process([sys.executable, __file__, "--child-loop", str(work / "loop.csv"),
                     "--model", args.model, "--device", args.device, *limit], env)
    print(f"one sentence at a time, as a script: {loop_s:.1f} s", flush=True)
    head = genderscope_command()
    typed = ["run", "crows-pairs", "--model", args.model, "--out", str(work / "gs"), *limit]
    if args.device != "cpu":
        typed += ["--device", args.device]
    cli_s = timed_process([*head, *typed], dict(env, GENDERSCOPE_STORE=str(work / "store.sqlite")))
    print(f"`genderscope {' '.join(typed)}`: {cli_s:.1f} s", flush=True)
    ours = pd.read_csv(work / "gs" / "items.csv").set_index("pair_id")
    theirs = pd.read_csv(work / "loop.csv").set_index("pair_id")
    if sorted(theirs.index) != sorted(ours.index):
        raise SystemExit("the script and genderscope scored different pairs")
    ours = ours.loc[theirs.index]
    pref = (theirs.score_more.round(3) > theirs.score_less.round(3)).to_numpy()
    differ = int((pref != ours.stereotypical_preferred.to_numpy(bool)).sum())
    delta = float(np.max(np.abs(theirs[["score_more", "score_less"]].to_numpy()
                                - ours[["score_more", "score_less"]].to_numpy())))
    print(f"ratio {loop_s / cli_s:.2f}x; {len(theirs)} pairs compared, decisions differ "
          f"{differ}, max |delta log-likelihood| {delta:.2e} nats")
    shutil.rmtree(work, ignore_errors=True)
    n = f"{args.limit:,} pairs (smoke test)" if args.limit else "1,508 pairs"
    recorder.write(
        case="whole-process", what=f"CrowS-Pairs, {n}, {args.model}",
        baseline="one sentence at a time, as a script", baseline_s=loop_s,
        genderscope=f"`genderscope run crows-pairs --model {args.model} --out DIR`",
        genderscope_s=cli_s, device=args.device,
        extra=[{"name": "decisions differ", "value": differ},
               {"name": "max |Δ log-likelihood|", "value": delta, "unit": "nats"}])
    if differ:
        raise SystemExit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="first N pairs only")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps")
    ap.add_argument("--whole-process", action="store_true",
                    help="each way as a whole process, as typed (record case whole-process)")
    ap.add_argument("--child-loop", type=Path, default=None, help=argparse.SUPPRESS)
    add_record_options(ap)
    args = ap.parse_args()
    if args.child_loop is not None:
        loop_script(args)
        return
    recorder = Recorder.from_args(__file__, args)
    if args.whole_process:
        whole_process(args, recorder)
        return

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


    one = sentence_scorer(lm)

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
