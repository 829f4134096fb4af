"""Classifier adapter: wrapping, batching, cache, validation, SPEC loading."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from genderscope.errors import GenderscopeError, ModelLoadError
from genderscope.models.classifier import Classifier, ClassifierOutputError, load_classifier


def keyword_probs(texts: list[str]) -> np.ndarray:
    """Two classes: P(class 1) grows with the number of 'she' in the text."""
    k = np.array([t.lower().split().count("she") for t in texts], dtype=float)
    p1 = k / (k + 1.0)
    return np.column_stack([1 - p1, p1])


class Recorder:
    def __init__(self, fn=keyword_probs):
        self.fn = fn
        self.batches: list[list[str]] = []

    def __call__(self, texts):
        self.batches.append(list(texts))
        return self.fn(texts)


def test_callable_batches_and_cache():
    rec = Recorder()
    clf = Classifier(rec, batch_size=2)
    texts = ["a", "she", "a", "she she", "b"]
    p = clf.predict_proba(texts)
    assert p.shape == (5, 2)
    np.testing.assert_allclose(p[3], [1 / 3, 2 / 3])
    np.testing.assert_allclose(p[0], p[2])
    # 4 distinct texts in batches of at most 2, each asked once
    assert [len(b) for b in rec.batches] == [2, 2]
    assert sorted(t for b in rec.batches for t in b) == ["a", "b", "she", "she she"]
    assert (clf.queries, clf.requests, clf.calls) == (4, 5, 2)
    clf.predict_proba(["she", "c"])
    assert rec.batches[-1] == ["c"]
    assert (clf.queries, clf.requests) == (5, 7)


def test_cache_off_asks_every_text():
    rec = Recorder()
    clf = Classifier(rec, batch_size=10, cache=False)
    clf.predict_proba(["a", "a", "a"])
    clf.predict_proba(["a"])
    assert clf.queries == 4
    assert rec.batches == [["a", "a", "a"], ["a"]]


def test_sklearn_estimator_labels_and_probs():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts = ["good nice", "nice great", "bad awful", "awful terrible"] * 3
    y = ["pos", "pos", "neg", "neg"] * 3
    pipe = make_pipeline(CountVectorizer(), LogisticRegression()).fit(texts, y)
    clf = Classifier.wrap(pipe)
    assert clf.labels == ["neg", "pos"]
    p = clf.predict_proba(["good great", "terrible"])
    np.testing.assert_allclose(p, pipe.predict_proba(["good great", "terrible"]))
    assert list(clf.predict(["good great", "terrible"])) == [1, 0]
    assert clf.fingerprint.startswith("sklearn:Pipeline:")


def test_hf_pipeline_wrapping_orders_by_id2label():
    class Cfg:
        id2label = {0: "NEG", 1: "POS"}

    class Model:
        config = Cfg()
        name_or_path = "fake/model"

    class FakePipe:
        task = "text-classification"
        model = Model()
        tokenizer = object()

        def __call__(self, texts, top_k=None, truncation=True):
            assert top_k is None
            return [[{"label": "POS", "score": 0.8}, {"label": "NEG", "score": 0.2}]
                    for _ in texts]

    clf = Classifier.wrap(FakePipe())
    assert clf.labels == ["NEG", "POS"]
    np.testing.assert_allclose(clf.predict_proba(["x", "y"]), [[0.2, 0.8], [0.2, 0.8]])


@pytest.mark.parametrize("fn, match", [
    (lambda t: np.ones(len(t)), "shape"),
    (lambda t: np.full((len(t) + 1, 2), 0.5), "shape"),
    (lambda t: np.full((len(t), 2), np.nan), "NaN"),
    (lambda t: np.column_stack([np.full(len(t), 3.0), np.full(len(t), -2.0)]), "outside"),
    (lambda t: np.full((len(t), 2), 0.3), "sum to 1"),
    (lambda t: np.ones((len(t), 1)), "class column"),
    (lambda t: [["a", "b"]] * len(t), "not numeric"),
])
def test_bad_outputs_raise_clear_errors(fn, match):
    clf = Classifier(fn)
    with pytest.raises(ClassifierOutputError, match=match):
        clf.predict_proba(["x"])


def test_class_count_must_stay_the_same():
    calls = {"n": 0}

    def fn(texts):
        calls["n"] += 1
        k = 2 if calls["n"] == 1 else 3
        return np.full((len(texts), k), 1 / k)

    clf = Classifier(fn)
    clf.predict_proba(["a"])
    with pytest.raises(ClassifierOutputError, match="3 classes, expected 2"):
        clf.predict_proba(["b"])


def test_string_instead_of_list_and_empty_list():
    clf = Classifier(keyword_probs)
    with pytest.raises(GenderscopeError, match="list of texts"):
        clf.predict_proba("she")
    assert clf.predict_proba([]).shape[0] == 0
    with pytest.raises(GenderscopeError):
        Classifier.wrap(42)


def test_load_spec_pickle_module_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import joblib
    from sklearn.dummy import DummyClassifier

    est = DummyClassifier(strategy="prior").fit(["a", "b", "c"], [0, 1, 1])
    path = tmp_path / "clf.joblib"
    joblib.dump(est, path)
    clf = load_classifier(str(path))
    np.testing.assert_allclose(clf.predict_proba(["zzz"]), [[1 / 3, 2 / 3]])
    assert clf.fingerprint.startswith("file:")

    mod = tmp_path / "mymodel.py"
    mod.write_text(textwrap.dedent("""
        import numpy as np
        def predict(texts):
            return np.tile([0.25, 0.75], (len(texts), 1))
        def make():
            return predict
    """))
    np.testing.assert_allclose(load_classifier(f"{mod}:predict").predict_proba(["q"]),
                               [[0.25, 0.75]])
    np.testing.assert_allclose(load_classifier(f"{mod}:make()").predict_proba(["q"]),
                               [[0.25, 0.75]])
    monkeypatch.syspath_prepend(str(tmp_path))
    np.testing.assert_allclose(load_classifier("mymodel:predict").predict_proba(["q"]),
                               [[0.25, 0.75]])


@pytest.mark.parametrize("spec, exc, match", [
    ("missing.joblib", ModelLoadError, "not found"),
    ("no_such_module_xyz:f", ModelLoadError, "cannot import"),
    ("json:nope", ModelLoadError, "no attribute"),
    ("just-a-word", GenderscopeError, "cannot read classifier SPEC"),
    ("", GenderscopeError, "empty"),
])
def test_bad_specs(spec, exc, match):
    with pytest.raises(exc, match=match):
        load_classifier(spec)


def test_corrupt_pickle(tmp_path: Path):
    bad = tmp_path / "bad.pkl"
    bad.write_bytes(b"not a pickle")
    with pytest.raises(ModelLoadError, match="cannot unpickle"):
        load_classifier(str(bad))


def _env() -> dict[str, str]:
    import os

    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_cli_bad_classifier_output_exits_2(tmp_path: Path):
    mod = tmp_path / "nanmodel.py"
    mod.write_text("import numpy as np\ndef f(texts):\n"
                   "    return np.full((len(texts), 2), np.nan)\n")
    data = tmp_path / "d.txt"
    data.write_text("he is here\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "run",
         "counterfactual", "--classifier", f"{mod}:f", "--data", str(data),
         "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120,
        env=_env())
    assert proc.returncode == 2, proc.stderr
    assert "NaN" in proc.stderr and "Traceback" not in proc.stderr


def test_real_hf_text_classification_pipeline(tmp_path: Path):
    """``hf:FOLDER`` on a tiny random BERT classifier with the real uncased vocabulary."""
    transformers = pytest.importorskip("transformers")
    from genderscope.models.testing import bert_vocab_path

    tok = transformers.BertTokenizerFast(vocab=str(bert_vocab_path()), do_lower_case=True)
    cfg = transformers.BertConfig(vocab_size=len(tok), hidden_size=16, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=32, num_labels=3,
                                  id2label={0: "hate", 1: "offensive", 2: "neither"},
                                  label2id={"hate": 0, "offensive": 1, "neither": 2})
    transformers.set_seed(0)
    model = transformers.BertForSequenceClassification(cfg).eval()
    model.save_pretrained(tmp_path / "clf")
    tok.save_pretrained(tmp_path / "clf")
    clf = load_classifier(f"hf:{tmp_path / 'clf'}", batch_size=2)
    assert clf.labels == ["hate", "offensive", "neither"]
    texts = ["he is here", "she is there", "he is here"]
    p = clf.predict_proba(texts)
    assert p.shape == (3, 3) and clf.queries == 2
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-5)
    import torch

    with torch.inference_mode():
        logits = model(**tok(texts[:2], return_tensors="pt", padding=True)).logits
    np.testing.assert_allclose(p[:2], torch.softmax(logits, -1).numpy(), atol=1e-5)


def test_hf_checkpoint_without_classification_head_is_refused(tiny_bert_dir):
    """A masked LM loaded as a classifier would get a random head: refused."""
    with pytest.raises(ModelLoadError, match="no trained classification head"):
        load_classifier(f"hf:{tiny_bert_dir}")


def test_one_head_check_for_classifiers_and_language_models():
    """`hf:` classifiers and both LM adapters share models.head_check.check_head: keys tied to
    other weights are fine, missing or mismatched head weights are refused, worded for
    the caller."""
    from genderscope.models import hf
    from genderscope.models.head_check import check_head

    assert hf.check_head is check_head  # what LanguageModelAdapter._load runs for both kinds

    class Model:
        _tied_weights_keys = {"lm_head.weight": "embed.weight"}

    check_head(Model(), {"missing_keys": ["lm_head.weight"]}, "m")
    with pytest.raises(ModelLoadError, match=r"^m: the checkpoint lacks trained LM-head "
                                             r"weights \(cls\.bias would be randomly"):
        check_head(Model(), {"missing_keys": ["cls.bias"]}, "m")
    with pytest.raises(ModelLoadError, match=r"has no trained classification head .*"
                                             r"pass a fine-tuned"):
        check_head(Model(), {"mismatched_keys": [("classifier.weight", (2, 4), (3, 4))]},
                   "c", missing="has no trained classification head",
                   hint="pass a fine-tuned text-classification model")
