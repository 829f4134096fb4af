"""Word-vector adapter: GloVe text, word2vec text/binary, numpy + vocab, packaged GloVe."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from genderscope.errors import DataError, ModelLoadError
from genderscope.models.vectors import WordVectors, load_vectors

WORDS = ["he", "she", "doctor", "nurse"]
MAT = np.array([[0.5, -1.0, 2.0], [0.25, 1.5, -2.0], [1.0, 0.0, 0.125], [-0.5, 0.75, 3.0]],
               dtype=np.float32)


def _text_rows(words: list[str], mat: np.ndarray) -> str:
    return "".join(w + " " + " ".join(repr(float(v)) for v in row) + "\n"
                   for w, row in zip(words, mat, strict=True))


def _write_w2v_binary(path: Path, words: list[str], mat: np.ndarray,
                      header: str | None = None) -> None:
    with open(path, "wb") as fh:
        fh.write((header or f"{len(words)} {mat.shape[1]}\n").encode())
        for w, row in zip(words, mat, strict=True):
            fh.write(w.encode() + b" " + row.astype("<f4").tobytes() + b"\n")


def _check(v: WordVectors, words: list[str] = WORDS) -> None:
    assert len(v) == len(words) and v.dim == 3
    np.testing.assert_allclose(v.vectors(words), MAT.astype(np.float64))
    assert "nurse" in v and "surgeon" not in v


def test_glove_text(tmp_path: Path) -> None:
    p = tmp_path / "vec.txt"
    p.write_text(_text_rows(WORDS, MAT))
    v = load_vectors(p)
    assert v.source_format == "glove"
    _check(v)


def test_glove_word_with_spaces(tmp_path: Path) -> None:
    p = tmp_path / "vec.txt"
    words = ["he", ". . .", "doctor", "nurse"]
    p.write_text(_text_rows(words, MAT))
    v = WordVectors.from_glove(p)
    _check(v, words)


def test_word2vec_text(tmp_path: Path) -> None:
    p = tmp_path / "vec.vec"
    p.write_text("4 3\n" + _text_rows(WORDS, MAT))
    v = load_vectors(p)
    assert v.source_format == "word2vec"
    _check(v)


def test_word2vec_binary(tmp_path: Path) -> None:
    p = tmp_path / "vec.bin"
    _write_w2v_binary(p, WORDS, MAT)
    v = load_vectors(p)
    assert v.source_format == "word2vec-binary"
    _check(v)
    assert load_vectors(p, fmt="word2vec-binary").vectors(["she"]).tolist() == \
        v.vectors(["she"]).tolist()


def test_numpy_matrix_is_memory_mapped(tmp_path: Path) -> None:
    np.save(tmp_path / "emb.npy", MAT)
    (tmp_path / "emb.vocab").write_text("\n".join(WORDS) + "\n")
    v = load_vectors(tmp_path / "emb.npy")
    assert isinstance(v.matrix, np.memmap)  # not read into memory, not copied
    _check(v)
    v2 = WordVectors.from_numpy(MAT, WORDS)
    assert v2.matrix is MAT  # an in-memory array is used as is


def test_case_fallback(tmp_path: Path) -> None:
    v = WordVectors.from_numpy(MAT, WORDS)
    assert v.key_for("Nurse") == "nurse"
    assert v.key_for("Nurse", case_fallback=False) is None


def test_ragged_glove_row(tmp_path: Path) -> None:
    p = tmp_path / "vec.txt"
    p.write_text("he 1 2 3\nshe 1 2\n")
    with pytest.raises(DataError, match=r"vec.txt:2.*ragged"):
        load_vectors(p)


def test_glove_row_with_extra_value(tmp_path: Path) -> None:
    p = tmp_path / "vec.txt"
    p.write_text("he 1 2 3\nshe 1 2 3 4\n")
    with pytest.raises(DataError, match=r"vec.txt:2.*ragged"):
        load_vectors(p)


def test_word2vec_text_wrong_dims(tmp_path: Path) -> None:
    p = tmp_path / "vec.vec"
    p.write_text("2 4\nhe 1 2 3\nshe 1 2 3\n")
    with pytest.raises(DataError, match=r"vec.vec:2.*3 values, expected 4"):
        load_vectors(p)


def test_word2vec_text_wrong_count(tmp_path: Path) -> None:
    p = tmp_path / "vec.vec"
    p.write_text("3 3\nhe 1 2 3\nshe 1 2 3\n")
    with pytest.raises(DataError, match="2 vector rows, but 3 declared"):
        load_vectors(p)


def test_word2vec_binary_wrong_dims(tmp_path: Path) -> None:
    p = tmp_path / "vec.bin"
    _write_w2v_binary(p, WORDS, MAT, header="4 5\n")
    with pytest.raises(DataError, match="wrong dims"):
        load_vectors(p)


def test_non_numeric_value(tmp_path: Path) -> None:
    p = tmp_path / "vec.txt"
    p.write_text("he 1 2 3\nshe 1 x 3\n")
    with pytest.raises(DataError, match=r"vec.txt:2"):
        load_vectors(p)


def test_nan_vector_is_refused_when_used(tmp_path: Path) -> None:
    p = tmp_path / "vec.txt"
    p.write_text("he 1 2 3\nshe nan 2 3\nit 1 1 inf\n")
    v = load_vectors(p)
    assert v.vectors(["he"]).shape == (1, 3)
    with pytest.raises(DataError, match=r"vec.txt: the vector of 'she', 'it' holds NaN"):
        v.vectors(["he", "she", "it"])


def test_numpy_vocab_mismatch_and_bad_matrix(tmp_path: Path) -> None:
    np.save(tmp_path / "emb.npy", MAT)
    (tmp_path / "emb.vocab").write_text("he\nshe\n")
    with pytest.raises(DataError, match="4 rows but the vocabulary has 2"):
        load_vectors(tmp_path / "emb.npy")
    np.save(tmp_path / "flat.npy", MAT.ravel())
    with pytest.raises(DataError, match="2-D"):
        load_vectors(tmp_path / "flat.npy", vocab=tmp_path / "emb.vocab")
    np.save(tmp_path / "ints.npy", np.ones((2, 3), dtype=np.int32))
    with pytest.raises(DataError, match="floats"):
        load_vectors(tmp_path / "ints.npy", vocab=tmp_path / "emb.vocab")
    np.save(tmp_path / "novocab.npy", MAT)
    with pytest.raises(DataError, match="vocabulary file"):
        load_vectors(tmp_path / "novocab.npy")


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        load_vectors(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(DataError, match="empty"):
        load_vectors(tmp_path / "empty.txt")
    with pytest.raises(ModelLoadError, match="unknown vector format"):
        load_vectors(tmp_path / "empty.txt", fmt="fasttext")


def test_packaged_glove_6b_50d() -> None:
    v = load_vectors("glove-6b-50d")
    assert (len(v), v.dim) == (400_000, 50)
    assert isinstance(v.matrix, np.memmap)
    assert v.words[0] == "the" and v.key_for("Amy") == "amy"
    he, she, king = v.vectors(["he", "she", "king"])
    cos = he @ she / np.linalg.norm(he) / np.linalg.norm(she)
    cos_k = he @ king / np.linalg.norm(he) / np.linalg.norm(king)
    assert cos > cos_k  # real vectors, not noise: he is closer to she than to king
    assert v.describe()["fingerprint"].startswith("glove-6b-50d:")


def test_cli_ragged_file_exits_2(tmp_path: Path, data_dir: Path) -> None:
    p = tmp_path / "vec.txt"
    p.write_text("he 1 2 3\nshe 1 2\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "run", "weat",
         "--vectors", str(p), "--test", "weat6",
         "--tests-dir", str(data_dir / "seat" / "tests"),
         "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "ragged" in proc.stderr
    assert "Traceback" not in proc.stderr
