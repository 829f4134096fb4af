"""SEAT on language models (bias-bench's rule: mean of the last hidden state, each
sentence alone, special tokens as the tokenizer adds them, normalised), with the
projection of an INLP / SentenceDebias folder applied; before/after with compare."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from genderscope.errors import GenderscopeError

SENTENCES = ["This is a nurse.", "He is an engineer.", "The girl went to school.", "hello"]


def _ref_bias_bench(folder: Path, texts: list[str], projection: np.ndarray | None = None
                    ) -> np.ndarray:
    """bias-bench's seat._encode, written here from its code: one sentence at a time,
    ``tokenizer(text)``, base model (BertModel / GPT2Model), mean over dim 1 of
    ``last_hidden_state`` (after bias-bench's INLP hook when a projection is given),
    divided by its norm."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    base = AutoModel.from_pretrained(folder).eval()
    if projection is not None:
        p = torch.from_numpy(projection.astype(np.float32))

        def hook(module, inputs, output):
            x = output["last_hidden_state"]
            for t in range(x.size(1)):
                x[:, t] = torch.matmul(p, x[:, t].T).T
            output["last_hidden_state"] = x
            return output

        (base.encoder if hasattr(base, "encoder") else base).register_forward_hook(hook)
    rows = []
    with torch.no_grad():
        for text in texts:
            enc = base(**tok(text, return_tensors="pt"))["last_hidden_state"].mean(dim=1)
            v = enc.view(-1).numpy().astype(np.float64)
            rows.append(v / np.linalg.norm(v))
    return np.array(rows)


@pytest.fixture(scope="module")
def inlp_bert(tiny_bert_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from genderscope.lm_debias.estimate import debias_lm

    out = tmp_path_factory.mktemp("seat-lm") / "inlp"
    debias_lm("inlp", tiny_bert_dir, out, limit=60, n_per_class=15, n_classifiers=2)
    return out


@pytest.fixture(scope="module")
def sdb_gpt2(tiny_gpt2_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from genderscope.lm_debias.estimate import debias_lm

    out = tmp_path_factory.mktemp("seat-lm") / "sentence-debias"
    debias_lm("sentence-debias", tiny_gpt2_dir, out, limit=60, max_pairs=40)
    return out


@pytest.mark.parametrize("which", ["tiny_bert_dir", "tiny_gpt2_dir"])
def test_lm_vectors_equal_bias_bench(which, request):
    from genderscope.models.lm_encoder import LMSentenceEncoder

    folder = request.getfixturevalue(which)
    enc = LMSentenceEncoder.load(folder, batch_size=3)  # batched, padded
    got = enc.encode(SENTENCES)
    assert np.abs(got - _ref_bias_bench(folder, SENTENCES)).max() < 1e-5


def _projection(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    from safetensors.numpy import load_file

    t = load_file(str(folder / "projection.safetensors"))
    return t["projection"].astype(np.float64), t["directions"].astype(np.float64)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["inlp_bert", "sdb_gpt2"])
def test_debiased_vectors_are_orthogonal_to_the_removed_directions(which, request):
    from genderscope.models.debias_folder import read_manifest
    from genderscope.models.lm_encoder import LMSentenceEncoder

    folder = request.getfixturevalue(which)
    base_spec = read_manifest(folder)["base_model"]["spec"]
    proj, directions = _projection(folder)
    after = LMSentenceEncoder.load(folder).encode(SENTENCES)
    before = LMSentenceEncoder.load(base_spec).encode(SENTENCES)
    unit = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    assert np.abs(before @ unit.T).max() > 1e-2  # the base model has a gender component
    assert np.abs(after @ unit.T).max() < 1e-4  # ... that the projection removes
    assert np.abs(after - after @ proj.T).max() < 1e-4  # P v = v
    if which == "inlp_bert":  # and bias-bench's hook gives the same vectors
        ref = _ref_bias_bench(Path(base_spec), SENTENCES, proj)
        assert np.abs(after - ref).max() < 1e-5


@pytest.mark.slow
def test_vectors_are_cached_under_the_debiased_fingerprint(inlp_bert, tiny_bert_dir, store):
    from genderscope.models.encoder import SentenceEncoder
    from genderscope.models.lm_encoder import LMSentenceEncoder

    enc = SentenceEncoder.load(str(inlp_bert), store=store)  # an LM folder: the LM view
    assert isinstance(enc, LMSentenceEncoder) and "debias:inlp" in enc.fingerprint
    first = enc.encode(SENTENCES)
    again = SentenceEncoder.load(str(inlp_bert), store=store)
    assert np.array_equal(again.encode(SENTENCES), first) and not again.loaded
    base = LMSentenceEncoder.load(tiny_bert_dir, store=store)
    assert base.fingerprint != enc.fingerprint
    assert not np.allclose(base.encode(SENTENCES), first)


def _main(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    import sys

    from genderscope.cli.app import main

    monkeypatch.setattr(sys, "argv", ["genderscope", *args])
    capsys.readouterr()
    try:
        main()
    except SystemExit as exc:
        return int(exc.code or 0), capsys.readouterr().err
    return 0, capsys.readouterr().err


@pytest.mark.slow
def test_cli_seat_and_compare_on_a_debiased_lm(capsys, monkeypatch, inlp_bert, tiny_bert_dir,
                                              tmp_path, data_dir):
    tests = str(data_dir / "seat" / "tests")
    code, err = _main(capsys, monkeypatch, "run", "seat", "--model", str(inlp_bert),
                      "--test", "sent-weat6", "--tests-dir", tests, "--out",
                      str(tmp_path / "one"), "--store", str(tmp_path / "s.sqlite"))
    assert code == 0, err
    one = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert one["method"] == "seat" and one["metadata"]["model"]["kind"] == "lm-encoder"
    assert "debias:inlp" in one["metadata"]["model"]["fingerprint"]
    out = tmp_path / "cmp"
    code, err = _main(capsys, monkeypatch, "compare", "--before", str(tiny_bert_dir),
                      "--after", str(inlp_bert), "--measure", "seat",
                      "--run-arg=--test", "--run-arg=sent-weat6",
                      "--run-arg=--tests-dir", f"--run-arg={tests}", "--no-plot",
                      "--out", str(out), "--store", str(tmp_path / "s.sqlite"))
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    rows = summary["summary"]["by_group"]
    assert summary["summary"]["value"] == "association"
    assert {r["set"] for r in rows} == {"(all)", "X", "Y"}
    assert all(r["ci_unit"] == "source words" for r in rows)
    assert all("p_adjusted" in r for r in rows[1:])
    before = json.loads((out / "before" / "summary.json").read_text())
    after = json.loads((out / "after" / "summary.json").read_text())
    assert before["summary"]["effect_size"] != after["summary"]["effect_size"]


def test_cli_seat_refuses_encoder_and_model(capsys, monkeypatch, tiny_bert_dir, tmp_path):
    code, err = _main(capsys, monkeypatch, "run", "seat", "--model", str(tiny_bert_dir),
                      "--encoder", "all-minilm-l6-v2", "--test", "sent-weat6", "--out",
                      str(tmp_path / "o"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not both" in err


def test_as_sentence_encoder_refuses_other_models():
    from genderscope.models.lm_encoder import as_sentence_encoder

    with pytest.raises(GenderscopeError, match="sentence encoder or a language model"):
        as_sentence_encoder(object())
