"""Repulsion-Attraction-Neutralization (Kumar, Bhotia, Kumar & Chakraborty 2020, "Nurse
is Closer to Woman than Surgeon? Mitigating Gender-Biased Proximities in Word
Embeddings", TACL 8; authors' release RAN-Debias).

Every target word w (unit vector) gets a new vector w_d minimising

    F(w_d) = l1 * Fr + l2 * Fa + l3 * Fn
    Fr = mean over S of |cos(w_d, n)|     (repulsion from the neighbours in S)
    Fa = |cos(w_d, w) - 1| / 2            (attraction to the original vector)
    Fn = |w_d . g|                         (neutralisation; g the unit gender direction)

by Adam (lr 0.01, 300 steps) from w_d = w, then w_d / |w_d|. S: those of w's
``n_neighbours`` (100) nearest words (cosine) whose indirect bias
beta(n, w) = (n.w - cos(n_perp, w_perp)) / n.w exceeds ``theta`` (0.05), with n_perp,
w_perp the vectors minus their g components (Bolukbasi et al.'s indirect bias). g: the
first principal component of Bolukbasi's definitional pairs (as in Hard Debias). Every
output vector is unit length; words outside the targets are only normalised.

Two variants (``variant``):

* ``"paper"`` (default): the objective above, weights (1/8, 6/8, 1/8) from the authors'
  release's config; numpy, float64, all targets of a chunk optimised at once (Adam
  acts per element, so this is the per-word optimisation, exactly).
* ``"wefe"``: what WEFE 1.0.1's ``RepulsionAttractionNeutralization`` computes
  (weights 0.33 each), whose loss receives the two vectors swapped, so it returns the
  attraction *anchor* (:mod:`genderscope.vector_debias.ran_torch`). Needs torch; one
  word at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from genderscope.errors import DataError
from genderscope.progress import progress_bar
from genderscope.vector_debias.hard import (
    CHUNK_ROWS,
    HardDebiasFit,
    _unit,
    finite_blocks,
    gender_direction,
)
from genderscope.vector_debias.lists import DebiasLists

VARIANTS = ("paper", "wefe")
WEIGHTS = {"paper": (1 / 8, 6 / 8, 1 / 8), "wefe": (0.33, 0.33, 0.33)}
DEFAULT_N_WORDS = 20_000
NEIGHBOUR_CHUNK = 64
PAPER_CHUNK = 1024
BETAS, EPS = (0.9, 0.999), 1e-8


def unit_float32(vectors: Any) -> np.ndarray:
    """All vectors as float32 unit rows (x / np.linalg.norm(x), as gensim and WEFE
    normalise; a zero row stays zero). NaN or infinite rows are refused."""
    out = np.empty((len(vectors), vectors.dim), dtype=np.float32)
    for lo, block in finite_blocks(vectors):
        out[lo:lo + CHUNK_ROWS] = _unit(block)
    return out


def wefe_direction(vectors: Any, used: Sequence[tuple[str, str]]) -> np.ndarray:
    """The gender direction exactly as WEFE 1.0.1's RAN computes it: float32 rows, each
    definitional word's vector divided by its norm *twice* (WEFE normalises in
    ``get_embeddings_from_set`` and again in ``get_embeddings_from_tuples``), centred on
    its pair mean, then scikit-learn's PCA (first component, float32).

    The second division moves some entries by one float32 ulp, which the WEFE variant's
    optimisation amplifies, so the variant takes the same steps."""
    from sklearn.decomposition import PCA

    rows = []
    for pair in used:
        emb = [np.asarray(vectors.matrix[vectors.index[w]], dtype=np.float32) for w in pair]
        emb = [e / np.linalg.norm(e) for e in emb]
        emb = [e / np.linalg.norm(e) for e in emb]
        centre = np.mean(np.array(emb), axis=0)
        rows += [e - centre for e in emb]
    matrix = np.array(rows)
    pca = PCA(n_components=min(10, *matrix.shape)).fit(matrix)
    return np.asarray(pca.components_[0], dtype=np.float32)


def repulsion_sets(unit: np.ndarray, rows: np.ndarray, g: np.ndarray, *, n_neighbours: int,
                   theta: float) -> list[np.ndarray]:
    """For each target row, the rows of its repulsion set, nearest first."""
    g32 = g.astype(np.float32)
    norms = np.linalg.norm(unit, axis=1)
    norms[norms == 0] = 1.0
    k = min(n_neighbours, len(unit) - 1)
    out: list[np.ndarray] = []
    for lo in range(0, len(rows), NEIGHBOUR_CHUNK):
        chunk = rows[lo:lo + NEIGHBOUR_CHUNK]
        sims = (unit[chunk] @ unit.T) / norms[None, :]
        sims[np.arange(len(chunk)), chunk] = -np.inf  # not its own neighbour
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k > 0 else \
            np.zeros((len(chunk), 0), dtype=np.intp)
        order = np.argsort(-np.take_along_axis(sims, top, axis=1), axis=1, kind="stable")
        top = np.take_along_axis(top, order, axis=1)
        nb = unit[top]  # (c, k, d)
        w = unit[chunk][:, None, :]
        wv = np.einsum("ckd,cxd->ck", nb, w)
        n_perp = nb - (nb @ g32)[..., None] * g32
        w_perp = w - (w @ g32)[..., None] * g32
        cos_perp = np.einsum("ckd,cxd->ck", n_perp, w_perp) / (
            np.linalg.norm(n_perp, axis=2) * np.linalg.norm(w_perp, axis=2))
        with np.errstate(divide="ignore", invalid="ignore"):
            beta = (wv - cos_perp) / wv
        for i in range(len(chunk)):
            out.append(top[i][beta[i] > theta])
    return out


def _cos_grad(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos(x, y) over the last axis and its gradient with respect to x."""
    nx = np.linalg.norm(x, axis=-1, keepdims=True)
    ny = np.linalg.norm(y, axis=-1, keepdims=True)
    ny[ny == 0] = 1.0  # padding rows (masked out by the caller)
    cos = np.sum(x * y, axis=-1, keepdims=True) / (nx * ny)
    return cos[..., 0], y / (nx * ny) - cos * x / nx ** 2


