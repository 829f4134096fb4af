"""Gender subspaces from sentence representations: INLP and SentenceDebias (numpy, scipy,
scikit-learn; no torch).

INLP (Ravfogel et al. 2020, Algorithm 1; bias-bench's ``debias/inlp``): linear
classifiers (``LinearSVC``, no intercept, ``random_state=0``, primal solver: bias-bench's
and Liang et al.'s settings) are trained in turn to tell the classes (male 1, female 0,
neutral -1) apart from representations X; after classifier i, X is projected onto the
intersection of the nullspaces of classifiers 1..i,

    P = I - P_R(W_1 + ... + W_i)    (Ben-Israel 2013: N(w_1) ∩ ... ∩ N(w_n) = N(Σ P_R(w_j)))

where P_R(W) = B B^T for an orthonormal basis B of W's rowspace (``scipy.linalg.orth``).
The formula is kept literally (one d x d SVD per iteration), although the stacked
weights span the same space: LinearSVC's solution (liblinear, tolerance 1e-4) moves by
~1e-4 when its input moves by 1e-15, so any other arithmetic gives another P.
The final P (d x d) is applied to every last hidden state: h -> P h. Data split as
bias-bench: 70/30 train+dev vs test, then 70/30 train vs dev (``train_test_split``,
``random_state=0``); dev accuracy per iteration is reported (chance is the share of the
largest class), the test part is unused.

SentenceDebias (Liang et al. 2020, sec. 3, eq. 1-2; bias-bench's ``sentence_debias``):
for counterfactual pairs (m_i, f_i) of L2-normalised mean-pooled representations, the
pair means are removed, and the first principal component v of {m_i - μ_i, f_i - μ_i}
(``sklearn.decomposition.PCA``) is the gender direction; h -> h - (h·v) v / (v·v),
i.e. P = I - v v^T / (v·v).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from genderscope.errors import GenderscopeError


@dataclass
class Subspace:
    """A projection P (d x d, float64) and what was learned on the way."""

    projection: np.ndarray
    directions: np.ndarray
    """Rows: the classifier weights (INLP) or the PCA direction (SentenceDebias)."""
    info: dict[str, object] = field(default_factory=dict)


def rowspace_projection(w: np.ndarray) -> np.ndarray:
    """Orthogonal projection onto the rowspace of ``w`` (k x d); zero for w = 0."""
    import scipy.linalg

    if np.allclose(w, 0):
        return np.zeros((w.shape[1], w.shape[1]))
    basis = scipy.linalg.orth(w.T)
    return basis @ basis.T


def nullspace_intersection(rowspaces: list[np.ndarray], dim: int) -> np.ndarray:
    """Projection onto the intersection of the nullspaces whose rowspace projections are
    given (Ben-Israel 2013)."""
    if not rowspaces:
        return np.eye(dim)
    return np.eye(dim) - rowspace_projection(np.sum(rowspaces, axis=0))


def inlp(male: np.ndarray, female: np.ndarray, neutral: np.ndarray, *,
         n_classifiers: int = 80, seed: int = 0) -> Subspace:
    """INLP projection from the three classes' representations (see module doc)."""
    from threadpoolctl import threadpool_limits

    # one BLAS thread: a 768 x 768 SVD took 0.4 s single-threaded and 3.1 s multi-threaded on a busy
    # 2-core machine
    with threadpool_limits(limits=1, user_api="blas"):
        return _inlp(male, female, neutral, n_classifiers=n_classifiers, seed=seed)


def _inlp(male: np.ndarray, female: np.ndarray, neutral: np.ndarray, *,
          n_classifiers: int, seed: int) -> Subspace:
    from sklearn.model_selection import train_test_split
    from sklearn.svm import LinearSVC

    feats = [np.asarray(a, dtype=np.float64) for a in (male, female, neutral)]
    if min(len(a) for a in feats[:2]) < 2:
        raise GenderscopeError(
            f"INLP needs male and female sentences; the corpus gave {len(feats[0])} male and "
            f"{len(feats[1])} female sentences with attribute words")
    x = np.concatenate(feats)
    y = np.concatenate([np.ones(len(feats[0]), int), np.zeros(len(feats[1]), int),
                        -np.ones(len(feats[2]), int)])
    x_td, _, y_td, _ = train_test_split(x, y, test_size=0.3, random_state=seed)
    x_tr, x_dev, y_tr, y_dev = train_test_split(x_td, y_td, test_size=0.3, random_state=seed)
    dim = x.shape[1]
    rowspaces: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    acc: list[float] = []
    cur_tr, cur_dev = x_tr, x_dev
    for _ in range(n_classifiers):
        clf = LinearSVC(fit_intercept=False, class_weight=None, dual=False, random_state=seed)
        clf.fit(cur_tr, y_tr)
        acc.append(float(clf.score(cur_dev, y_dev)))
        w = np.atleast_2d(clf.coef_)
        weights.append(w)
        rowspaces.append(rowspace_projection(w))
        p = nullspace_intersection(rowspaces, dim)
        cur_tr, cur_dev = (p @ x_tr.T).T, (p @ x_dev.T).T
    p = nullspace_intersection(rowspaces, dim)
    counts = np.unique(y_dev, return_counts=True)[1]
    return Subspace(p, np.concatenate(weights), {
        "n_classifiers": n_classifiers, "dev_accuracy": acc,
        "dev_majority_share": float(counts.max() / counts.sum()),
        "n_train": int(len(y_tr)), "n_dev": int(len(y_dev)), "rank_removed": int(
            round(dim - np.trace(p)))})


def sentence_debias(male: np.ndarray, female: np.ndarray) -> Subspace:
    """SentenceDebias projection from paired representations (see module doc)."""
    from sklearn.decomposition import PCA

    m = np.asarray(male, dtype=np.float64)
    f = np.asarray(female, dtype=np.float64)
    if len(m) != len(f) or len(m) < 1:
        raise GenderscopeError("SentenceDebias needs at least one counterfactual sentence "
                               "pair with an attribute word; the corpus gave none")
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    f = f / np.linalg.norm(f, axis=1, keepdims=True)
    mu = (m + f) / 2.0
    pca = PCA(n_components=1)
    pca.fit(np.concatenate([m - mu, f - mu]))
    v = pca.components_[0]
    p = np.eye(len(v)) - np.outer(v, v) / v.dot(v)
    return Subspace(p, v[None, :], {
        "n_pairs": int(len(m)),
        "explained_variance_ratio": float(pca.explained_variance_ratio_[0])})
