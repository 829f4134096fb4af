"""SEAT test files, the sentence-encoder adapter and the SEAT measure."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from genderscope.datasets.seat import list_tests, load_test, resolve_test
from genderscope.errors import DataError
from genderscope.measures.weat import association_scores, seat
from genderscope.models.encoder import SentenceEncoder

GOOD = {"targ1": {"category": "M", "examples": ["He is here.", "The man is here."]},
        "targ2": {"category": "F", "examples": ["She is here.", "The woman is here."]},
        "attr1": {"category": "C", "examples": ["This is a career."]},
        "attr2": {"category": "H", "examples": ["This is a home.", "This is a family."]}}


class FakeModel:
    """Deterministic stand-in for SentenceTransformer: a hashed bag of characters."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t:
                out[i, ord(ch) % 16] += 1.0
        return out

    def get_embedding_dimension(self) -> int:
        return 16


def _write(tmp_path: Path, obj: object, name: str = "t.jsonl") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return p


def test_load_real_tests(data_dir: Path) -> None:
    folder = data_dir / "seat" / "tests"
    names = list_tests(folder)
    assert "weat1" in names and "sent-weat10" in names
    assert names.index("weat2") < names.index("weat10")  # natural order
    t = resolve_test("sent-weat6", folder)
    assert t.targ1.category == "MaleNames" and len(t.targ1.examples) == 64
    assert len(t.sha256) == 64


@pytest.mark.parametrize("key", ["targ1", "targ2", "attr1", "attr2"])
def test_missing_key(tmp_path: Path, key: str) -> None:
    bad = {k: v for k, v in GOOD.items() if k != key}
    with pytest.raises(DataError, match=f"missing key '{key}'"):
        load_test(_write(tmp_path, bad))


def test_malformed_files(tmp_path: Path) -> None:
    p = tmp_path / "broken.jsonl"
    p.write_text('{"targ1": ')
    with pytest.raises(DataError, match=r"broken.jsonl:1.*invalid JSON"):
        load_test(p)
    with pytest.raises(DataError, match="no 'examples'"):
        load_test(_write(tmp_path, {**GOOD, "attr1": {"category": "C"}}))
    with pytest.raises(DataError, match="attr2.examples is empty"):
        load_test(_write(tmp_path, {**GOOD, "attr2": {"category": "H", "examples": [" "]}}))
    with pytest.raises(DataError, match="one JSON object"):
        load_test(_write(tmp_path, [1, 2]))
    with pytest.raises(DataError, match="not found"):
        load_test(tmp_path / "absent.jsonl")


def test_resolve_unknown_name(tmp_path: Path) -> None:
    _write(tmp_path, GOOD, "mine.jsonl")
    assert resolve_test("mine", tmp_path).name == "mine"
    with pytest.raises(DataError, match=r"no test named 'weat99' in .* \(e.g. mine\)"):
        resolve_test("weat99", tmp_path)
    with pytest.raises(DataError, match="does not exist"):
        resolve_test("weat99", tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="holds no <name>.jsonl tests"):
        resolve_test("weat99", tmp_path / "empty")


def test_encoder_deduplicates_and_caches() -> None:
    model = FakeModel()
    enc = SentenceEncoder(model, name="fake", batch_size=2)
    texts = ["a b", "ccc", "a b", "dd", "ccc"]
    out = enc.encode(texts)
    assert out.shape == (5, 16)
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(out, model.encode(texts))  # order kept
    assert enc.n_encoded == 3
    assert sorted(t for call in model.calls[:-1] for t in call) == ["a b", "ccc", "dd"]
    assert all(len(c) <= 2 for c in model.calls[:-1])  # batched
    enc.encode(["dd", "a b"])
    assert enc.n_encoded == 3  # answered from the cache


def test_encoder_store_cache(store) -> None:  # noqa: ANN001
    if not hasattr(store, "get_arrays"):
        pytest.skip("store has no array cache")
    a = SentenceEncoder(FakeModel(), name="fake", fingerprint="fake:1", store=store)
    first = a.encode(["one", "two"])
    model = FakeModel()
    b = SentenceEncoder(model, name="fake", fingerprint="fake:1", store=store)
    np.testing.assert_allclose(b.encode(["two", "one"]), first[::-1])
    assert b.n_encoded == 0 and model.calls == []


