"""``--features bias-bench`` for INLP and SentenceDebias on a causal LM (issue 39, item 2).

The references are retyped here from reading bias-bench at 291426a (no code copied):
``dataset/inlp.py`` (``_load_gender_data``: Python's ``random`` seeded, passages shuffled,
``tokens.index(token)`` as the clip index), ``dataset/sentence_debias.py``
(``_GenericDataset.load_examples``: each line lower-cased before sentence splitting,
``_gender_augment_func``), ``debias/inlp/context_nullspace_projection.py``
(``_extract_gender_features``: one sentence at a time, ``add_special_tokens=True,
truncation=True``, mean of ``last_hidden_state``) and ``debias/sentence_debias.py``
(``compute_gender_subspace``: ``len(data) // batch_size`` batches, so the partial last
batch is left out; padded to 128 with GPT-2's pad = eos; masked mean; L2 norm; pair
means removed; first PCA component). Sentence splitting is Punkt (the ``punkt`` package
genderscope uses offline, standing in for ``nltk.sent_tokenize``). Model: the tiny GPT-2,
whose start token ``<s>`` genderscope's default features include and bias-bench's do not.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.decomposition import PCA

TOL = 1e-5
MADE = ["He said that he would come back to the old house later that night .",
        "Everyone agreed that she was late and that she knew it well enough ."]


def _split(text: str) -> list[str]:
    import punkt

    return [s for s in punkt.sent_tokenize(text, "english") if s.strip()]


def _ref_inlp_sentences(lines: list[str], pairs, n: int, seed: int) -> dict[str, list[str]]:
    male_words, female_words = {m for m, _ in pairs}, {f for _, f in pairs}
    random.seed(seed)
    lines = list(lines)
    random.shuffle(lines)
    out: dict[str, list[str]] = {"male": [], "female": [], "neutral": []}
    seen_m: list[str] = []
    seen_f: list[str] = []
    for line in lines:
        for sentence in _split(line):
            tokens = [t.lower() for t in sentence.split(" ")]
            if len(tokens) < 5:
                continue
            m = f = False
            idx = -1
            for token in tokens:
                if token in male_words:
                    m, idx = True, tokens.index(token)
                if token in female_words:
                    f, idx = True, tokens.index(token)
                if m and f:
                    break
            if not m and not f and len(out["neutral"]) < n:
                out["neutral"].append(" ".join(tokens[:random.randint(4, len(tokens))]))
                continue
            if m and f:
                continue
            if m and len(out["male"]) < n and sentence not in seen_m:
                seen_m.append(sentence)
                out["male"].append(" ".join(tokens[:random.randint(idx, len(tokens)) + 1]))
            if f and len(out["female"]) < n and sentence not in seen_f:
                seen_f.append(sentence)
                out["female"].append(" ".join(tokens[:random.randint(idx, len(tokens)) + 1]))
        if len(out["male"]) == len(out["female"]) == len(out["neutral"]) == n:
            break
    return out


def _ref_features(model_dir: Path, sentences: list[str]) -> np.ndarray:
    from transformers import AutoTokenizer, GPT2LMHeadModel

    tok = AutoTokenizer.from_pretrained(model_dir)
    body = GPT2LMHeadModel.from_pretrained(model_dir).eval().transformer
    rows = []
    with torch.no_grad():
        for s in sentences:
            enc = tok(s, add_special_tokens=True, truncation=True, return_tensors="pt")
            rows.append(body(**enc)["last_hidden_state"].mean(dim=1).squeeze().numpy())
    return np.array(rows, dtype=np.float64)


@pytest.fixture(scope="module")
def gpt2_512_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny GPT-2 with 512 positions: a sentence longer than 128 tokens fits."""
    from genderscope.models.testing import build_gpt2

    return build_gpt2(tmp_path_factory.mktemp("gpt2-512"), n_positions=512)


