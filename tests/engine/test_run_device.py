"""``genderscope run --device cuda`` on a machine without CUDA is refused the same way,
one line and exit code 2, whether or not the store already holds the answer (the check
runs before the reuse lookup); ``--device cpu`` still reuses without importing torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import sys\nfrom genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\n"
         "try:\n    main()\nfinally:\n    print('TORCH=' + str('torch' in sys.modules), "
         "file=sys.stderr)\n")
REFUSAL = "error: --device cuda: no CUDA device is available here; use --device cpu or leave it out"


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", GENDERSCOPE_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)


def _lines(done: subprocess.CompletedProcess) -> list[str]:
    return [x for x in done.stderr.splitlines() if x.strip() and not x.startswith("TORCH=")]


def test_missing_cuda_refused_alike_cached_or_not(tmp_path: Path, tiny_bert_dir: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: --device cuda is not refused here")
    store = str(tmp_path / "s.sqlite")
    args = ["run", "bec-pro", "--model", str(tiny_bert_dir), "--limit", "60", "--no-progress",
            "--resamples", "200", "--store", store, "--json"]
    fresh = _cli(tmp_path, *args, "--device", "cuda")  # nothing stored yet
    assert fresh.returncode == 2 and _lines(fresh) == [REFUSAL], fresh.stderr[-2000:]

    first = _cli(tmp_path, *args)  # recorded on the CPU
    assert first.returncode == 0, first.stderr[-2000:]
    run_id = json.loads(first.stdout)["run_id"]

    cached = _cli(tmp_path, *args, "--device", "cuda")  # the store could answer: still refused
    assert cached.returncode == 2 and _lines(cached) == [REFUSAL], cached.stderr[-2000:]
    assert cached.stdout == ""

    cpu = _cli(tmp_path, *args, "--device", "cpu")  # reused, and no torch import for a CPU
    assert cpu.returncode == 0, cpu.stderr[-2000:]
    assert json.loads(cpu.stdout)["run_id"] == run_id and json.loads(cpu.stdout)["reused"]
    assert "TORCH=False" in cpu.stderr
