"""Issue 39: ``targets`` / ``ignore`` word lists for every vector debias method
(vector_debias/lists.left_alone; ``genderscope debias METHOD --target FILE --ignore
FILE``), and Hard Debias leaving every equalized word at unit norm even when it lies
outside the gender-specific list (WEFE 1.0.1 leaves such words at norms up to 1.118:
docs/results/wefe_agreement.md). Agreement with WEFE's target/ignore:
tests/agreement/test_wefe_modes_agreement.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genderscope.errors import DataError
from genderscope.models.vectors import WordVectors, load_vectors
from genderscope.vector_debias import DebiasLists, hard_debias
from genderscope.vector_debias.double_hard import double_hard_debias
from genderscope.vector_debias.hsr import hsr_debias
from genderscope.vector_debias.lists import read_word_list
from genderscope.vector_debias.multiclass import multiclass_hard_debias
from genderscope.vector_debias.ran import ran_debias
from tests.measures.test_embedding_metrics import _gender_world, _lists, _main

GENDERED = ("he", "she", "man", "woman", "boy", "girl", "king", "queen")


def _world(n: int = 40, dim: int = 8, seed: int = 3) -> tuple[WordVectors, DebiasLists]:
    rng = np.random.default_rng(seed)
    words = [*GENDERED, *(f"w{i}" for i in range(n))]
    vecs = WordVectors(rng.normal(size=(len(words), dim)).astype(np.float32), words,
                       fingerprint=f"t{seed}")
    # equalize pairs OUTSIDE the gender-specific list (only he/she/man/woman are in it)
    lists = DebiasLists((("he", "she"), ("man", "woman"), ("boy", "girl")),
                        (("boy", "girl"), ("king", "queen")), ("he", "she", "man", "woman"))
    return vecs, lists


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _rows(vecs: WordVectors, words: list[str]) -> list[int]:
    return [vecs.index[w] for w in words]


def test_hard_debias_equalized_words_outside_the_specific_list_are_unit_norm() -> None:
    vecs, lists = _world()
    out, fit = hard_debias(vecs, lists)
    assert fit.equalize == [("boy", "girl"), ("king", "queen")]
    norms = np.linalg.norm(out.astype(np.float64), axis=1)
    assert np.abs(norms - 1).max() < 1e-6
    eq = _rows(vecs, ["boy", "girl", "king", "queen"])
    assert np.abs(norms[eq] - 1).max() < 1e-6


METHODS = {
    "hard": lambda v, lst, **kw: hard_debias(v, lst, **kw),
    "multiclass-hard": lambda v, lst, **kw: multiclass_hard_debias(v, lst, n_components=1,
                                                                   **kw),
    "hsr": lambda v, lst, **kw: hsr_debias(v, lst, alpha=1.0, **kw),
    "double-hard": lambda v, lst, **kw: double_hard_debias(v, lst, n_words=5, n_components=2,
                                                           **kw),
    "ran": lambda v, lst, **kw: ran_debias(v, lst, n_words=0, epochs=5, **kw),
}


def _as_before(vecs: WordVectors, out: np.ndarray, rows: list[int], method: str) -> np.ndarray:
    """Per row: equal to the input (up to the unit scaling some methods apply)."""
    before = vecs.matrix[rows].astype(np.float64)
    after = out[rows].astype(np.float64)
    if method in ("hard", "multiclass-hard", "ran"):  # they normalise every vector
        before = _unit(before)
    return np.abs(after - before).max(axis=1) < 1e-6


@pytest.mark.parametrize("method", list(METHODS))
def test_targets_and_ignore_choose_the_debiased_words(method: str) -> None:
    vecs, lists = _world()
    run = METHODS[method]
    full, _ = run(vecs, lists)
    targets = ["w1", "w2", "w3", "w4", "w5", "w6"]
    ignore = ["w2", "w7"]
    out, _ = run(vecs, lists, targets=targets, ignore=ignore)
    debiased = _rows(vecs, ["w1", "w3", "w4", "w5", "w6"])
    others = [i for i in range(len(vecs)) if i not in debiased and vecs.words[i] not in
              ("boy", "girl", "king", "queen")]  # equalized pairs: always equalized
    assert _as_before(vecs, out, others, method).all()
    moved = ~_as_before(vecs, out, debiased, method)
    assert moved.all(), method  # each target was debiased ...
    if method not in ("double-hard", "ran"):  # ... exactly as without the lists
        assert np.abs(out[debiased] - full[debiased]).max() < 1e-6
    # ignore alone: every other word debiased as without it
    out_i, _ = run(vecs, lists, ignore=ignore)
    assert _as_before(vecs, out_i, _rows(vecs, ignore), method).all()
    if method in ("hard", "multiclass-hard", "hsr"):
        rest = [i for i in range(len(vecs)) if vecs.words[i] not in ignore]
        assert np.abs(out_i[rest] - full[rest]).max() < 1e-6


def test_read_word_list_json_or_lines(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('["nurse", "doctor", "nurse"]')
    (tmp_path / "b.txt").write_text("nurse\n\n doctor \n")
    assert read_word_list(tmp_path / "a.json") == read_word_list(tmp_path / "b.txt") == (
        "nurse", "doctor")
    (tmp_path / "c.json").write_text('["nurse", 3]')
    with pytest.raises(DataError, match="JSON list of words"):
        read_word_list(tmp_path / "c.json")
    (tmp_path / "d.txt").write_text("\n")
    with pytest.raises(DataError, match="empty"):
        read_word_list(tmp_path / "d.txt")


@pytest.mark.parametrize("method", ["hard", "hsr"])
def test_cli_target_and_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    vec = _gender_world(tmp_path)
    before = load_vectors(vec)
    (tmp_path / "target.txt").write_text("nurse\nengineer\n")
    (tmp_path / "ignore.json").write_text(json.dumps(["engineer"]))
    lists = _lists(tmp_path, [["he", "she"], ["man", "woman"]])  # equalize: king, queen
    code, err = _main(["debias", method, "--vectors", str(vec), "--out", str(tmp_path / "o"),
                       *lists, "--target", str(tmp_path / "target.txt"), "--ignore",
                       str(tmp_path / "ignore.json"), "--no-evaluate", "--store",
                       str(tmp_path / "s.sqlite")], capsys, monkeypatch)
    assert code == 0, err
    after = load_vectors(tmp_path / "o" / "vectors.bin")
    scale = (lambda m: _unit(m)) if method == "hard" else (lambda m: m)
    for w in [w for w in before.words if w not in ("king", "queen")]:
        same = np.allclose(after.vectors([w]), scale(before.vectors([w])), atol=1e-6)
        assert same == (w != "nurse"), w
    code, err = _main(["debias", method, "--vectors", str(vec), "--out", str(tmp_path / "p"),
                       "--target", str(tmp_path / "missing.txt"), "--no-evaluate"], capsys,
                      monkeypatch)
    assert code == 2 and "--target list not found" in err and not (tmp_path / "p").exists()


def test_the_evaluation_normalises_rows_with_the_debiasing_code() -> None:
    """One row normaliser (vector_debias/hard._unit) for the methods and the evaluation."""
    from genderscope.vector_debias import evaluate, hard

    assert evaluate._unit is hard._unit
    np.testing.assert_allclose(hard._unit(np.array([[3.0, 4.0], [0.0, 0.0]])),
                               [[0.6, 0.8], [0.0, 0.0]])
