"""Reading word-vector files: format sniffing, vocabulary files, and the two-pass
parsers of GloVe / word2vec text and word2vec binary files into one preallocated
float32 matrix (used by :mod:`genderscope.models.vectors`)."""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from genderscope.errors import DataError, where
from genderscope.files import BOM, existing_file, not_utf8, read_json, read_text
from genderscope.models.memo import cached_sha256

if TYPE_CHECKING:
    from genderscope.models.vectors import WordVectors

BOM_BYTES = BOM.encode("utf-8")


def _existing(path: str | Path) -> Path:
    p = existing_file(path, "vector file")
    if p.stat().st_size == 0:
        raise DataError(f"vector file is empty: {p}")
    return p


def _first_line(path: Path) -> str:
    try:
        with open(path, encoding="utf-8-sig", errors="strict") as fh:  # -sig: drop a BOM
            return fh.readline()
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc, "vector file") from None


def _count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


def _sniff_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return "numpy"
    with open(path, "rb") as fh:
        head = fh.readline().removeprefix(BOM_BYTES)
    parts = head.split()
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        return "word2vec-binary" if _looks_binary(path, len(head)) else "word2vec"
    if suffix == ".bin":
        raise DataError(f"{where(path, 1)}: a .bin file needs a word2vec header "
                        f"'<n_words> <dim>'")
    return "glove"


def _looks_binary(path: Path, offset: int) -> bool:
    with open(path, "rb") as fh:
        fh.seek(offset)
        block = fh.read(4096)
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a multi-byte char cut by the block end is still text
        return exc.start < len(block) - 4
    return b"\x00" in block


def _sibling_vocab(path: Path) -> Path:
    for suffix in (".vocab", ".txt", ".json"):
        cand = path.with_suffix(suffix)
        if cand.is_file():
            return cand
    raise DataError(f"{path}: a numpy matrix needs a vocabulary file (pass --vocab FILE, "
                    f"or vocab= in Python; looked for {path.stem}.vocab/.txt/.json)")


def _read_vocab(path: str | Path) -> list[str]:
    p = Path(path)
    if not p.is_file():
        raise DataError(f"vocabulary file not found: {p}")
    if p.suffix == ".json":
        words = read_json(p, "vocabulary file")
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise DataError(f"{p}: vocabulary JSON must be a list of strings")
        return words
    if p.suffix == ".parquet":
        import pandas as pd

        df = pd.read_parquet(p)
        return df.iloc[:, 0].astype(str).tolist()
    return read_text(p, "vocabulary file").rstrip("\n").split("\n")


def _parse_text(cls: type[WordVectors], path: Path, n: int, d: int, *, skip: int,
                fmt: str) -> WordVectors:
    """Fill one preallocated (n, d) float32 matrix from a text file."""
    mat = np.empty((n, d), dtype=np.float32)
    words: list[str] = []
    try:
        _fill(path, mat, words, n, d, skip)
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc, "vector file") from None
    row = len(words)
    if row != n:
        raise DataError(f"{path}: {row} vector rows, but {n} declared in the header")
    return cls(mat, words, name=str(path), fingerprint=cached_sha256(path), source_format=fmt)


def _fill(path: Path, mat: np.ndarray, words: list[str], n: int, d: int, skip: int) -> None:
    """Parse the rows of a text vector file into ``mat`` and ``words`` (a leading
    byte-order mark is dropped)."""
    row = 0
    with open(path, encoding="utf-8-sig") as fh:
        for lineno, line in enumerate(fh, start=1):
            if lineno <= skip or not line.strip():
                continue
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if len(parts) < d + 1:
                raise DataError(f"{where(path, lineno)}: ragged row: {len(parts) - 1} values, "
                                f"expected {d}")
            if len(parts) > d + 1 and _is_number(parts[-d - 1]):
                raise DataError(f"{where(path, lineno)}: ragged row: more than {d} values")
            if row >= n:
                raise DataError(f"{where(path, lineno)}: more rows than the {n} declared")
            try:
                mat[row] = np.asarray(parts[-d:], dtype=np.float32)
            except ValueError:
                raise DataError(f"{where(path, lineno)}: non-numeric vector value") from None
            words.append(" ".join(parts[:-d]))
            row += 1


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _parse_w2v_binary(cls: type[WordVectors], path: Path, n: int, d: int,
                      offset: int) -> WordVectors:
    """Parse word2vec binary rows through an mmap (the file is never read whole)."""
    mat = np.empty((n, d), dtype=np.float32)
    words: list[str] = []
    width = 4 * d
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        size = len(buf)
        pos = offset
        for i in range(n):
            while pos < size and buf[pos] in (10, 32):  # newline/space before a word
                pos += 1
            end = buf.find(b" ", pos)
            if end < 0 or end + 1 + width > size:
                raise DataError(f"{path}: truncated word2vec binary file at word {i + 1} of "
                                f"{n} (wrong dims or word count in the header?)")
            words.append(buf[pos:end].decode("utf-8", errors="replace"))
            mat[i] = np.frombuffer(buf[end + 1:end + 1 + width], dtype="<f4")
            pos = end + 1 + width
        rest = buf[pos:].strip()
    if rest:
        raise DataError(f"{path}: {len(rest)} bytes left after {n} vectors of {d} dims "
                        f"(wrong dims or word count in the header?)")
    return cls(mat, words, name=str(path), fingerprint=cached_sha256(path),
               source_format="word2vec-binary")
