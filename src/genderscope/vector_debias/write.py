"""Atomic word2vec binary output (the format of Mikolov's word2vec and of gensim's
``KeyedVectors.load_word2vec_format(binary=True)``): a header ``"<n> <dim>\\n"``, then
per word its UTF-8 bytes, a space, ``dim`` little-endian float32 values and a newline."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from genderscope.errors import DataError


def write_word2vec_binary(path: str | Path, words: Sequence[str], matrix: np.ndarray) -> Path:
    """Write ``matrix`` rows under ``words`` to ``path`` (temp sibling + rename)."""
    path = Path(path)
    if matrix.shape[0] != len(words):
        raise DataError(f"{len(words)} words but {matrix.shape[0]} vectors")
    bad = [w for w in words if not w or any(c.isspace() for c in w)]
    if bad:
        raise DataError(f"word2vec binary cannot hold words with spaces: {bad[:3]!r}")
    data = np.ascontiguousarray(matrix, dtype="<f4")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(f"{len(words)} {data.shape[1]}\n".encode())
            for word, row in zip(words, data, strict=True):
                fh.write(word.encode("utf-8") + b" " + row.tobytes() + b"\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
