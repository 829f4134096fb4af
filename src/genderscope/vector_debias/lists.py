"""Bolukbasi et al.'s (2016) word lists (``debiaswe/data``): definitional pairs (they
span the gender direction), equalize pairs (made equidistant from it) and the
gender-specific words (left un-neutralised)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import DataError
from genderscope.files import read_json, read_text

FILES = {"definitional": "definitional_pairs.json", "equalize": "equalize_pairs.json",
         "gender_specific": "gender_specific_full.json"}


@dataclass(frozen=True)
class DebiasLists:
    definitional: tuple[tuple[str, str], ...]
    equalize: tuple[tuple[str, str], ...]
    gender_specific: tuple[str, ...]
    source: str = ""


def read_pairs(path: Path, what: str) -> tuple[tuple[str, str], ...]:
    """A JSON list of two-word lists; fewer than 2 pairs is an error for the
    definitional list (one difference vector spans no subspace worth the name)."""
    raw = read_json(path, "word list")
    if not isinstance(raw, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) for w in p)
            for p in raw):
        raise DataError(f"{path}: the {what} list must be a JSON list of [word, word] pairs")
    if what == "definitional" and len(raw) < 2:
        raise DataError(f"{path}: the definitional list needs at least 2 pairs, got {len(raw)}")
    return tuple((a, b) for a, b in raw)


def read_words(path: Path) -> tuple[str, ...]:
    raw = read_json(path, "word list")
    if not isinstance(raw, list) or not all(isinstance(w, str) for w in raw):
        raise DataError(f"{path}: the gender-specific list must be a JSON list of words")
    return tuple(raw)


def load_lists(*, definitional: Path | None = None, equalize: Path | None = None,
               gender_specific: Path | None = None) -> DebiasLists:
    """The given list files, each defaulting to Bolukbasi's in the ``debiaswe`` data."""
    folder: Path | None = None
    if None in (definitional, equalize, gender_specific):
        from genderscope.datasets.locations import find_benchmark

        folder = find_benchmark("debiaswe")

    def pick(given: Path | None, key: str) -> Path:
        return Path(given) if given is not None else folder / FILES[key]  # type: ignore[operator]

    d, e, g = pick(definitional, "definitional"), pick(equalize, "equalize"), \
        pick(gender_specific, "gender_specific")
    return DebiasLists(read_pairs(d, "definitional"), read_pairs(e, "equalize"),
                       read_words(g), source=str(folder or d.parent))


def read_word_list(path: Path, what: str = "word") -> tuple[str, ...]:
    """A list of words for ``--target`` / ``--ignore``: a JSON list of strings, or plain
    text with one word per line (blank lines skipped)."""
    path = Path(path)
    text = read_text(path, f"{what} list")
    if text.lstrip().startswith("["):
        raw = read_json(path, f"{what} list")
        if not isinstance(raw, list) or not all(isinstance(w, str) for w in raw):
            raise DataError(f"{path}: the {what} list must be a JSON list of words")
        words = [w.strip() for w in raw]
    else:
        words = [line.strip() for line in text.splitlines()]
    words = [w for w in words if w]
    if not words:
        raise DataError(f"{path}: the {what} list is empty")
    return tuple(dict.fromkeys(words))


def left_alone(vectors: Any, targets: Sequence[str] | None,
               ignore: Sequence[str] | None, kept: Iterable[str] = ()) -> np.ndarray:
    """Boolean mask over ``vectors.words``: the rows a debias method leaves as they are
    because of ``targets`` (given: every word outside them) and ``ignore`` (these words),
    and ``kept``, the method's own kept words (e.g. the gender-specific list). WEFE
    1.0.1's ``transform(target=..., ignore=...)``, except that WEFE disregards ``ignore``
    when ``target`` is given and here an ignored word is never debiased."""
    index = vectors.index
    mask = np.zeros(len(vectors), dtype=bool)
    if targets is not None:
        mask[:] = True
        mask[[index[w] for w in dict.fromkeys(targets) if w in index]] = False
    for words in (ignore or (), kept):
        mask[[index[w] for w in dict.fromkeys(words) if w in index]] = True
    return mask
