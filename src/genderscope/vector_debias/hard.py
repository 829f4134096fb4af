"""Hard Debias (Bolukbasi, Chang, Zou, Saligrama & Kalai 2016, "Man is to Computer
Programmer as Woman is to Homemaker?", NeurIPS, Sec. 5 "Debiasing algorithms").

1. *Gender direction* g: the first principal component of the definitional pairs'
   unit vectors, each centred on its pair mean (Sec. 5, "Identify gender subspace",
   with k = 1 as in the paper's experiments).
2. *Neutralise*: every vector is scaled to unit length, and every word not in the
   gender-specific list loses its component along g: ``w <- w - (w . g) g``, then
   is re-normalised.
3. *Equalise*: for each equalize pair (a, b) (also its Title and UPPER case forms),
   with mu = (a + b)/2 of the *original* unit vectors and nu = mu - (mu . g) g:
   ``a <- nu + sqrt(1 - |nu|^2) g``, ``b <- nu - sqrt(1 - |nu|^2) g`` (signs so that
   a keeps its side of g), making them equidistant from every neutral word.

The details where the paper leaves a choice follow WEFE 1.0.1's ``HardDebias`` (and so
agree with it, tests/agreement/test_wefe_agreement.py): vectors are normalised before and after
each step; definitional and equalize words are looked up exactly (no case folding);
a pair with a word outside the vocabulary is skipped; equalize vectors are those
before neutralising; a word in several equalize pairs ends with its last pair's
vector. An all-zero vector stays zero (WEFE would give NaN).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genderscope.errors import DataError
from genderscope.vector_debias.lists import DebiasLists, left_alone

CHUNK_ROWS = 65_536


@dataclass
class HardDebiasFit:
    """What a debiasing fit found: the unit gender direction and the pairs it used
    (shared by every method; ``extra`` holds a method's own figures)."""

    direction: np.ndarray
    explained_variance_ratio: list[float]
    definitional: list[tuple[str, str]]
    equalize: list[tuple[str, str]]
    n_ignored: int = 0
    skipped: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    """Method-specific figures (e.g. HSR's alpha)."""

    def describe(self) -> dict[str, Any]:
        return {"explained_variance_ratio": self.explained_variance_ratio[:10],
                "n_definitional_pairs": len(self.definitional),
                "n_equalize_pairs": len(self.equalize), "n_kept_words": self.n_ignored,
                "skipped_definitional_pairs": [list(p) for p in self.skipped["definitional"]],
                **self.extra}

    def line(self) -> str:
        """One line for the terminal."""
        ratio = (f" (first component {self.explained_variance_ratio[0]:.1%} of their "
                 "variance)") if self.explained_variance_ratio else ""
        parts = [f"{len(self.definitional)} definitional pairs{ratio}"] if self.definitional \
            else []
        if self.equalize:
            parts.append(f"{len(self.equalize)} equalized pairs")
        parts.append(f"{self.n_ignored} words kept as they are")
        parts += [f"{k} {v}" for k, v in self.extra.items()]
        return ", ".join(parts)


def finite_blocks(vectors: Any, dtype: Any = np.float32) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, block) over ``vectors.matrix`` in CHUNK_ROWS chunks cast to ``dtype``.

    Raises DataError naming the first word whose vector holds NaN or infinity.
    """
    src = vectors.matrix
    for lo in range(0, src.shape[0], CHUNK_ROWS):
        block = np.array(src[lo:lo + CHUNK_ROWS], dtype=dtype)
        if not np.isfinite(block).all():
            row = lo + int(np.flatnonzero(~np.isfinite(block).all(axis=1))[0])
            raise DataError(f"{vectors.name}: the vector of {vectors.words[row]!r} (row "
                            f"{row + 1}) holds NaN or infinity")
        yield lo, block


def _unit(m: np.ndarray) -> np.ndarray:
    """Each row of ``m`` divided by its Euclidean norm (rows of norm 0 stay 0); the one
    row normaliser of the debiasing methods and their evaluation."""
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)


def gender_direction(vectors: Any, pairs: tuple[tuple[str, str], ...]
                     ) -> tuple[np.ndarray, list[float], list[tuple[str, str]],
                                list[tuple[str, str]]]:
    """(unit direction, explained-variance ratios, pairs used, pairs skipped)."""
    used = [(a, b) for a, b in pairs if a in vectors and b in vectors and a != b]
    skipped = [p for p in pairs if p not in used]
    if len(used) < 2:
        raise DataError(f"hard debias needs at least 2 definitional pairs with both words in "
                        f"the vocabulary; found {len(used)} of {len(pairs)}")
    emb = _unit(vectors.vectors([w for p in used for w in p])).reshape(len(used), 2, -1)
    centred = (emb - emb.mean(axis=1, keepdims=True)).reshape(2 * len(used), -1)
    centred -= centred.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    ratio = (s ** 2 / np.sum(s ** 2)).tolist()
    return vt[0] / np.linalg.norm(vt[0]), ratio, used, skipped


def equalize_candidates(vectors: Any, pairs: tuple[tuple[str, str], ...]
                        ) -> list[tuple[str, str]]:
    """Each pair in lower, Title and UPPER case, kept when both words are in the
    vocabulary (in that order)."""
    out = []
    for a, b in pairs:
        for f in (str.lower, str.title, str.upper):
            fa, fb = f(a), f(b)
            if fa != fb and fa in vectors and fb in vectors:
                out.append((fa, fb))
    return out


def hard_debias(vectors: Any, lists: DebiasLists, *, targets: Sequence[str] | None = None,
                ignore: Sequence[str] | None = None) -> tuple[np.ndarray, HardDebiasFit]:
    """The debiased (n_words, dim) float32 matrix, row order of ``vectors.words``.
    ``targets``: neutralise only these words; ``ignore``: never neutralise these (both
    on top of the gender-specific list, :func:`~genderscope.vector_debias.lists.left_alone`;
    every vector is still normalised and the equalize pairs still equalised, as WEFE's
    ``transform(target=, ignore=)``)."""
    g, ratio, used, skipped = gender_direction(vectors, lists.definitional)
    eq = equalize_candidates(vectors, lists.equalize)
    eq_orig = {w: _unit(vectors.vectors([w]))[0] for p in eq for w in p}
    index = vectors.index
    keep = left_alone(vectors, targets, ignore, kept=lists.gender_specific)
    src = vectors.matrix
    out = np.empty(src.shape, dtype=np.float32)
    g32 = g.astype(np.float32)
    for lo, block in finite_blocks(vectors):
        block = _unit(block)
        proj = block @ g32
        proj[keep[lo:lo + CHUNK_ROWS]] = 0.0
        block -= proj[:, None] * g32[None, :]
        out[lo:lo + CHUNK_ROWS] = _unit(block)
    for a, b in eq:
        mu = (eq_orig[a] + eq_orig[b]) / 2
        nu = mu - (mu @ g) * g
        z = np.sqrt(max(0.0, 1.0 - float(nu @ nu)))
        if (eq_orig[a] - eq_orig[b]) @ g < 0:
            z = -z
        out[index[a]] = _unit(nu + z * g)
        out[index[b]] = _unit(nu - z * g)
    fit = HardDebiasFit(g, ratio, used, eq, n_ignored=int(keep.sum()),
                        skipped={"definitional": skipped})
    return out, fit
