"""Fine-tuning (CDS): weights and scores change, manifest, resume, CLI and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file
from typer.testing import CliRunner

from genderscope.errors import GenderscopeError
from genderscope.lm_debias.finetune import FinetuneConfig, fine_tune

TEXTS = ["He is a doctor and she is a nurse.", "The man fixed the car.",
         "Her brother is a teacher.", "The king spoke to his people."]
FAST = {"lr": 1e-3, "epochs": 1}


def _weights(folder):
    return load_file(str(folder / "model.safetensors"))


def test_masked_lm_weights_and_scores_change(tiny_bert_dir, tmp_path):
    from genderscope.models.masked import MaskedLM

    out = tmp_path / "ft"
    manifest = fine_tune(str(tiny_bert_dir), TEXTS, out, config=FinetuneConfig(**FAST),
                         data={"corpus": "unit"})
    assert manifest["objective"] == "masked-lm" and manifest["steps"] == 4
    assert manifest["params"]["lr"] == 1e-3 and manifest["seed"] == 42
    before, after = _weights(tiny_bert_dir), _weights(out)
    changed = [k for k in after if not np.allclose(before[k], after[k])]
    assert len(changed) > 5
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk["data"] == {"corpus": "unit"}
    assert on_disk["base_model"]["fingerprint"].startswith("sha256:")
    a = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu").pseudo_log_likelihood(TEXTS[:1])
    b = MaskedLM.from_pretrained(out, device="cpu").pseudo_log_likelihood(TEXTS[:1])
    assert a[0].total != pytest.approx(b[0].total, abs=1e-4)


def test_causal_lm_learns_its_corpus(tiny_gpt2_dir, tmp_path):
    from genderscope.models.causal import CausalLM

    out = tmp_path / "ft"
    manifest = fine_tune(str(tiny_gpt2_dir), TEXTS * 5, out,
                         config=FinetuneConfig(lr=3e-3, epochs=1))
    assert manifest["objective"] == "next-token"
    base = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu").log_likelihood(TEXTS)
    tuned = CausalLM.from_pretrained(out, device="cpu").log_likelihood(TEXTS)
    assert sum(s.total for s in tuned) > sum(s.total for s in base)
    assert manifest["loss_last_10pct"] < manifest["loss_first_10pct"]


@pytest.mark.slow
def test_resume_gives_same_weights(tiny_bert_dir, tmp_path):
    cfg = FinetuneConfig(lr=1e-3, epochs=2, save_every=2)
    full = tmp_path / "full"
    fine_tune(str(tiny_bert_dir), TEXTS, full, config=cfg)
    part = tmp_path / "part"
    first = fine_tune(str(tiny_bert_dir), TEXTS, part, config=cfg, stop_after=3)
    assert first == {"interrupted_at_step": 3}
    assert not (part / "manifest.json").exists()
    manifest = fine_tune(str(tiny_bert_dir), TEXTS, part, config=cfg)
    assert manifest["resumed_from_step"] == 3
    a, b = _weights(full), _weights(part)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_resume_refuses_other_settings(tiny_bert_dir, tmp_path):
    cfg = FinetuneConfig(lr=1e-3, epochs=2, save_every=2)
    part = tmp_path / "part"
    fine_tune(str(tiny_bert_dir), TEXTS, part, config=cfg, stop_after=2)
    with pytest.raises(GenderscopeError, match=r"other settings \(lr \(0.001 then, 0.01 now"):
        fine_tune(str(tiny_bert_dir), TEXTS, part,
                  config=FinetuneConfig(lr=1e-2, epochs=2, save_every=2))
    with pytest.raises(GenderscopeError, match="texts_sha256.*--overwrite"):
        fine_tune(str(tiny_bert_dir), TEXTS[::-1], part, config=cfg)
    # the same settings still resume
    assert fine_tune(str(tiny_bert_dir), TEXTS, part, config=cfg)["resumed_from_step"] == 2


def test_existing_output_refused_unless_overwrite(tiny_bert_dir, tmp_path):
    out = tmp_path / "ft"
    out.mkdir()
    (out / "something.txt").write_text("x")
    cfg = FinetuneConfig(lr=1e-3, epochs=1, max_steps=1)
    with pytest.raises(GenderscopeError, match="already exists.*--overwrite"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=cfg)
    # --overwrite replaces only a folder genderscope wrote (issue 24): this one is the user's
    with pytest.raises(GenderscopeError, match="did not write"):
        fine_tune(str(tiny_bert_dir), TEXTS, out, config=cfg, overwrite=True)
    assert (out / "something.txt").read_text() == "x"
    mine = tmp_path / "mine"
    fine_tune(str(tiny_bert_dir), TEXTS, mine, config=cfg)
    (mine / "manifest.json").write_text("old")
    fine_tune(str(tiny_bert_dir), TEXTS, mine, config=cfg, overwrite=True)
    assert (mine / "manifest.json").read_text() != "old"


def test_bad_config_and_empty_corpus(tiny_bert_dir, tmp_path):
    with pytest.raises(GenderscopeError, match="empty"):
        fine_tune(str(tiny_bert_dir), [], tmp_path / "a")
    with pytest.raises(GenderscopeError, match="--epochs"):
        fine_tune(str(tiny_bert_dir), TEXTS, tmp_path / "b", config=FinetuneConfig(epochs=0))


# -- CLI -----------------------------------------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           *args], capture_output=True, text=True, timeout=300)


def test_cli_debias_cds_end_to_end(tiny_bert_dir, tmp_path):
    from genderscope.cli.app import app

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["debias", "cds", "--model", str(tiny_bert_dir), "--corpus",
                                   str(corpus), "--out", str(out), "--mode", "all",
                                   "--epochs", "1", "--lr", "1e-3", "--no-names"])
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["data"]["substitution"]["n_swapped_documents"] == 4
    assert manifest["data"]["corpus"]["n_documents"] == 4
    lines = [json.loads(x)["text"] for x in
             (out / "training_corpus.jsonl").read_text().splitlines()]
    assert lines[0] == "She is a doctor and he is a nurse."


@pytest.mark.slow
def test_cli_bad_inputs_exit_2(tiny_bert_dir, tmp_path):
    model = str(tiny_bert_dir)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    r = _cli("debias", "cds", "--model", model, "--corpus", str(empty), "--out",
             str(tmp_path / "o1"))
    assert r.returncode == 2 and "empty" in r.stderr and "Traceback" not in r.stderr
    r = _cli("debias", "cds", "--model", model, "--corpus", str(tmp_path / "missing.txt"),
             "--out", str(tmp_path / "o2"))
    assert r.returncode == 2 and "not found" in r.stderr
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    r = _cli("debias", "cds", "--model", model, "--corpus", str(binary), "--out",
             str(tmp_path / "o3"))
    assert r.returncode == 2 and "UTF-8" in r.stderr
    existing = tmp_path / "exists"
    existing.mkdir()
    (existing / "f").write_text("x")
    good = tmp_path / "good.txt"
    good.write_text("He ran.\n", encoding="utf-8")
    r = _cli("debias", "cds", "--model", model, "--corpus", str(good), "--out", str(existing))
    assert r.returncode == 2 and "--overwrite" in r.stderr
    conflict = tmp_path / "pairs.tsv"
    conflict.write_text("king\tempress\n", encoding="utf-8")
    r = _cli("debias", "cds", "--model", model, "--corpus", str(good), "--out",
             str(tmp_path / "o4"), "--pairs", str(conflict))
    assert r.returncode == 2 and "mapped two ways" in r.stderr


def test_gguf_quantizer_is_detached_before_saving(tiny_gpt2_dir, tmp_path):
    """A GGUF-loaded (de-quantised) model keeps transformers' GGUF quantizer, which
    blocks save_pretrained; fine-tuning detaches it (real GGUF: the SmolLM2 run)."""
    from types import SimpleNamespace

    from transformers import AutoModelForCausalLM

    from genderscope.errors import ModelLoadError
    from genderscope.lm_debias.finetune import _drop_gguf_quantizer

    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir)
    model.hf_quantizer = SimpleNamespace(quantization_config=SimpleNamespace(quant_method="gguf"))
    with pytest.raises(ValueError, match="not serializable"):
        model.save_pretrained(tmp_path / "a")
    _drop_gguf_quantizer(model, "x.gguf")
    model.save_pretrained(tmp_path / "b")
    assert (tmp_path / "b" / "model.safetensors").exists()

    class GgufLinear(torch.nn.Linear):
        pass

    model.transformer.h[0].mlp.c_fc = GgufLinear(2, 2)
    with pytest.raises(ModelLoadError, match="packed"):
        _drop_gguf_quantizer(model, "x.gguf")