@pytest.fixture()
def corpus():
    from genderscope.datasets.corpus import load_corpus
    from genderscope.lm_debias.attribute_data import load_word_pairs

    return list(load_corpus("gap", limit=60).texts) + MADE, load_word_pairs()[0]


def test_inlp_sentences_and_features_as_bias_bench(gpt2_512_dir, corpus):
    from genderscope.lm_debias.attribute_data import inlp_sentences
    from genderscope.models.loading import load_lm
    from genderscope.models.projection import sentence_features

    lines, pairs = corpus
    ref = _ref_inlp_sentences(lines, pairs, n=25, seed=3)
    ours = inlp_sentences(lines, pairs, n_per_class=25, seed=3, rule="bias-bench")
    assert {"male": ours.male, "female": ours.female, "neutral": ours.neutral} == ref
    assert min(len(v) for v in ref.values()) == 25
    # the clip index: first occurrence of the last attribute word ("he ... he": 0, not 3)
    one = inlp_sentences(MADE[:1], pairs, n_per_class=5, seed=0, rule="bias-bench")
    assert one.male == _ref_inlp_sentences(MADE[:1], pairs, 5, 0)["male"]
    lm = load_lm(gpt2_512_dir)
    assert lm.start_token_id is not None
    long = " ".join(["word"] * 150)
    assert 128 < len(lm.tokenize([long])[0]) < 500
    texts = ref["male"] + ref["female"][:5] + [long]
    got = sentence_features(lm, texts, max_length=None, rule="bias-bench")
    want = _ref_features(gpt2_512_dir, texts)
    assert np.abs(got - want).max() < TOL
    default = sentence_features(lm, texts)  # start token, cut at 128
    assert np.abs(default - want).max() > 1e-3


