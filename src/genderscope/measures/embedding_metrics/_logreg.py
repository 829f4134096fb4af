"""WEFE 1.0.1's RNSB classifier recipe (``train_test_split(test_size=0.2, stratify=labels,
shuffle=True, random_state=seed)``, then ``LogisticRegression(solver="liblinear",
max_iter=10000, random_state=seed).fit``) with the same random draws and liblinear call,
minus scikit-learn's per-call input handling.

The split redoes StratifiedShuffleSplit's draws on a reseeded legacy ``RandomState``; the
fit calls liblinear's ``train_wrap`` with ``_fit_liblinear``'s arguments (L2 logistic
regression in the primal, solver 0, C=1, tol=1e-4, intercept scale 1), or the public
estimator where that entry point is missing (both checked against scikit-learn in
tests/measures/test_embedding_metrics.py).
"""

from __future__ import annotations

import math
import threading
import warnings
from typing import Any

import numpy as np

MAX_ITER = 10_000
TOL = 1e-4
_local = threading.local()


def legacy_rng(seed: int) -> np.random.RandomState:
    """This thread's RandomState, reseeded: the state of ``RandomState(seed)``."""
    rng = getattr(_local, "rng", None)
    if rng is None:
        rng = _local.rng = np.random.RandomState(seed)
    else:
        rng.seed(seed)
    return rng


def _mode(counts: np.ndarray, n_draws: int, rng: np.random.RandomState) -> np.ndarray:
    """Per-class draws nearest the multivariate hypergeometric mode, ties broken at
    random (scikit-learn's ``_approximate_mode``: the same arithmetic and draws)."""
    share = counts / counts.sum() * n_draws
    taken = np.floor(share)
    short = int(n_draws - taken.sum())
    if short > 0:
        left = share - taken
        for value in np.sort(np.unique(left))[::-1]:
            (tied,) = np.where(left == value)
            k = min(len(tied), short)
            taken[rng.choice(tied, size=k, replace=False)] += 1
            short -= k
            if short == 0:
                break
    return taken.astype(int)


def stratified_split(labels: np.ndarray, random_state: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) row indices of ``train_test_split(..., test_size=0.2,
    stratify=labels, shuffle=True, random_state=random_state)``: ceil(0.2 n) test rows
    (:class:`ValueError` where scikit-learn raises one: a class with one row, or fewer
    train/test rows than classes)."""
    n = len(labels)
    n_test = math.ceil(0.2 * n)
    n_train = n - n_test
    classes, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if counts.min() < 2 or min(n_train, n_test) < len(classes):
        raise ValueError("a stratified split needs two rows per class and one per class "
                         "on each side")
    members = np.split(np.argsort(inverse, kind="stable"), np.cumsum(counts)[:-1])
    rng = legacy_rng(random_state)
    n_tr = _mode(counts, n_train, rng)
    n_te = _mode(counts - n_tr, n_test, rng)
    train: list[int] = []
    test: list[int] = []
    for rows, a, b in zip(members, n_tr, n_te, strict=True):
        shuffled = rows.take(rng.permutation(len(rows)), mode="clip")
        train.extend(shuffled[:a])
        test.extend(shuffled[a:a + b])
    return rng.permutation(train), rng.permutation(test)


def _train_wrap() -> Any:
    """liblinear's ``train_wrap``, its progress printing off (as scikit-learn sets it
    before each fit); None where this scikit-learn lacks them."""
    try:
        from sklearn.svm._liblinear import set_verbosity_wrap, train_wrap
    except ImportError:  # a scikit-learn without them: the public estimator is used
        return None
    set_verbosity_wrap(0)
    return train_wrap


def fit_logistic(x: np.ndarray, y: np.ndarray, random_state: int) -> tuple[np.ndarray, float]:
    """(coef (d,), intercept) of ``LogisticRegression(solver="liblinear",
    max_iter=10000, random_state=random_state).fit(x, y)`` for labels y in {-1, +1}
    (both present)."""
    train_wrap = _train_wrap()
    if train_wrap is None:
        from sklearn.linear_model import LogisticRegression

        clf = LogisticRegression(solver="liblinear", max_iter=MAX_ITER,
                                 random_state=random_state).fit(x, y)
        return clf.coef_[0], float(clf.intercept_[0])
    if np.unique(y).size < 2:
        raise ValueError("the training split holds one class only")
    seed = legacy_rng(random_state).randint(np.iinfo("i").max)
    raw, n_iter = train_wrap(np.ascontiguousarray(x, dtype=np.float64),
                             (y > 0).astype(np.float64), False, 0, TOL, 1.0, 1.0,
                             np.ones(2), MAX_ITER, seed, 0.1, np.ones(len(y)))
    if max(n_iter) >= MAX_ITER:
        from sklearn.exceptions import ConvergenceWarning

        warnings.warn("Liblinear failed to converge, increase the number of iterations.",
                      ConvergenceWarning, stacklevel=2)
    return raw[0, :-1], float(raw[0, -1])
