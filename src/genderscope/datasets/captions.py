"""Inputs of mean bias amplification (Zhao et al. 2017): caption corpora, gender word
lists, object/activity vocabularies, and per-object gender-ratio tables such as
those published with ``reducingbias`` (``*_gender_ratio_dev_res.csv``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from genderscope.errors import DataError, where
from genderscope.files import existing_file, read_text

DEFAULT_GENDER_WORDS = "amplification_gender_words.json"


def load_captions(path: str | Path, *, column: str | None = None) -> list[str]:
    """Captions, one per item: ``.txt`` (one per non-blank line), ``.jsonl`` (key
    ``caption`` or ``text``, or ``column``), ``.csv``/``.tsv`` (column ``caption`` or
    ``text``, or ``column``). An empty corpus is a :class:`DataError`."""
    return load_caption_records(path, column=column)[0]


def load_caption_records(path: str | Path, *, column: str | None = None
                         ) -> tuple[list[str], list[dict[str, Any]] | None]:
    """The captions of :func:`load_captions`, each with its whole record (a ``.jsonl``
    object or a ``.csv``/``.tsv`` row, all its fields; None for ``.txt``), so a corpus
    written back keeps every other field."""
    p = existing_file(path, "caption file")
    suffix = p.suffix.lower()
    records: list[dict[str, Any]] | None = None
    captions: list[str]
    if suffix == ".jsonl":
        records, captions = [], []
        for i, line in enumerate(read_text(p, "caption file").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where(p, i)}: invalid JSON: {exc.msg}") from None
            key = column or next((k for k in ("caption", "text") if k in obj), None) \
                if isinstance(obj, dict) else None
            if not isinstance(obj, dict) or key is None or key not in obj:
                raise DataError(f"{where(p, i)}: needs a 'caption' or 'text' key")
            records.append(obj)
            captions.append(str(obj[key]))
    elif suffix in (".csv", ".tsv"):
        read_text(p, "caption file")  # names the file if it is not UTF-8
        df = pd.read_csv(p, sep="\t" if suffix == ".tsv" else ",", dtype=str,
                         keep_default_na=False, encoding="utf-8-sig")
        key = column or next((k for k in ("caption", "text") if k in df.columns), None)
        if key is None or key not in df.columns:
            raise DataError(f"{p}: needs a 'caption' or 'text' column "
                            f"(found {', '.join(map(str, df.columns))})")
        records = df.to_dict("records")
        captions = df[key].tolist()
    else:
        captions = read_text(p, "caption file").splitlines()
    keep = [i for i, c in enumerate(captions) if c.strip()]
    if not keep:
        raise DataError(f"{p}: the corpus holds no captions")
    return ([captions[i].strip() for i in keep],
            None if records is None else [records[i] for i in keep])


def load_gender_words(path: str | Path | None = None) -> dict[str, list[str]]:
    """Group name -> lower-case words; default: the packaged man/woman lists.

    A JSON object of lists (keys starting with ``_`` are comments). At least two
    groups; a word in two groups is a :class:`DataError`.
    """
    if path is None:
        text = resources.files("genderscope.resources").joinpath(DEFAULT_GENDER_WORDS) \
            .read_text(encoding="utf-8")
        label = f"genderscope/resources/{DEFAULT_GENDER_WORDS}"
    else:
        p = Path(path)
        text, label = read_text(p, "gender word file"), str(p)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{where(label, exc.lineno)}: invalid JSON: {exc.msg}") from None
    if not isinstance(raw, dict):
        raise DataError(f"{label}: must be a JSON object of group -> list of words")
    bad = [str(k) for k, v in raw.items()
           if not str(k).startswith("_") and not (isinstance(v, list)
                                                  and all(isinstance(w, str) for w in v))]
    if bad:
        raise DataError(f"{label}: group {bad[0]!r} must be a list of words")
    groups = {str(k): [str(w).lower().strip() for w in v]
              for k, v in raw.items() if not str(k).startswith("_")}
    if len(groups) < 2:
        raise DataError(f"{label}: needs at least two gender groups, found {len(groups)}")
    owner: dict[str, str] = {}
    for g, words in groups.items():
        if not isinstance(raw[g], list) or not words:
            raise DataError(f"{label}: group {g!r} must be a non-empty list of words")
        for w in words:
            if w in owner and owner[w] != g:
                raise DataError(f"{label}: word {w!r} is in groups {owner[w]!r} and {g!r}")
            owner[w] = g
    return groups


def load_objects(path: str | Path) -> list[str]:
    """Object/activity labels, one per line (``#`` comments allowed). ``teddy_bear``
    and ``teddy bear`` both name the two-word object."""
    p = existing_file(path, "object file")
    objs = []
    for line in read_text(p, "object file").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            objs.append(line)
    if not objs:
        raise DataError(f"{p}: the object list is empty")
    return list(dict.fromkeys(objs))


@dataclass(frozen=True)
class RatioTable:
    """Per-object share of the first group (``training_ratio`` = share of men in
    Zhao et al.'s files) in training data and in predictions."""

    objects: list[str]
    train_ratio: list[float]
    predicted_ratio: list[float]
    name_column: str
    train_column: str
    predicted_column: str
    path: str


def load_ratio_table(path: str | Path, *, predicted_column: str | None = None,
                     train_column: str = "training_ratio",
                     name_column: str | None = None) -> RatioTable:
    """Read a ratio CSV; ``predicted_column`` defaults to the first other column with
    ``ratio`` in its name (``gender_ratio_before_RBA`` in Zhao et al.'s files)."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"ratio table not found: {p}")
    df = pd.read_csv(p)
    if df.empty:
        raise DataError(f"{p}: the ratio table has no rows")
    if train_column not in df.columns:
        raise DataError(f"{p}: missing column {train_column!r} "
                        f"(found {', '.join(map(str, df.columns))})")
    if predicted_column is None:
        predicted_column = next((c for c in df.columns
                                 if "ratio" in str(c) and c != train_column), None)
        if predicted_column is None:
            raise DataError(f"{p}: no predicted-ratio column; pass --predicted-column")
    elif predicted_column not in df.columns:
        raise DataError(f"{p}: missing column {predicted_column!r} "
                        f"(found {', '.join(map(str, df.columns))})")
    if name_column is None:
        name_column = next((c for c in ("object", "verb", "activity", "name")
                            if c in df.columns), None)
        if name_column is None:
            raise DataError(f"{p}: no object column (object, verb, activity or name)")
    elif name_column not in df.columns:
        raise DataError(f"{p}: missing column {name_column!r}")
    for col in (train_column, predicted_column):
        vals = pd.to_numeric(df[col], errors="coerce")
        bad = vals.isna() | (vals < 0) | (vals > 1)
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise DataError(f"{where(p, row + 2, col)}: ratio must be a number in [0, 1], "
                            f"got {str(df[col].iloc[row])!r}")
    names = df[name_column].astype(str)
    dup = names[names.duplicated(keep=False)]
    if not dup.empty:  # one object, two ratios: which one is it? (issue 24)
        rows = [int(i) + 2 for i in dup.index[dup == dup.iloc[0]]]
        raise DataError(f"{p}: object {dup.iloc[0]!r} has more than one row (lines "
                        f"{', '.join(map(str, rows))}); give one row per object")
    return RatioTable(df[name_column].astype(str).tolist(),
                      pd.to_numeric(df[train_column]).astype(float).tolist(),
                      pd.to_numeric(df[predicted_column]).astype(float).tolist(),
                      str(name_column), train_column, str(predicted_column), str(p))