def _ref_sentence_debias(model_dir: Path, lines: list[str], pairs, limit: int,
                         batch_size: int = 32) -> np.ndarray:
    from transformers import AutoTokenizer, GPT2LMHeadModel

    examples = []
    for line in lines:
        for sentence in _split(line.lower()):
            text = sentence.lower().strip()
            words = text.split(" ")
            for female_word, male_word in pairs:  # bias-bench's names for [json0, json1]
                if female_word in words:
                    examples.append({"female_example": text, "male_example": " ".join(
                        male_word if w == female_word else w for w in words)})
                if male_word in words:
                    examples.append({"female_example": " ".join(
                        female_word if w == male_word else w for w in words),
                        "male_example": text})
    data = examples[:limit]
    tok = AutoTokenizer.from_pretrained(model_dir)
    tok.pad_token = tok.eos_token
    body = GPT2LMHeadModel.from_pretrained(model_dir).eval().transformer
    side: dict[str, list[np.ndarray]] = {"male_example": [], "female_example": []}
    for i in range(len(data) // batch_size):
        chunk = data[batch_size * i:batch_size * (i + 1)]
        for key in side:
            enc = tok([e[key] for e in chunk], return_tensors="pt", truncation=True,
                      padding="max_length", max_length=128)
            with torch.no_grad():
                h = body(input_ids=enc["input_ids"],
                         attention_mask=enc["attention_mask"])["last_hidden_state"]
            h = (h * enc["attention_mask"].unsqueeze(-1)).sum(dim=1) / \
                enc["attention_mask"].sum(dim=1, keepdim=True)
            side[key].append((h / torch.norm(h, dim=-1, keepdim=True)).numpy())
    m, f = np.concatenate(side["male_example"]), np.concatenate(side["female_example"])
    mu = (m + f) / 2.0
    pca = PCA(n_components=1)
    pca.fit(np.concatenate([m - mu, f - mu]))
    v = pca.components_[0].astype(np.float64)
    return np.eye(len(v)) - np.outer(v, v) / v.dot(v)


def test_sentence_debias_as_bias_bench_with_a_partial_batch(tiny_gpt2_dir, corpus, tmp_path):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.debias_folder import load_projection, read_manifest

    lines, pairs = corpus
    gap_lines = lines[:-2]
    out = tmp_path / "sd"
    debias_lm("sentence-debias", tiny_gpt2_dir, out, limit=60, max_pairs=70,
              features="bias-bench")
    manifest = read_manifest(out)
    assert manifest["data"]["counterfactual_pairs"] == 64  # of 70: 2 batches of 32 + 6
    assert manifest["data"]["pairs_left_out"] == 6
    assert manifest["params"]["features"] == "bias-bench"
    ours = load_projection(out, manifest).astype(np.float64)
    ref = _ref_sentence_debias(tiny_gpt2_dir, gap_lines, pairs, limit=70)
    assert np.abs(ours - ref).max() < TOL
    default = tmp_path / "default"
    debias_lm("sentence-debias", tiny_gpt2_dir, default, limit=60, max_pairs=70)
    assert np.abs(load_projection(default, read_manifest(default)) - ref).max() > 1e-3


def test_inlp_bias_bench_features_end_to_end(gpt2_512_dir, tmp_path):
    """The folder's projection is INLP of the bias-bench features (the same sentences
    and features as above; LinearSVC's solution is compared from identical features)."""
    from genderscope.datasets.corpus import load_corpus
    from genderscope.lm_debias.attribute_data import inlp_sentences, load_word_pairs
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.lm_debias.subspace import inlp
    from genderscope.models.debias_folder import load_projection, read_manifest
    from genderscope.models.loading import load_lm
    from genderscope.models.projection import sentence_features

    out = tmp_path / "inlp"
    debias_lm("inlp", gpt2_512_dir, out, limit=60, n_per_class=20, n_classifiers=2,
              features="bias-bench")
    manifest = read_manifest(out)
    sents = inlp_sentences(load_corpus("gap", limit=60).texts, load_word_pairs()[0],
                           n_per_class=20, seed=0, rule="bias-bench")
    groups = (sents.male, sents.female, sents.neutral)
    feats = np.split(sentence_features(load_lm(gpt2_512_dir), [t for g in groups for t in g],
                                       max_length=None, rule="bias-bench"),
                     np.cumsum([len(g) for g in groups])[:-1])
    want = inlp(*feats, n_classifiers=2).projection
    assert np.abs(load_projection(out, manifest) - want).max() < 1e-6


def test_features_option_is_checked(tiny_gpt2_dir, tmp_path):
    from genderscope.errors import GenderscopeError
    from genderscope.lm_debias.estimate import debias_lm

    with pytest.raises(GenderscopeError, match="--features"):
        debias_lm("inlp", tiny_gpt2_dir, tmp_path / "x", features="meade")


def test_cli_features_flag(tiny_gpt2_dir, tmp_path, capsys, monkeypatch):
    """``genderscope debias sentence-debias --features bias-bench`` writes the mode into the
    manifest and shows the pairs left out; an unknown value is one line, exit 2."""
    import sys

    from genderscope.cli.app import main
    from genderscope.models.debias_folder import read_manifest

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["genderscope", *args])
        capsys.readouterr()
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        cap = capsys.readouterr()
        return code, cap.out, cap.err

    out = tmp_path / "sd"
    code, text, err = run("debias", "sentence-debias", "--model", str(tiny_gpt2_dir), "--out",
                          str(out), "--limit", "40", "--max-pairs", "40", "--features",
                          "bias-bench", "--no-progress")
    assert code == 0, err
    assert read_manifest(out)["data"]["pairs_left_out"] == 8 and "pairs left out" in text
    assert f"--model {out} --measure perplexity --measure downstream" in " ".join(text.split())
    code, _, err = run("debias", "inlp", "--model", str(tiny_gpt2_dir), "--out",
                       str(tmp_path / "x"), "--features", "meade", "--no-progress")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--features meade" in lines[0], err