def test_seat_with_fake_encoder(tmp_path: Path) -> None:
    t = load_test(_write(tmp_path, GOOD))
    model = FakeModel()
    enc = SentenceEncoder(model, name="fake")
    res = seat(enc, t, n_resamples=100)
    assert res.method == "seat"
    emb = {k: model.encode(list(getattr(t, k).examples)) for k in ("targ1", "targ2",
                                                                     "attr1", "attr2")}
    s, _, _ = association_scores(np.vstack([emb["targ1"], emb["targ2"]]), emb["attr1"],
                                 emb["attr2"])
    np.testing.assert_allclose(res.items["association"], s, rtol=1e-6)
    assert res.summary["statistic"] == pytest.approx(s[:2].sum() - s[2:].sum(), rel=1e-6)
    assert res.summary["n_permutations"] == 6 and res.summary["exact"]
    assert res.metadata["model"]["name"] == "fake"


@pytest.fixture(scope="module")
def minilm() -> SentenceEncoder:
    return SentenceEncoder.load("all-minilm-l6-v2")


@pytest.mark.slow
def test_seat_minilm_sent_weat6(minilm: SentenceEncoder, data_dir: Path) -> None:
    t = resolve_test("sent-weat6", data_dir / "seat" / "tests")
    res = seat(minilm, t, n_resamples=500)
    assert res.summary["sizes"] == {"X": 64, "Y": 64, "A": 101, "B": 112}
    # the unit is the source word (8 per target set): every one of C(16, 8) = 12,870
    # splits of the words is enumerated; May et al.'s 10,000 sentence permutations are
    # kept beside it as p_as_published (issue 22, row 1)
    assert res.summary["n_units"] == {"X": 8, "Y": 8}
    assert res.summary["exact"] and res.summary["n_permutations"] == 12_870
    assert res.summary["p_as_published"]["n_permutations"] == 10_000
    assert res.summary["p_as_published"]["unit"] == "sentences"
    # direct check against sentence-transformers' own embeddings for two sentences
    direct = minilm.model.encode(["This is John.", "This is a career."])
    mine = minilm.encode(["This is John.", "This is a career."])
    np.testing.assert_allclose(mine, direct, atol=1e-5)
    assert res.summary["effect_size"]["estimate"] > 0.5 and res.summary["p_value"] < 0.01


@pytest.mark.slow
def test_cli_seat(tmp_path: Path, data_dir: Path) -> None:
    from genderscope.cli.app import app

    r = CliRunner().invoke(app, ["run", "seat", "--test", "sent-weat9", "--tests-dir",
                                 str(data_dir / "seat" / "tests"), "--out",
                                 str(tmp_path / "o"), "--store", str(tmp_path / "s.sqlite"),
                                 "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["method"] == "seat" and summary["summary"]["test"] == "sent-weat9"


def test_source_words_of_the_gender_tests(data_dir: Path) -> None:
    """Issue 22 row 1: each SEAT sentence maps to the word it was made from, the unit
    of the test and of d's CI: 8 words per target set in sent-weat6/7/8, every
    sentence of a word under one label; plain word lists map to themselves."""
    import json
    from collections import Counter

    from genderscope.measures.seat_words import source_words

    def labels(name: str) -> list[list[str]]:
        raw = json.loads((data_dir / "seat" / "tests" / f"{name}.jsonl").read_text())
        return source_words([raw[k]["examples"] for k in ("targ1", "targ2", "attr1",
                                                           "attr2")])

    six = labels("sent-weat6")
    assert Counter(six[0]) == {n: 8 for n in ("john", "paul", "mike", "kevin", "steve",
                                               "greg", "jeff", "bill")}
    assert len(set(six[1])) == 8
    seven = labels("sent-weat7")
    assert Counter(seven[0])["equation"] == 14 and Counter(seven[0])["math"] == 4
    for name in ("sent-weat7", "sent-weat8"):
        assert [len(set(s)) for s in labels(name)[:2]] == [8, 8], name
    assert labels("weat6")[0][:2] == ["John", "Paul"]
    assert len(set(labels("sent-angry_black_woman_stereotype_b")[0])) == 4
    assert labels("angry_black_woman_stereotype_b")[0] == ["white female", "white woman",
                                                            "white girl",
                                                            "fair-skinned woman"]
