"""RNSB, the relative negative sentiment bias (Sweeney & Najafian 2019, "A Transparent
Framework for Evaluating Unintended Demographic Bias in Word Embeddings", ACL, Sec. 3;
docs/measures/rnsb.md).

A logistic regression tells attribute set A (+1) from B (-1); for every target word t,
p(t) is its probability of class B, P = p / sum(p), and ``RNSB = KL(P || U)`` with U
uniform over the targets (nats; targets of any number of groups, as WEFE 1.0.1's "n" x 2
template). As WEFE 1.0.1: ``LogisticRegression(solver="liblinear", max_iter=10000,
random_state=seed)`` on a stratified 80 % split of the raw A and B vectors
(``train_test_split(test_size=0.2, random_state=seed)``; :mod:`._logreg`), the held-out
20 % giving the accuracy.

CI (an addition): each replicate resamples A and B, draws a new split, refits, and
resamples the targets; percentile interval over ``n_resamples``. RNSB is >= 0, so it is
labelled ``absolute`` and carries ``no_bias_p95``: the ceil(0.95 (n + 1))-th smallest
RNSB over ``min(n_resamples, 200)`` random relabellings of A u B (no sentiment direction).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from genderscope.datasets.query import Query
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


def rnsb_values(pos: np.ndarray, neg: np.ndarray, targets: list[np.ndarray], seed: int,
                n_resamples: int) -> tuple[float, float, np.ndarray, np.ndarray]:
    """(RNSB, hold-out accuracy, bootstrap draws, P(B | t) per target word) of any
    number of target sets (WEFE's "n" x 2 template: the KL runs over the words of every
    set together). Each replicate resamples A, B and every target set on its own."""
    every = np.vstack(targets)
    model, accuracy = fit_classifier(pos, neg, seed)
    p = negative_probability(model, every)
    est = kl_from_uniform(p)
    rng = np.random.default_rng(seed)
    sizes = [len(t) for t in targets]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    draws = np.empty(n_resamples)
    for k in range(n_resamples):
        bp = pos[rng.integers(0, len(pos), len(pos))]
        bn = neg[rng.integers(0, len(neg), len(neg))]
        bt = np.concatenate([lo + rng.integers(0, n, n)
                             for lo, n in zip(offsets, sizes, strict=True)])
        try:
            bmodel, _ = fit_classifier(bp, bn, int(rng.integers(0, 2**31 - 1)))
        except ValueError:  # a degenerate resample (one class in the training split)
            draws[k] = np.nan
            continue
        draws[k] = kl_from_uniform(negative_probability(bmodel, every[bt]))
    return est, accuracy, draws, p


NO_BIAS_RELABELLINGS = 200
"""Most random relabellings of A u B behind ``no_bias_p95`` (module docstring)."""


def no_bias_reference(pos: np.ndarray, neg: np.ndarray, targets: list[np.ndarray],
                      seed: int, n: int) -> float:
    """The 95th percentile of RNSB over ``n`` random relabellings of the attribute words
    A u B into sets of |A| and |B| (module docstring); NaN when ``n`` is 0."""
    every = np.vstack(targets)
    pooled = np.vstack([pos, neg])
    rng = np.random.default_rng([seed, 36])
    vals = []
    for _ in range(n):
        order = rng.permutation(len(pooled))
        try:
            model, _ = fit_classifier(pooled[order[:len(pos)]], pooled[order[len(pos):]],
                                      int(rng.integers(0, 2**31 - 1)))
        except ValueError:  # a degenerate split
            continue
        vals.append(kl_from_uniform(negative_probability(model, every)))
    if not vals:
        return float("nan")
    k = min(math.ceil(0.95 * (len(vals) + 1)), len(vals))  # the permutation test's
    return float(np.sort(vals)[k - 1])  # critical value: P(RNSB > it) <= 0.05 under no bias


def _labelled(ci: dict[str, Any], reference: float) -> dict[str, Any]:
    """RNSB's interval, labelled as the interval of an absolute value, with the value
    expected under no bias beside it."""
    return {**ci, "absolute": True, "no_bias_p95": reference,
            "no_bias": "95th percentile of RNSB over random relabellings of A u B"}


def _params(max_oov: float, case_fallback: bool, n_resamples: int, seed: int
            ) -> dict[str, Any]:
    return {"max_oov": max_oov, "case_fallback": case_fallback, "n_bootstrap": n_resamples,
            "classifier": "LogisticRegression(solver=liblinear, max_iter=10000)",
            "holdout": 0.2, "random_state": seed}


def _check_attributes(name: str, pos: np.ndarray, neg: np.ndarray) -> None:
    from genderscope.errors import DataError

    if min(len(pos), len(neg)) < 3:
        raise DataError(f"{name}: RNSB trains a classifier on A vs B and needs at least "
                        "3 in-vocabulary words in each")


def rnsb(vectors: Any, test: AssociationTest | Query, *, seed: int = 0,
         max_oov: float = DEFAULT_MAX_OOV, case_fallback: bool = True,
         n_resamples: int = DEFAULT_RNSB_RESAMPLES, **_: Any) -> Result:
    """RNSB of targets X, Y with a classifier of A vs B (module docstring); a
    :class:`~genderscope.datasets.query.Query` gives any number of target sets."""
    groups = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    pos, neg = (groups.emb[r] for r in groups.attributes)
    _check_attributes(test.name, pos, neg)
    est, accuracy, draws, p = rnsb_values(pos, neg, [groups.emb[r] for r in groups.targets],
                                          seed, n_resamples)
    ci = percentile_ci(est, draws, n=len(p) + len(pos) + len(neg),
                       unit="words (targets and classifier training words, new split each)")
    rows, cats, i = [], groups.categories(), 0
    for role in groups.targets:
        for w in groups.words[role]:
            rows.append({"set": role, "category": cats[role], "text": w,
                         "value": float(p[i]), "share": float(p[i] / p.sum())})
            i += 1
    ref = no_bias_reference(pos, neg, [groups.emb[r] for r in groups.targets], seed,
                            min(n_resamples, NO_BIAS_RELABELLINGS))
    summary = {**groups.base_summary(), "rnsb": _labelled(ci.as_dict(), ref),
               "holdout_accuracy": accuracy,
               "n_failed_resamples": int(np.isnan(draws).sum())}
    return groups.result("rnsb", summary, rows,
                         _params(max_oov, case_fallback, n_resamples, seed), seed)