def ran_paper_chunk(w: np.ndarray, repel: Sequence[np.ndarray], unit: np.ndarray,
                    g: np.ndarray, *, weights: Sequence[float], lr: float, epochs: int
                    ) -> np.ndarray:
    """The paper's optimisation for a chunk of words at once (float64; per-word losses
    summed, so each word's gradient and Adam state are its own)."""
    n, d = w.shape
    k = max((len(r) for r in repel), default=0)
    nb = np.zeros((n, max(k, 1), d))
    mask = np.zeros((n, max(k, 1)))
    for i, r in enumerate(repel):
        nb[i, :len(r)] = unit[r]
        mask[i, :len(r)] = 1.0 / len(r) if len(r) else 0.0
    l1, l2, l3 = weights
    x = w.copy()
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    for t in range(1, epochs + 1):
        c_att, d_att = _cos_grad(x, w)
        grad = l2 * 0.5 * np.sign(c_att - 1)[:, None] * d_att
        grad += l3 * np.sign(x @ g)[:, None] * g[None, :]
        if k:
            c_rep, d_rep = _cos_grad(x[:, None, :], nb)
            grad += l1 * np.einsum("nk,nkd->nd", mask * np.sign(c_rep), d_rep)
        m = BETAS[0] * m + (1 - BETAS[0]) * grad
        v = BETAS[1] * v + (1 - BETAS[1]) * grad ** 2
        denom = np.sqrt(v) / np.sqrt(1 - BETAS[1] ** t) + EPS
        x -= (lr / (1 - BETAS[0] ** t)) * m / denom
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def ran_debias(vectors: Any, lists: DebiasLists, *, variant: str = "paper",
               n_words: int = DEFAULT_N_WORDS, targets: Sequence[str] | None = None,
               weights: Sequence[float] | None = None, lr: float = 0.01, epochs: int = 300,
               n_neighbours: int = 100, theta: float = 0.05,
               progress: bool = False, ignore: Sequence[str] | None = None
               ) -> tuple[np.ndarray, HardDebiasFit]:
    """The debiased (n_words, dim) float32 matrix, row order of ``vectors.words``.

    Targets: ``targets`` (words outside the vocabulary skipped) or else the first
    ``n_words`` of the vocabulary (0: all), less the gender-specific list's words and
    ``ignore``."""
    if variant not in VARIANTS:
        raise DataError(f"unknown RAN variant {variant!r}; choose from {', '.join(VARIANTS)}")
    if epochs < 1 or lr <= 0 or n_neighbours < 0 or n_words < 0:
        raise DataError("RAN needs epochs >= 1, a positive learning rate and non-negative "
                        "--n-words / --neighbours")
    weights = tuple(weights) if weights is not None else WEIGHTS[variant]
    g, ratio, used, skipped = gender_direction(vectors, lists.definitional)
    unit = unit_float32(vectors)
    if variant == "wefe":
        g32 = wefe_direction(vectors, used)
        g = g32.astype(np.float64)  # unit up to float32 rounding; casts back exactly
    index = vectors.index
    keep = set(lists.gender_specific) | set(ignore or ())
    pool = list(targets) if targets is not None else (
        vectors.words[:n_words] if n_words else vectors.words)
    words = [w for w in dict.fromkeys(pool) if w in index and w not in keep]
    rows = np.asarray([index[w] for w in words], dtype=np.intp)
    out = unit.copy()
    step = PAPER_CHUNK if variant == "paper" else NEIGHBOUR_CHUNK
    n_repel = 0
    with progress_bar("RAN", len(rows), enabled=progress) as advance:
        for lo in range(0, len(rows), step):
            chunk = rows[lo:lo + step]
            repel = repulsion_sets(unit, chunk, g, n_neighbours=n_neighbours, theta=theta)
            n_repel += sum(len(r) for r in repel)
            if variant == "paper":
                out[chunk] = ran_paper_chunk(unit[chunk].astype(np.float64), repel, unit, g,
                                             weights=weights, lr=lr, epochs=epochs)
            else:
                from genderscope.vector_debias.ran_torch import ran_wefe_word

                for row, r in zip(chunk, repel, strict=True):
                    out[row] = ran_wefe_word(unit[row], unit[r], g32, weights=weights,
                                             lr=lr, epochs=epochs)
            advance(len(chunk))
    extra = {"variant": variant, "n_debiased": len(rows), "weights": list(weights),
             "epochs": epochs, "lr": lr, "n_neighbours": n_neighbours, "theta": theta,
             "mean_repulsion_set": round(n_repel / max(len(rows), 1), 2)}
    fit = HardDebiasFit(g, ratio, used, [], n_ignored=len(vectors) - len(rows),
                        skipped={"definitional": skipped}, extra=extra)
    return out, fit

