"""Benchmark (issue 12): one sweep run in sequence vs on a local Ray with N workers.

The sweep: 4 offline test models (tiny BERT with seeds 0 and 1, tiny RoBERTa, tiny
GPT-2; built into a temporary folder) x 3 report measures (crows-pairs, probe,
winobias by default), each side into its own fresh store (nothing cached).

- sequential: :func:`genderscope.sweep.driver.run_sequential`, the same jobs one
  after another in this process (torch uses every core);
- Ray: :func:`genderscope.sweep.driver.run_sweep` on a local Ray instance with
  ``--workers`` CPUs, one CPU per job (Ray runs ``--workers`` jobs at a time).

Prints both times, the ratio, Ray's start-up time (not in the ratio) and checks
that both sides stored identical summaries.

    python benchmarks/bench_sweep.py [--workers 2] [--device cpu|cuda] [--full]
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



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray instance")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (cuda: jobs share the GPUs "
                    "with --gpus-per-job)")
    ap.add_argument("--gpus-per-job", type=float, default=0.5)
    ap.add_argument("--measure", action="append", default=None,
                    help="report measure (repeatable) [crows-pairs, probe, winobias]")
    ap.add_argument("--full", action="store_true", help="default subsets, not --quick ones")
    args = ap.parse_args()

    import ray

    from genderscope.datasets.locations import find_benchmark
    from genderscope.models.testing import build_bert, build_gpt2, build_roberta
    from genderscope.store import Store
    from genderscope.sweep.driver import run_sequential, run_sweep
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    tmp = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    folders = [build_bert(tmp / "bert-s0", seed=0), build_bert(tmp / "bert-s1", seed=1),
               build_roberta(tmp / "roberta"), build_gpt2(tmp / "gpt2")]
    names = args.measure or ["crows-pairs", "probe", "winobias"]
    gpus = args.gpus_per_job if args.device.startswith("cuda") else 0.0
    spec = SweepSpec(models=[ModelSpec(str(f)) for f in folders],
                     measures=[MeasureSpec(n) for n in names], quick=not args.full,
                     data=find_benchmark("crows-pairs").resolve().parent, device=args.device,
                     cpus_per_job=1, gpus_per_job=gpus).check()
    n_jobs = len(spec.models) * len(spec.measures)
    print(f"{len(spec.models)} models x {len(names)} measures ({', '.join(names)}) = {n_jobs} "
          f"jobs; {'default' if args.full else 'quick'} subsets; device {args.device}; "
          f"{os.cpu_count()} CPUs on this machine")

    seq_store = Store(tmp / "sequential.sqlite")
    t0 = time.perf_counter()
    seq = run_sequential(spec, seq_store)
    t_seq = time.perf_counter() - t0
    print(f"sequential: {t_seq:.1f} s ({seq.count('done')} done, {seq.count('failed')} failed)")

    t0 = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, logging_level="ERROR",
             log_to_driver=False)
    t_init = time.perf_counter() - t0
    ray_store = Store(tmp / "ray.sqlite")
    t0 = time.perf_counter()
    par = run_sweep(spec, ray_store)
    t_ray = time.perf_counter() - t0
    ray.shutdown()
    print(f"ray ({args.workers} workers): {t_ray:.1f} s ({par.count('done')} done, "
          f"{par.count('failed')} failed); Ray start-up {t_init:.1f} s not included")
    print(f"ratio sequential / ray: {t_seq / t_ray:.2f}x "
          f"(with Ray start-up: {t_seq / (t_ray + t_init):.2f}x)")

    same = sum(seq_store.load_run(seq.statuses[k].run_id).summary ==
               ray_store.load_run(par.statuses[k].run_id).summary
               for k in seq.statuses if seq.statuses[k].run_id and par.statuses[k].run_id)
    print(f"identical summaries: {same} of {n_jobs}")
    seq_store.close()
    ray_store.close()


if __name__ == "__main__":
    main()
