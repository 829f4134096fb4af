"""Word substitutions along the gender analogy in a word-vector space.

For a word ``w`` and the direction ``man->woman`` the candidates are the ``n`` words ``c``
with the highest ``cos(c, w - man + woman)`` (3CosAdd, Mikolov et al. 2013, as the GSoC
2019 gender attack); ``woman->man`` uses ``w - woman + man``. Excluded: ``w``, its
inflections, the subtracted word and non-alphabetic tokens; cached per (word,
direction). Any (vocab x dim) matrix and word list works (:class:`AnalogyNeighbours`,
:meth:`AnalogyNeighbours.from_vectors`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from genderscope.errors import GenderscopeError

DIRECTIONS: dict[str, tuple[str, str]] = {
    "man->woman": ("man", "woman"),
    "woman->man": ("woman", "man"),
}
"""Direction name -> (subtracted word, added word)."""

NeighbourFn = Callable[[str, str], list[str]]
"""``f(word, direction) -> candidate words`` (lowercase, best first)."""

_ALPHA = re.compile(r"^[a-z][a-z'-]*[a-z]$|^[a-z]$")
_SUFFIXES = ("'s", "ing", "ed", "es", "s", "er", "est", "ly")

_STOP = """
a an the and or but if of at by for with about against between into through during before
after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so
than too very s t can will just don should now is am are was were be been being have has had
having do does did doing i me my myself we our ours ourselves you your yours yourself
yourselves it its itself they them their theirs themselves what which who whom this that these
those would could ought rt amp
"""
STOP_WORDS = frozenset(_STOP.split())
"""Function words never substituted (gendered pronouns are NOT in this list)."""


def stem(word: str) -> str:
    """Crude stem for inflection checks: lowercase, strip one common suffix."""
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    if len(w) >= 4 and w[-1] == w[-2]:  # running -> runn -> run
        w = w[:-1]
    return w.rstrip("e")


def is_inflection(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` look like forms of one word (dog/dogs, like/liked)."""
    a, b = a.lower(), b.lower()
    return a == b or stem(a) == stem(b)


def check_min_similarity(value: float) -> None:
    """A cosine threshold must lie in [-1, 1] (NaN would switch the filter off)."""
    if not -1 <= value <= 1:  # also False for NaN
        raise GenderscopeError(f"--min-similarity is a cosine, in [-1, 1]; got {value}")


class AnalogyNeighbours:
    """Gender-analogy candidates from a (vocab x dim) matrix, cached per word.

    Args:
        matrix: word vectors, one row per word in ``words``.
        words: the vocabulary (lookups are lowercase).
        n: candidates per word and direction (top-n by cosine).
        min_similarity: drop candidates whose cosine is below this (in [-1, 1]).
        name: the vectors' name, for error messages.
    """

    def __init__(self, matrix: np.ndarray, words: Sequence[str], *, n: int = 8,
                 min_similarity: float = 0.0, name: str | None = None) -> None:
        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(words):
            raise GenderscopeError(f"vector matrix shape {matrix.shape} does not match "
                                   f"{len(words)} words")
        if n < 1:
            raise GenderscopeError(f"number of candidates must be >= 1, got {n}")
        check_min_similarity(min_similarity)
        bad = ~np.isfinite(matrix).all(axis=1)
        if bad.any():
            which = [w for w, b in zip(words, bad, strict=True) if b][:3]
            raise GenderscopeError(f"{name or 'the word vectors'}: the vectors of "
                                   f"{int(bad.sum())} word(s) hold NaN or infinity "
                                   f"({', '.join(map(repr, which))})")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._unit = matrix / norms
        self.words = list(words)
        self._index = {w: i for i, w in enumerate(self.words)}
        for d in DIRECTIONS.values():
            for w in d:
                if w not in self._index:
                    raise GenderscopeError(f"the word vectors lack {w!r}, needed for the "
                                           "gender analogy")
        self.n = int(n)
        self.min_similarity = float(min_similarity)
        self._cache: dict[tuple[str, str], list[str]] = {}
        self.lookups = 0

    @classmethod
    def from_vectors(cls, vectors: Any, **kwargs: Any) -> AnalogyNeighbours:
        """From an object with a matrix (``vectors``/``matrix``) and a word list."""
        matrix = next((getattr(vectors, a) for a in ("matrix", "vectors", "embeddings")
                       if isinstance(getattr(vectors, a, None), np.ndarray)), None)
        words = next((getattr(vectors, a) for a in ("words", "vocab", "index_to_word")
                      if getattr(vectors, a, None) is not None), None)
        if matrix is None or words is None:
            raise GenderscopeError(f"cannot read a matrix and word list from "
                                   f"{type(vectors).__name__}")
        kwargs.setdefault("name", getattr(vectors, "name", None))
        return cls(matrix, list(words), **kwargs)

    def __contains__(self, word: str) -> bool:
        return word.lower() in self._index

    def __call__(self, word: str, direction: str) -> list[str]:
        return self.candidates(word, direction)

    def candidates(self, word: str, direction: str) -> list[str]:
        """Top-n analogy candidates for ``word`` (lowercase), best first."""
        if direction not in DIRECTIONS:
            raise GenderscopeError(f"unknown direction {direction!r}; use one of "
                                   f"{sorted(DIRECTIONS)}")
        w = word.lower()
        key = (w, direction)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        self.lookups += 1
        out = self._compute(w, direction)
        self._cache[key] = out
        return out

    def _compute(self, w: str, direction: str) -> list[str]:
        i = self._index.get(w)
        if i is None:
            return []
        minus, plus = DIRECTIONS[direction]
        q = self._unit[i] - self._unit[self._index[minus]] + self._unit[self._index[plus]]
        q = q / (np.linalg.norm(q) or 1.0)
        sims = self._unit @ q
        k = min(len(sims), self.n * 4 + 16)
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.lexsort((top, -sims[top]))]  # by similarity, ties by index
        out: list[str] = []
        for j in top:
            c = self.words[j]
            if sims[j] < self.min_similarity:
                break
            if c == minus or not _ALPHA.match(c) or is_inflection(c, w):
                continue
            out.append(c)
            if len(out) == self.n:
                break
        return out


def substitutable(word: str, skip: frozenset[str] = STOP_WORDS) -> bool:
    """Words the attack may change: alphabetic, not a function word, > 1 letter."""
    low = word.lower()
    return len(low) > 1 and low not in skip and "'" not in low
