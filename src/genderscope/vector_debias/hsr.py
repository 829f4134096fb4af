"""Half-Sibling Regression (Yang & Feng 2020, "A Causal Inference Method for Reducing
Gender Bias in Word Embedding Relations", AAAI, Sec. 3, eqs. 3-5).

The gender-definition words' vectors V_d (d x m, one column per word) are the "half
sibling" that carries the gender information; every other word's vector v is regressed
on them by ridge regression and the fitted part is subtracted:

    W = (V_d^T V_d + alpha I)^{-1} V_d^T V_n      v_n <- v_n - V_d W

(alpha = 60 as in the paper and WEFE). Since V_d (V_d^T V_d + alpha I)^{-1} V_d^T is one
d x d matrix P, every non-definitional vector becomes ``v - P v``: one matrix product
over the vocabulary. Vectors are raw (not normalised); the definitional words (those of
the gender-specific list found in the vocabulary) are left as they are. Agrees with
WEFE 1.0.1's ``HalfSiblingRegression`` (tests/agreement/test_wefe_agreement.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from genderscope.errors import DataError
from genderscope.vector_debias.hard import CHUNK_ROWS, HardDebiasFit, finite_blocks
from genderscope.vector_debias.lists import DebiasLists, left_alone

DEFAULT_ALPHA = 60.0


def check_alpha(alpha: float) -> float:
    """The ridge penalty alpha (Yang & Feng 2020, Sec. 3) as a float: a positive finite
    number (0 leaves V_d^T V_d singular when definition words outnumber dimensions; nan or
    inf give vectors full of NaN)."""
    if not np.isfinite(alpha) or alpha <= 0:
        raise DataError(f"--alpha must be a positive finite number, got {alpha}")
    return float(alpha)


def hsr_debias(vectors: Any, lists: DebiasLists, *, alpha: float = DEFAULT_ALPHA,
               targets: Sequence[str] | None = None, ignore: Sequence[str] | None = None
               ) -> tuple[np.ndarray, HardDebiasFit]:
    """The debiased (n_words, dim) float32 matrix, row order of ``vectors.words``.
    ``targets`` / ``ignore``: which words lose their predicted gender information, as
    :func:`~genderscope.vector_debias.hard.hard_debias` (the rest stay as they are)."""
    check_alpha(alpha)
    index = vectors.index
    defs = [w for w in dict.fromkeys(lists.gender_specific) if w in index]
    if len(defs) < 2:
        raise DataError(f"half-sibling regression needs at least 2 gender-definition words "
                        f"in the vocabulary; found {len(defs)}")
    vd = vectors.vectors(defs).T  # d x m
    gram = vd.T @ vd + alpha * np.eye(vd.shape[1])
    proj = vd @ np.linalg.solve(gram, vd.T)  # d x d
    keep = left_alone(vectors, targets, ignore, kept=defs)
    src = vectors.matrix
    out = np.empty(src.shape, dtype=np.float32)
    p32 = proj.astype(np.float32)
    for lo, block in finite_blocks(vectors):
        fitted = block @ p32.T
        fitted[keep[lo:lo + CHUNK_ROWS]] = 0.0
        out[lo:lo + CHUNK_ROWS] = block - fitted
    fit = HardDebiasFit(np.zeros(src.shape[1]), [], [], [], n_ignored=int(keep.sum()),
                        skipped={"definitional": []},
                        extra={"alpha": alpha, "n_definition_words": len(defs)})
    return out, fit
