"""Plain text collections for classifier measures (flip test, attack).

- ``.txt``: one text per line (blank lines skipped);
- ``.csv`` / ``.tsv``: a header row; the text column is ``--text-column`` or the
  first of ``text``, ``tweet``, ``sentence`` present; an optional label column.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from genderscope.checks import whole_number
from genderscope.errors import DataError, where
from genderscope.files import read_text
from genderscope.results import file_sha256

TEXT_COLUMNS = ("text", "tweet", "sentence")


@dataclass(frozen=True)
class TextData:
    texts: list[str]
    labels: list[str] | None
    path: Path
    sha256: str
    row_ids: list[int]  # row numbers in the file (0-based over data rows)

    def describe(self) -> dict[str, object]:
        return {"path": str(self.path), "file_sha256": self.sha256, "n": len(self.texts)}


def load_texts(path: str | Path, *, text_column: str | None = None,
               label_column: str | None = None, limit: int | None = None,
               sample_seed: int | None = None) -> TextData:
    """Read texts (and labels); ``limit`` keeps the first N rows, or a seeded
    random sample of N when ``sample_seed`` is given."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"data file not found: {p}")
    suffix = p.suffix.lower()
    labels: list[str] | None = None
    if suffix in (".csv", ".tsv"):
        try:
            df = pd.read_csv(p, sep="\t" if suffix == ".tsv" else ",", dtype=str,
                             keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise DataError(f"cannot read {p}: {exc}".replace("\n", " ")) from None
        col = text_column or next((c for c in TEXT_COLUMNS if c in df.columns), None)
        if col is None or col not in df.columns:
            raise DataError(f"{where(p, 1)}: no text column "
                            f"{text_column or ' / '.join(TEXT_COLUMNS)!r}; columns are "
                            f"{list(df.columns)}")
        if label_column is not None and label_column not in df.columns:
            raise DataError(f"{where(p, 1)}: no label column {label_column!r}; columns are "
                            f"{list(df.columns)}")
        texts = df[col].tolist()
        for i, t in enumerate(texts):
            if not t.strip():
                raise DataError(f"{where(p, i + 2, col)}: empty text")
        if label_column is not None:
            labels = df[label_column].tolist()
        row_ids = list(range(len(texts)))
    else:
        lines = read_text(p, "data file").splitlines()
        row_ids = [i for i, line in enumerate(lines) if line.strip()]
        texts = [lines[i].strip() for i in row_ids]
    if not texts:
        raise DataError(f"{p}: no texts (empty data)")
    if sample_seed is not None:
        sample_seed = whole_number(sample_seed, "sample_seed", 0, label="--sample-seed")
    if limit is not None:
        limit = whole_number(limit, "limit", 1, label="--limit")
        if sample_seed is not None and limit < len(texts):
            keep = sorted(np.random.default_rng(sample_seed).choice(len(texts), limit,
                                                                    replace=False).tolist())
        else:
            keep = list(range(min(limit, len(texts))))
        texts = [texts[i] for i in keep]
        labels = [labels[i] for i in keep] if labels is not None else None
        row_ids = [row_ids[i] for i in keep]
    return TextData(texts, labels, p, file_sha256(p), row_ids)
