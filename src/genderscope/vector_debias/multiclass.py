"""Multiclass Hard Debias (Manzini, Lim, Tsvetkov & Black 2019, "Black is to Criminal as
Caucasian is to Police", NAACL, Sec. 3): Hard Debias with a k-dimensional bias subspace
found from defining *sets* of any size (pairs for gender, triples for religion, ...).

1. Bias subspace B: the first k principal components of the definitional sets' unit
   vectors, each centred on its set mean (k = ``n_components``).
2. Neutralise: vectors normalised; every word neither gender-specific nor in a
   definitional set loses its projection on B: ``w <- (w - w_B) / ||w - w_B||``.
3. Equalise each equalize set E (original unit vectors): with mu its mean and
   ``upsilon = mu - mu_B``, every word w of E becomes
   ``upsilon + sqrt(1 - ||upsilon||^2) (w_B - mu_B) / ||w_B - mu_B||``; then all are
   normalised.

As WEFE 1.0.1's ``MulticlassHardDebias`` (and agreeing with it): exact look-up,
definitional and equalize sets with a missing word skipped, equalize sets used as
given (no case variants, unlike Hard Debias), definitional words never neutralised.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from genderscope.errors import DataError
from genderscope.vector_debias.hard import CHUNK_ROWS, HardDebiasFit, _unit, finite_blocks
from genderscope.vector_debias.lists import DebiasLists, left_alone


def bias_subspace(vectors: Any, sets: Sequence[Sequence[str]], k: int
                  ) -> tuple[np.ndarray, list[float], list[tuple[str, ...]]]:
    """(k x d orthonormal rows, explained-variance ratios, sets used)."""
    used = [tuple(s) for s in sets if all(w in vectors for w in s)]
    if len(used) < 2:
        raise DataError(f"multiclass hard debias needs at least 2 definitional sets with "
                        f"every word in the vocabulary; found {len(used)} of {len(sets)}")
    rows = []
    for s in used:
        emb = _unit(vectors.vectors(list(s)))
        rows.append(emb - emb.mean(axis=0))
    centred = np.vstack(rows)
    centred -= centred.mean(axis=0)
    _, sv, vt = np.linalg.svd(centred, full_matrices=False)
    if k > vt.shape[0]:
        raise DataError(f"--components {k}: the definitional sets span at most "
                        f"{vt.shape[0]} directions")
    return vt[:k], (sv ** 2 / np.sum(sv ** 2)).tolist(), used


def multiclass_hard_debias(vectors: Any, lists: DebiasLists, *, n_components: int = 1,
                           targets: Sequence[str] | None = None,
                           ignore: Sequence[str] | None = None
                           ) -> tuple[np.ndarray, HardDebiasFit]:
    """The debiased (n_words, dim) float32 matrix, row order of ``vectors.words``.
    ``targets`` / ``ignore``: as :func:`~genderscope.vector_debias.hard.hard_debias`."""
    basis, ratio, used = bias_subspace(vectors, lists.definitional, n_components)
    eq_sets = [tuple(s) for s in lists.equalize if all(w in vectors for w in s)]
    index = vectors.index
    keep = left_alone(vectors, targets, ignore, kept=[
        *lists.gender_specific, *(w for s in lists.definitional for w in s)])
    src = vectors.matrix
    out = np.empty(src.shape, dtype=np.float32)
    b32 = basis.astype(np.float32)
    for lo, block in finite_blocks(vectors):
        block = _unit(block)
        coef = block @ b32.T
        coef[keep[lo:lo + CHUNK_ROWS]] = 0.0
        out[lo:lo + CHUNK_ROWS] = _unit(block - coef @ b32)
    for s in eq_sets:
        emb = _unit(vectors.vectors(list(s)))
        mu = emb.mean(axis=0)
        mu_b = (mu @ basis.T) @ basis
        upsilon = mu - mu_b
        scale = np.sqrt(max(0.0, 1.0 - float(upsilon @ upsilon)))
        for w, e in zip(s, emb, strict=True):
            diff = (e @ basis.T) @ basis - mu_b
            out[index[w]] = _unit(upsilon + scale * _unit(diff))
    fit = HardDebiasFit(basis[0], ratio, [(s[0], s[1]) for s in used if len(s) == 2],
                        [(s[0], s[1]) for s in eq_sets if len(s) == 2],
                        n_ignored=int(keep.sum()), skipped={"definitional": []},
                        extra={"n_components": n_components})
    return out, fit
