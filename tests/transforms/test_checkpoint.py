"""Fine-tuning checkpoints: resumed without executing anything found in the output folder,
and only when the run identity matches."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from genderscope.errors import GenderscopeError
from genderscope.lm_debias.checkpoint import (
    load_trainer_state,
    save_trainer_state,
)
from genderscope.lm_debias.finetune import FinetuneConfig, fine_tune

TEXTS = ["He is a doctor and she is a nurse.", "The man fixed the car.",
         "Her brother is a teacher.", "The king spoke to his people."]
CFG = {"lr": 1e-3, "epochs": 2, "save_every": 2}


class _Planted:
    """Unpickling this writes the marker file: proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _plant_pickles(step_dir: Path, marker: Path) -> None:
    payload = pickle.dumps({"optimizer": _Planted(marker)})
    for name in ("trainer.pt", "trainer.safetensors", "optimizer.pt", "scheduler.pt",
                 "rng_state.pth", "pytorch_model.bin", "training_args.bin"):
        (step_dir / name).write_bytes(payload)


def test_trainer_state_round_trip(tmp_path: Path) -> None:
    model = torch.nn.Linear(3, 2)
    optim = torch.optim.AdamW(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    optim.step()
    state = {"optimizer": optim.state_dict(), "rng": torch.get_rng_state(), "inf": float("inf"),
             "t": (1, "a", None)}
    save_trainer_state(tmp_path, state)
    back = load_trainer_state(tmp_path)
    assert back["inf"] == float("inf") and back["t"] == (1, "a", None)
    assert torch.equal(back["rng"], state["rng"])
    assert back["optimizer"]["param_groups"] == state["optimizer"]["param_groups"]
    for i, s in state["optimizer"]["state"].items():  # integer keys survive
        for k, v in s.items():
            assert torch.equal(back["optimizer"]["state"][i][k], v)


def test_planted_pickle_never_runs_without_run_identity(tiny_bert_dir, tmp_path) -> None:
    """checkpoints/ without run.json (the attack in issue 16): refused, nothing executed."""
    out, marker = tmp_path / "out", tmp_path / "MARKER"
    step = out / "checkpoints" / "step-2"
    step.mkdir(parents=True)
    (step / "state.json").write_text('{"step": 2, "losses": [1.0, 1.0]}')
    _plant_pickles(step, marker)
    with pytest.raises(GenderscopeError, match="no run.json.*refusing to resume"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG))
    assert not marker.exists()
    assert not (out / "manifest.json").exists()


@pytest.mark.slow
def test_planted_pickle_never_runs_with_matching_identity(tiny_bert_dir, tmp_path) -> None:
    """Even a checkpoint whose run.json matches (copied from a real run) is read as
    safetensors + JSON only: pickles planted in it are never unpickled."""
    out, marker = tmp_path / "out", tmp_path / "MARKER"
    fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG), stop_after=2)
    step = out / "checkpoints" / "step-2"
    assert sorted(p.name for p in step.iterdir()) == [
        "config.json", "model.safetensors", "state.json", "trainer.json",
        "trainer.safetensors"]
    _plant_pickles(step, marker)  # replaces trainer.safetensors with a pickle
    with pytest.raises(GenderscopeError, match="trainer.safetensors: cannot read"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG))
    assert not marker.exists()
    # the same, driven through the command line
    (tmp_path / "c.txt").write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                        "debias", "cds", "--model", str(tiny_bert_dir), "--corpus", "c.txt",
                        "--out", str(out), "--mode", "none", "--lr", "1e-3", "--epochs", "2",
                        "--save-every", "2"], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert not marker.exists()


def test_tampered_trainer_json_is_refused(tiny_bert_dir, tmp_path) -> None:
    out = tmp_path / "out"
    fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG), stop_after=2)
    step = out / "checkpoints" / "step-2"
    (step / "trainer.json").write_text('{"dict": [["optimizer", {"pickle": "gASV"}]]}')
    with pytest.raises(GenderscopeError, match="trainer.json: not a genderscope checkpoint"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG))
    (step / "state.json").write_text('{"step": 99, "losses": []}')
    with pytest.raises(GenderscopeError, match="state.json: step and losses do not fit"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG))


def test_missing_run_identity_refused_even_for_a_real_checkpoint(tiny_bert_dir,
                                                                 tmp_path) -> None:
    out = tmp_path / "out"
    fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG), stop_after=2)
    shutil.copy(out / "checkpoints" / "run.json", tmp_path / "run.json")
    (out / "checkpoints" / "run.json").unlink()
    with pytest.raises(GenderscopeError, match="no run.json"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG))
    shutil.copy(tmp_path / "run.json", out / "checkpoints" / "run.json")
    manifest = fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**CFG))
    assert manifest["resumed_from_step"] == 2
