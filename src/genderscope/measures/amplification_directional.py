"""Directional bias amplification, BiasAmp-> (Wang & Russakovsky 2021, "Directional Bias
Amplification", ICML, Sec. 4, eq. 2): the instance-level definition, its form over two
unpaired caption corpora, and the columns it adds to the corpus measure
(:func:`genderscope.measures.amplification.bias_amplification` with ``directional``).

Unlike Zhao et al.'s mean bias amplification it counts every (attribute, task) pair,
positively or negatively correlated in the training data (y_at), so a model that weakens
a correlation scores below 0, and it tells the direction: A->T (does the attribute
change the predicted task?) from T->A (does the task change the predicted attribute?).
"""

from __future__ import annotations

import numpy as np

from genderscope.results import Result
from genderscope.stats import bootstrap_ci


def directional_amplification(attr_true: np.ndarray, task_true: np.ndarray,
                              attr_pred: np.ndarray, task_pred: np.ndarray, *,
                              direction: str) -> tuple[float, np.ndarray]:
    """BiasAmp-> of Wang & Russakovsky (2021, "Directional Bias Amplification", ICML,
    Sec. 4, eq. 2) over N instances with 0/1 labels: ``attr_*`` (N, |A|), ``task_*``
    (N, |T|), ground truth and prediction. With P the share of instances::

        y_at = 1[P(A_a=1, T_t=1) > P(A_a=1) P(T_t=1)]
        A->T: D_at = P(T^_t=1 | A_a=1) - P(T_t=1 | A_a=1)
        T->A: D_at = P(A^_a=1 | T_t=1) - P(A_a=1 | T_t=1)
        BiasAmp-> = 1/(|A||T|) sum_{a,t} [ y_at D_at + (1 - y_at)(-D_at) ]

    Returns the value and the (|A|, |T|) terms; a pair whose conditioning event never
    occurs has a NaN term and is left out of the mean.
    """
    at, tt = np.asarray(attr_true, float), np.asarray(task_true, float)
    ap, tp = np.asarray(attr_pred, float), np.asarray(task_pred, float)
    if direction not in ("A->T", "T->A"):
        raise ValueError(f"direction must be 'A->T' or 'T->A', got {direction!r}")
    joint = at.T @ tt / len(at)                                    # P(A_a, T_t)
    y = joint > at.mean(axis=0)[:, None] * tt.mean(axis=0)[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        if direction == "A->T":  # conditioned on the true attribute
            n_a = at.sum(axis=0)[:, None]
            delta = (at.T @ tp) / n_a - (at.T @ tt) / n_a
        else:  # conditioned on the true task
            n_t = tt.sum(axis=0)[None, :]
            delta = (ap.T @ tt) / n_t - (at.T @ tt) / n_t
    terms = np.where(y, delta, -delta)
    return float(np.nanmean(terms)), terms


def directional_from_counts(c_train: np.ndarray, c_out: np.ndarray,
                            n_train: np.ndarray, n_out: np.ndarray, *,
                            direction: str) -> np.ndarray:
    """Per-object BiasAmp-> terms (mean over the |G| groups, so that their mean over
    objects is BiasAmp->) from co-occurrence counts of two unpaired corpora.

    ``c_*`` (|O|, |G|): captions of exactly one group g that mention o; ``n_*`` (|G|,):
    captions of exactly one group (the instances whose attribute is defined). y_og is
    read from the training counts (P(A_g, T_o) > P(A_g) P(T_o) over the training
    corpus's gendered captions). The corpora are not paired caption by caption, so the
    output's probabilities condition on the output's own labels:
    T->A: D_og = c~(o, g) / sum_g' c~(o, g') - c*(o, g) / sum_g' c*(o, g') (b~ - b*);
    A->T: D_og = c~(o, g) / n~(g) - c*(o, g) / n*(g).
    """
    ct, co = np.asarray(c_train, float), np.asarray(c_out, float)
    nt, no = np.asarray(n_train, float), np.asarray(n_out, float)
    total = nt.sum()
    y = ct / total > (nt / total)[None, :] * (ct.sum(axis=1, keepdims=True) / total)
    with np.errstate(invalid="ignore", divide="ignore"):
        if direction == "T->A":
            delta = co / co.sum(axis=1, keepdims=True) - ct / ct.sum(axis=1, keepdims=True)
        elif direction == "A->T":
            delta = co / no[None, :] - ct / nt[None, :]
        else:
            raise ValueError(f"direction must be 'A->T' or 'T->A', got {direction!r}")
    return np.where(y, delta, -delta).mean(axis=1)


def add_directional(result: Result, c_train: np.ndarray, c_out: np.ndarray,
                    n_train: np.ndarray, n_out: np.ndarray, *, seed: int,
                    n_resamples: int) -> Result:
    """Add BiasAmp-> in both directions (Wang & Russakovsky 2021; see
    :func:`directional_from_counts`) over the objects the mean bias amplification
    includes: per-object columns ``biasamp_t_to_a`` / ``biasamp_a_to_t`` and, in the
    summary, each mean with a percentile bootstrap CI over the same objects."""
    keep = (result.items["status"] == "included").to_numpy()
    unit = result.summary["mean_bias_amplification"].get("ci_unit") or "objects"
    for direction, col in (("T->A", "biasamp_t_to_a"), ("A->T", "biasamp_a_to_t")):
        vals = np.full(len(keep), np.nan)
        vals[keep] = directional_from_counts(c_train[keep], c_out[keep], n_train, n_out,
                                             direction=direction)
        result.items[col] = vals
        ci = bootstrap_ci(vals[keep], n_resamples=n_resamples, seed=seed, unit=unit)
        result.summary[col] = {**ci.as_dict(), "estimate": float(np.mean(vals[keep])),
                               "direction": direction}
    result.summary["group_totals"] = {"training": n_train.tolist(), "output": n_out.tolist()}
    return result
