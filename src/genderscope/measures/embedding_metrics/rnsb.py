"""RNSB, the relative negative sentiment bias (Sweeney & Najafian 2019, "A Transparent
Framework for Evaluating Unintended Demographic Bias in Word Embeddings", ACL, Sec. 3).

A logistic-regression classifier is trained to tell attribute set A (label +1, e.g.
positive words) from B (label -1, e.g. negative words). For every target word t of X
and Y, p(t) is its predicted probability of class B; P = p / sum(p) over the targets,
and ``RNSB = KL(P || U)`` with U uniform over the targets (natural log, nats): 0 when
every target is equally likely to be "B", larger when the groups differ.

As WEFE 1.0.1 does (and so agreeing with it): the classifier is scikit-learn's
``LogisticRegression(solver="liblinear", max_iter=10000, random_state=seed)`` trained
on a stratified, shuffled 80 % split of the A and B vectors
(``train_test_split(test_size=0.2, random_state=seed)``); the held-out 20 % gives the
reported accuracy. Vectors are used raw (not normalised). Both run through
:mod:`._logreg`: the same split draws and liblinear fit, without scikit-learn's per-call
input handling.

Statistics (an addition to the paper): the metric depends on which words train the
classifier, so each bootstrap replicate resamples A and B (with replacement), draws a
*new random train/hold-out split* of them, retrains the classifier, and resamples the
targets of X and Y; the 95 % CI is the percentile interval of those replicates
(``n_resamples``, default 1,000: one fit each). No test: RNSB is >= 0 by construction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.datasets.seat import AssociationTest
from genderscope.measures.embedding_metrics._logreg import fit_logistic, stratified_split
from genderscope.measures.embedding_metrics._sets import look_up, percentile_ci
from genderscope.measures.weat import DEFAULT_MAX_OOV
from genderscope.results import Result

DEFAULT_RNSB_RESAMPLES = 1_000


def kl_from_uniform(p: np.ndarray) -> float:
    """KL(p / sum p || uniform) in nats."""
    q = p / p.sum()
    q = q[q > 0]
    return float(np.sum(q * np.log(q * p.size)))


def fit_classifier(pos: np.ndarray, neg: np.ndarray, random_state: int
                   ) -> tuple[tuple[np.ndarray, float], float]:
    """Logistic regression on a stratified 80/20 split of A (+1) vs B (-1), WEFE 1.0.1's
    recipe (:mod:`._logreg`: the same split and liblinear fit as scikit-learn's calls);
    returns the fitted (coef, intercept) and its hold-out accuracy."""
    emb = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(len(pos)), -np.ones(len(neg))])
    train, test = stratified_split(labels, random_state)
    model = fit_logistic(emb[train], labels[train], random_state)
    # predict(): classes_[decision > 0] with classes_ = (-1, +1)
    predicted = np.where(_decision(model, emb[test]) > 0, 1.0, -1.0)
    return model, float(np.mean(predicted == labels[test]))


def _decision(model: tuple[np.ndarray, float], x: np.ndarray) -> np.ndarray:
    return x @ model[0] + model[1]


def negative_probability(model: tuple[np.ndarray, float], targets: np.ndarray) -> np.ndarray:
    """P(class -1 | t) per target row: 1 - expit(decision), expit(decision) being
    P(+1) (what scikit-learn's predict_proba returns for classes_ = (-1, +1))."""
    return 1.0 - 1.0 / (1.0 + np.exp(-_decision(model, targets)))


def rnsb(vectors: Any, test: AssociationTest, *, seed: int = 0,
         max_oov: float = DEFAULT_MAX_OOV, case_fallback: bool = True,
         n_resamples: int = DEFAULT_RNSB_RESAMPLES, **_: Any) -> Result:
    """RNSB of targets X, Y with a classifier of A vs B (module docstring)."""
    from genderscope.errors import DataError

    looked = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    pos, neg = looked.emb["A"], looked.emb["B"]
    if min(len(pos), len(neg)) < 3:
        raise DataError(f"{test.name}: RNSB trains a classifier on A vs B and needs at least "
                        "3 in-vocabulary words in each")
    targets = np.vstack([looked.emb["X"], looked.emb["Y"]])
    model, accuracy = fit_classifier(pos, neg, seed)
    p = negative_probability(model, targets)
    est = kl_from_uniform(p)
    rng = np.random.default_rng(seed)
    nx = len(looked.emb["X"])
    draws = np.empty(n_resamples)
    for k in range(n_resamples):
        bp = pos[rng.integers(0, len(pos), len(pos))]
        bn = neg[rng.integers(0, len(neg), len(neg))]
        bt = np.concatenate([rng.integers(0, nx, nx),
                             nx + rng.integers(0, len(targets) - nx, len(targets) - nx)])
        try:
            bmodel, _ = fit_classifier(bp, bn, int(rng.integers(0, 2**31 - 1)))
        except ValueError:  # a degenerate resample (one class in the training split)
            draws[k] = np.nan
            continue
        draws[k] = kl_from_uniform(negative_probability(bmodel, targets[bt]))
    ci = percentile_ci(est, draws, n=len(targets) + len(pos) + len(neg),
                       unit="words (targets and classifier training words, new split each)")
    rows, cats = [], looked.categories()
    for role, lo in (("X", 0), ("Y", nx)):
        for i, w in enumerate(looked.words[role]):
            rows.append({"set": role, "category": cats[role], "text": w,
                         "value": float(p[lo + i]), "share": float(p[lo + i] / p.sum())})
    summary = {**looked.base_summary(), "rnsb": ci.as_dict(), "holdout_accuracy": accuracy,
               "n_failed_resamples": int(np.isnan(draws).sum())}
    params = {"max_oov": max_oov, "case_fallback": case_fallback, "n_bootstrap": n_resamples,
              "classifier": "LogisticRegression(solver=liblinear, max_iter=10000)",
              "holdout": 0.2, "random_state": seed}
    return looked.result("rnsb", summary, rows, params, seed)
