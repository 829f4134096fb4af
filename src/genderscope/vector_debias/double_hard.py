"""Double-Hard Debias (Wang, Lin, Rajani, McCann, Ordonez & Xiong 2020, "Double-Hard
Debias: Tailoring Word Embeddings for Gender Bias Mitigation", ACL, Sec. 4, Alg. 1).

Word frequency skews the gender direction; Double-Hard Debias first removes one
"frequency" principal component, then the gender direction:

1. mu = mean of all vectors; u_1..u_10 = principal components of all ``w - mu``.
2. g = first principal component of the definitional pairs' (raw) vectors, each centred
   on its pair mean.
3. The ``n_words`` most female and most male words by cos(he, w) - cos(she, w) (the
   gender-specific words excluded) are the *probe* words.
4. For each candidate i < ``n_components``: w' = (w - mu) - (u_i . w) u_i, then
   w'' = w' - (w' . g) g / (g . g) for the probe words; k-means (k = 2) on them and its
   accuracy against their male/female label. The i with the lowest accuracy (gender
   least recoverable) is chosen.
5. The chosen step is applied.

As in WEFE 1.0.1's ``DoubleHardDebias`` (and agreeing with it,
tests/agreement/test_wefe_agreement.py):
step 5 rewrites only the 2 x ``n_words`` probe words (every other vector is left as it
is), the frequency projection uses ``u_i . w`` of the un-centred w as Algorithm 1 writes
it, vectors are not normalised, and only the gender direction is removed (no equalize
step). The principal components of step 1 are exact (eigenvectors of the covariance; WEFE:
``IncrementalPCA``). k-means: ``KMeans(n_clusters=2, random_state=seed, n_init=10)``;
WEFE's is unseeded with one initialisation, so the component it picks can change from
run to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from genderscope.errors import DataError
from genderscope.vector_debias.hard import CHUNK_ROWS, HardDebiasFit, _unit, finite_blocks
from genderscope.vector_debias.lists import DebiasLists

N_PCA = 10


def _checked(vectors: Any) -> tuple[np.ndarray, np.ndarray]:
    """(mean vector, covariance of all rows) in float64, one pass; NaN rows refused."""
    src = vectors.matrix
    total = np.zeros(src.shape[1])
    gram = np.zeros((src.shape[1], src.shape[1]))
    for _, block in finite_blocks(vectors, np.float64):
        total += block.sum(axis=0)
        gram += block.T @ block
    n = src.shape[0]
    mean = total / n
    return mean, gram / n - np.outer(mean, mean)


def frequency_components(cov: np.ndarray, k: int = N_PCA) -> np.ndarray:
    """The top-k principal directions (rows) of a covariance matrix."""
    vals, vecs = np.linalg.eigh(cov)
    return vecs[:, np.argsort(vals)[::-1][:k]].T


def probe_words(vectors: Any, exclude: set[str], n_words: int,
                bias_words: tuple[str, str]) -> list[str]:
    """The n most female- then the n most male-leaning words by cos(he,w) - cos(she,w)."""
    a, b = _unit(vectors.vectors(list(bias_words)))
    src = vectors.matrix
    score = np.empty(src.shape[0])
    for lo in range(0, src.shape[0], CHUNK_ROWS):
        block = _unit(np.asarray(src[lo:lo + CHUNK_ROWS], dtype=np.float64))
        score[lo:lo + CHUNK_ROWS] = block @ a - block @ b
    words = vectors.words
    first = vectors.index
    order = [i for i in np.argsort(score, kind="stable")
             if words[i] not in exclude and first[words[i]] == i]
    if len(order) < 2 * n_words:
        raise DataError(f"double-hard debias needs {2 * n_words} probe words; the vocabulary "
                        f"has {len(order)} outside the gender-specific list (lower --n-words)")
    return [words[i] for i in order[:n_words]] + [words[i] for i in order[-n_words:]]


def _step(emb: np.ndarray, mean: np.ndarray, u: np.ndarray, g: np.ndarray) -> np.ndarray:
    out = (emb - mean) - np.outer(emb @ u, u)
    return out - np.outer(out @ g, g) / (g @ g)


def _alignment(emb: np.ndarray, n_words: int, seed: int) -> float:
    from sklearn.cluster import KMeans

    pred = KMeans(n_clusters=2, random_state=seed, n_init=10).fit_predict(emb)
    acc = float(np.mean(pred == np.repeat([0, 1], n_words)))
    return max(acc, 1.0 - acc)


def double_hard_debias(vectors: Any, lists: DebiasLists, *, n_words: int = 1000,
                       n_components: int = 4, bias_words: tuple[str, str] = ("he", "she"),
                       seed: int = 0, component: int | None = None,
                       targets: Sequence[str] | None = None,
                       ignore: Sequence[str] | None = None
                       ) -> tuple[np.ndarray, HardDebiasFit]:
    """The debiased (n_words, dim) float32 matrix, row order of ``vectors.words``.
    ``component``: use this frequency component instead of choosing by k-means.
    ``targets``: debias these words (in the vocabulary, outside the gender-specific
    list) instead of the probe words; the component is still chosen on the probe
    words. ``ignore``: words neither probed nor debiased."""
    dim = int(vectors.matrix.shape[1])
    if n_components > dim:  # only dim principal components exist (was an IndexError)
        raise DataError(f"--frequency-components {n_components}: the vectors have {dim} "
                        "dimensions, so at most that many components")
    missing = [w for w in bias_words if w not in vectors]
    if missing:
        raise DataError(f"double-hard debias: {', '.join(missing)} not in the vocabulary")
    used = [(a, b) for a, b in lists.definitional if a in vectors and b in vectors and a != b]
    if len(used) < 2:
        raise DataError(f"double-hard debias needs at least 2 definitional pairs in the "
                        f"vocabulary; found {len(used)} of {len(lists.definitional)}")
    mean, cov = _checked(vectors)
    comps = frequency_components(cov, max(N_PCA, n_components))
    emb = vectors.vectors([w for p in used for w in p]).reshape(len(used), 2, -1)
    centred = (emb - emb.mean(axis=1, keepdims=True)).reshape(2 * len(used), -1)
    centred -= centred.mean(axis=0)
    g = np.linalg.svd(centred, full_matrices=False)[2][0]
    exclude = set(lists.gender_specific) | set(ignore or ())
    probes = probe_words(vectors, exclude, n_words, bias_words)
    pv = vectors.vectors(probes)
    scores = [_alignment(_step(pv, mean, comps[i], g), n_words, seed)
              for i in range(n_components)]
    best = int(np.argmin(scores)) if component is None else component
    out = np.array(vectors.matrix, dtype=np.float32)
    chosen = probes if targets is None else [
        w for w in dict.fromkeys(targets) if w in vectors and w not in exclude]
    rows = [vectors.index[w] for w in chosen]
    if rows:
        cv = pv if targets is None else vectors.vectors(chosen)
        out[rows] = _step(cv, mean, comps[best], g).astype(np.float32)
    fit = HardDebiasFit(g / np.linalg.norm(g), [], used, [], n_ignored=len(vectors) -
                        len(rows), skipped={"definitional": []},
                        extra={"component": best, "alignments": scores,
                               "n_probe_words": len(rows)})
    return out, fit
