"""Benchmark (issue 29): scoring cost of a debiased model against the plain model on the
same inputs.

Scores the log-likelihood of the same CrowS-Pairs sentences (no store: every sentence is
computed) with the plain causal model and with its INLP, SentenceDebias and Self-Debias
folders; prints the median time of ``--repeats`` runs each and the ratio to the plain
model (target for the projections: <= 1.2x; Self-Debias runs one forward pass more per
prefix, so its cost is stated, not capped).

    flock /tmp/gs-heavy.lock python benchmarks/bench_debias_scoring.py [--model smollm2]
        [--sentences 300] [--repeats 3] [--work DIR] [--device cpu|cuda] [--record]

The folders are those of ``benchmarks/debias_smollm2.py`` (``--work``) when they exist,
else made here with small settings (the cost of a projection does not depend on how it
was estimated).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchrecord import Recorder, add_record_options  # noqa: E402

TECHS = ("inlp", "sentence-debias", "self-debias")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path.home() / ".cache" / "genderscope" /
                    "debias-smollm2")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (scoring only)")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)

    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.datasets.locations import find_benchmark
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.debias_folder import is_debias_folder
    from genderscope.models.loading import load_lm

    pairs = load_crows_pairs(find_benchmark("crows-pairs"))
    texts = list(dict.fromkeys(s for p in pairs for s in (p.sent_more, p.sent_less)))
    texts = texts[:args.sentences]
    folders = {}
    for tech in TECHS:
        folder = args.work / tech
        if not is_debias_folder(folder):
            folder = args.work / f"bench-{tech}"
            opts = {"inlp": {"limit": 100, "n_per_class": 50, "n_classifiers": 10},
                    "sentence-debias": {"limit": 100, "max_pairs": 100},
                    "self-debias": {}}[tech]
            debias_lm(tech, args.model, folder, overwrite=True, **opts)
        folders[tech] = folder
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


if __name__ == "__main__":
    main()
