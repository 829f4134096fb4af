"""``genderscope debias inlp|sentence-debias|self-debias``: the folder, loading it with
``--model DIR``, and bad input (exit 2, one line, nothing unpickled)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from genderscope.errors import GenderscopeError


def _cli(*args: str):
    from genderscope.cli.app import app

    return CliRunner().invoke(app, list(args))


def _main(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    """``genderscope ARGS`` through the real entry point: (exit code, stderr)."""
    import sys

    from genderscope.cli.app import main

    monkeypatch.setattr(sys, "argv", ["genderscope", *args])
    capsys.readouterr()
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


@pytest.fixture()
def gs_main(capsys, monkeypatch):
    return lambda *args: _main(capsys, monkeypatch, *args)


def _one_line_error(res: tuple[int, str], *words: str) -> None:
    code, err = res
    out = err.strip()
    assert code == 2, out
    assert len(out.splitlines()) == 1 and "Traceback" not in out, out
    for w in words:
        assert w in out, out


@pytest.fixture()
def inlp_dir(tiny_bert_dir: Path, tmp_path: Path) -> Path:
    out = tmp_path / "inlp"
    res = _cli("debias", "inlp", "--model", str(tiny_bert_dir), "--out", str(out), "--limit",
               "60", "--per-class", "15", "--n-classifiers", "2", "--no-progress")
    assert res.exit_code == 0, res.output
    return out


def test_the_summary_table_reads_counts_not_a_dict(monkeypatch) -> None:
    """``debias inlp`` printed its sentence counts as "{'male': 100, 'female': 100, ...}"."""
    from rich.console import Console

    from genderscope.cli.commands import debias_lm

    console = Console(record=True, width=200)
    monkeypatch.setattr(debias_lm, "console", console)
    debias_lm._show("inlp", Path("out"), {"base_model": {"spec": "m"}, "seconds": 1.0,
                                          "data": {"sentences": {"male": 100, "female": 90,
                                                                 "neutral": 80},
                                                   "pairs_left_out": 4}})
    text = console.export_text()
    assert "100 male, 90 female, 80 neutral" in text and "{" not in text
    assert "pairs left out" in text and "_" not in text  # words, not manifest keys


def test_inlp_folder_is_safetensors_and_json_and_loads(inlp_dir, tiny_bert_dir, store):
    from genderscope.models.loading import load_lm

    assert sorted(p.name for p in inlp_dir.iterdir()) == ["manifest.json",
                                                          "projection.safetensors"]
    manifest = json.loads((inlp_dir / "manifest.json").read_text())
    assert manifest["technique"] == "inlp" and manifest["base_model"]["hidden_size"] == 32
    assert manifest["data"]["sentences"] == {"male": 15, "female": 15, "neutral": 15}
    lm = load_lm(inlp_dir, store=store)
    base = load_lm(tiny_bert_dir, store=store)
    assert lm.fingerprint != base.fingerprint and "debias:inlp" in lm.fingerprint
    assert lm.describe()["debias"]["technique"] == "inlp"
    texts = ["he is a nurse .", "she is a doctor ."]
    a = [s.total for s in lm.pseudo_log_likelihood(texts)]
    b = [s.total for s in base.pseudo_log_likelihood(texts)]
    assert not np.allclose(a, b)
    again = load_lm(inlp_dir, store=store)  # deferred: cached answers, no weights loaded
    assert [s.total for s in again.pseudo_log_likelihood(texts)] == a and not again.loaded
    # a new question loads the weights, with the projection installed on loading
    fresh = load_lm(inlp_dir).pseudo_log_likelihood(["my father is an engineer ."])[0].total
    assert again.pseudo_log_likelihood(["my father is an engineer ."])[0].total == \
        pytest.approx(fresh, abs=1e-5) and again.loaded


def test_measure_runs_on_a_debiased_folder(inlp_dir, tmp_path):
    res = _cli("run", "crows-pairs", "--model", str(inlp_dir), "--bias-type", "gender",
               "--limit", "4", "--out", str(tmp_path / "cp"))
    assert res.exit_code == 0, res.output
    meta = json.loads((tmp_path / "cp" / "summary.json").read_text())
    assert "debias:inlp" in json.dumps(meta)


def test_corpus_without_attribute_words(gs_main, tiny_bert_dir, tmp_path):
    corpus = tmp_path / "plain.txt"
    corpus.write_text("The weather was fine all week long.\nA river runs through the old "
                      "town today.\n", encoding="utf-8")
    for tech in ("inlp", "sentence-debias"):
        res = gs_main("debias", tech, "--model", str(tiny_bert_dir), "--out",
                   str(tmp_path / tech), "--corpus", str(corpus))
        _one_line_error(res, "attribute word")
        assert not (tmp_path / tech).exists()  # nothing written


def test_output_folder_made_by_another_technique(gs_main, inlp_dir, tiny_gpt2_dir, tiny_bert_dir,
                                                 tmp_path):
    res = gs_main("debias", "self-debias", "--model", str(tiny_gpt2_dir), "--out", str(inlp_dir))
    _one_line_error(res, "debias inlp")
    res = gs_main("debias", "sentence-debias", "--model", str(tiny_bert_dir), "--out",
               str(inlp_dir), "--overwrite")
    _one_line_error(res, "debias inlp")
    unfinished = tmp_path / "cds-run"
    (unfinished / "checkpoints" / "step-2").mkdir(parents=True)
    res = gs_main("debias", "inlp", "--model", str(tiny_bert_dir), "--out", str(unfinished))
    _one_line_error(res, "unfinished")
    assert (unfinished / "checkpoints" / "step-2").is_dir()  # nothing deleted
    res = gs_main("debias", "inlp", "--model", str(tiny_bert_dir), "--out", str(inlp_dir))
    _one_line_error(res, "--overwrite")


def test_projection_from_another_model(gs_main, inlp_dir, tmp_path):
    from genderscope.models.testing import build_bert

    other = build_bert(tmp_path / "other-bert", seed=7)
    moved = tmp_path / "moved"
    shutil.copytree(inlp_dir, moved)
    manifest = json.loads((moved / "manifest.json").read_text())
    manifest["base_model"]["spec"] = str(other)
    (moved / "manifest.json").write_text(json.dumps(manifest))
    res = gs_main("run", "crows-pairs", "--model", str(moved), "--limit", "2", "--out",
               str(tmp_path / "cp"))
    _one_line_error(res, "another model")
    # a projection file swapped in from another run
    swapped = tmp_path / "swapped"
    shutil.copytree(inlp_dir, swapped)
    from safetensors.numpy import save_file

    save_file({"projection": np.eye(32, dtype=np.float32)},
              str(swapped / "projection.safetensors"))
    res = gs_main("run", "crows-pairs", "--model", str(swapped), "--limit", "2", "--out",
               str(tmp_path / "cp2"))
    _one_line_error(res, "another run")


def test_model_without_hidden_states():
    import torch

    from genderscope.models.projection import hidden_body, install_projection

    class Headless(torch.nn.Module):
        base_model_prefix = ""

        def forward(self, input_ids):  # pragma: no cover - never called
            return input_ids

    with pytest.raises(GenderscopeError, match="exposes no hidden states"):
        hidden_body(Headless())
    with pytest.raises(GenderscopeError, match="exposes no hidden states"):
        install_projection(Headless(), np.eye(4))


def test_self_debias_on_a_masked_lm(gs_main, tiny_bert_dir, tmp_path):
    from genderscope.models.loading import load_lm

    code, err = gs_main("debias", "self-debias", "--model", str(tiny_bert_dir), "--out",
                        str(tmp_path / "sd"), "--decay-constant", "5000", "--no-progress")
    assert code == 0, err  # (a random BERT is near uniform: a large λ makes the change show)
    lm = load_lm(tmp_path / "sd")
    assert lm.kind == "masked" and "debias:self-debias" in lm.fingerprint
    texts = ["the nurse said that she was tired .", "he is a doctor"]
    got = [s.total for s in lm.pseudo_log_likelihood(texts)]
    base = [s.total for s in load_lm(tiny_bert_dir).pseudo_log_likelihood(texts)]
    assert all(np.isfinite(got)) and np.abs(np.array(got) - base).max() > 1e-2


def test_self_debias_prefix_longer_than_the_model(tiny_gpt2_dir, tmp_path):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.loading import load_lm

    debias_lm("self-debias", tiny_gpt2_dir, tmp_path / "sd", prefixes=["zq " * 120])
    with pytest.raises(GenderscopeError, match="positions"):
        load_lm(tmp_path / "sd").log_likelihood(["he is a nurse"])


# -- Dropout ------------------------------------------------------------------------------
def test_raise_dropout_keeps_weights(tiny_bert_dir, tiny_gpt2_dir):
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    from genderscope.lm_debias.dropout import raise_dropout

    for auto, folder, want in ((AutoModelForMaskedLM, tiny_bert_dir,
                                {"hidden_dropout_prob": 0.2,
                                 "attention_probs_dropout_prob": 0.15}),
                               (AutoModelForCausalLM, tiny_gpt2_dir,
                                {"resid_pdrop": 0.15, "embd_pdrop": 0.15,
                                 "attn_pdrop": 0.15})):
        model = auto.from_pretrained(folder)
        rebuilt, settings = raise_dropout(model)
        assert settings == want
        drops = {m.p for m in rebuilt.modules() if isinstance(m, torch.nn.Dropout)}
        assert drops & set(want.values()) and not drops & {0.1}
        a, b = model.state_dict(), rebuilt.state_dict()
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_dropout_cli_trains_and_refuses_another_run(gs_main, tiny_gpt2_dir, tmp_path):
    from genderscope.lm_debias.finetune import FinetuneConfig, fine_tune

    corpus = tmp_path / "c.txt"
    corpus.write_text("He is a nurse.\nShe is a doctor.\nThe boy and the girl went to "
                      "school.\n", encoding="utf-8")
    out = tmp_path / "dropout"
    code, err = gs_main("debias", "dropout", "--model", str(tiny_gpt2_dir), "--corpus",
                        str(corpus), "--out", str(out), "--max-steps", "2", "--no-progress")
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["technique"] == "dropout" and manifest["params"]["dropout_debias"]
    assert json.loads((out / "config.json").read_text())["resid_pdrop"] == 0.15
    # an unfinished CDS run is not resumed as a dropout run
    cds = tmp_path / "cds"
    fine_tune(str(tiny_gpt2_dir), ["he is a nurse", "she is a doctor", "a b c"], cds,
              config=FinetuneConfig(epochs=1, save_every=1), stop_after=1)
    _one_line_error(gs_main("debias", "dropout", "--model", str(tiny_gpt2_dir), "--corpus",
                            str(corpus), "--out", str(cds), "--no-progress"),
                    "other settings")


@pytest.mark.slow
def test_compare_before_after_a_debiased_folder(gs_main, inlp_dir, tiny_bert_dir, tmp_path):
    out = tmp_path / "cmp"
    code, err = gs_main("compare", "--before", str(tiny_bert_dir), "--after", str(inlp_dir),
                        "--measure", "crows-pairs", "--run-arg=--bias-type",
                        "--run-arg=gender", "--run-arg=--limit", "--run-arg=12", "--no-plot",
                        "--out", str(out))
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    text = json.dumps(summary)
    assert "p_adjusted" in text or "holm" in text.lower()
    before = json.loads((out / "before" / "summary.json").read_text())
    after = json.loads((out / "after" / "summary.json").read_text())
    assert "debias:inlp" in json.dumps(after) and "debias:inlp" not in json.dumps(before)


@pytest.fixture(scope="module")
def chat_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from genderscope.models.testing import build_chat_llama

    return build_chat_llama(tmp_path_factory.mktemp("chat") / "m")


@pytest.mark.slow
def test_self_debias_generation(chat_dir, tmp_path):
    """Generation with Self-Debias: batched greedy answers equal one-at-a-time answers,
    differ from the base model's, are cached under a key that holds the prefixes, λ and ε
    (another λ generates again), and sampled answers are seeded per prompt."""
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.generate import Decoding
    from genderscope.models.loading import load_lm
    from genderscope.store import Store

    debias_lm("self-debias", chat_dir, tmp_path / "sd")
    debias_lm("self-debias", chat_dir, tmp_path / "sd10", decay_constant=10.0)
    prompts = ["hello", "tell me about the nurse", "who fixed the car and why"]
    dec = Decoding(max_new_tokens=12)
    lm = load_lm(tmp_path / "sd")
    batched = lm.chat(prompts, dec, batch_size=3)
    assert batched == [lm.chat([p], dec)[0] for p in prompts]
    assert batched != load_lm(chat_dir).chat(prompts, dec)
    store = Store(tmp_path / "s.sqlite")
    try:
        first = load_lm(tmp_path / "sd", store=store).chat(prompts, dec)
        again = load_lm(tmp_path / "sd", store=store)
        assert again.chat(prompts, dec) == first and not again.loaded
        other = load_lm(tmp_path / "sd10", store=store)
        assert other.fingerprint != again.fingerprint
        other.chat(prompts, dec)
        assert other.loaded  # not answered from the first folder's cache
    finally:
        store.close()
    sample = Decoding(max_new_tokens=8, temperature=1.0, top_p=0.9, seed=3)
    a = lm.chat(prompts, sample)
    assert a == lm.chat(prompts[::-1], sample)[::-1]
    assert a != lm.chat(prompts, Decoding(max_new_tokens=8, temperature=1.0, top_p=0.9,
                                          seed=4))
