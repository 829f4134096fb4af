"""Downstream cost of debiasing a language model: a coherence probe on frozen features
(docs/measures/debiasing.md).

In place of bias-bench's GLUE fine-tuning (Meade et al. 2022, Sec. 7), a linear probe:
StereoSet intrasentence sentences (Nadeem et al. 2021; the packaged dev set) labelled
*unrelated* (1) or *related* (0); features the model's mean last hidden state,
L2-normalised (:mod:`genderscope.models.lm_encoder`, so a projection applies);
contexts split in a seeded order, the last ``test_share`` held out; scikit-learn's
``LogisticRegression`` (L2, C = 1, lbfgs) on standardised features. Score: held-out
accuracy with the design-effect Wilson interval over contexts
(:func:`genderscope.stats.resample.cluster_proportion_ci`). The split never depends on
the model, so a model and its debiased version are paired sentence by sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.stereoset import StereoSetItem
from genderscope.errors import GenderscopeError
from genderscope.measures._lm import data_meta, describe
from genderscope.results import Result

KINDS = ("stereotype", "anti-stereotype", "unrelated")


def split_contexts(n: int, test_share: float, seed: int) -> np.ndarray:
    """Boolean mask over ``n`` contexts: True for the held-out ones (the last
    ``round(test_share * n)`` of a seeded permutation, at least 1 and at most n - 1)."""
    if n < 2:
        raise GenderscopeError("the downstream probe needs at least 2 contexts")
    n_test = min(n - 1, max(1, round(test_share * n)))
    order = np.random.default_rng(seed).permutation(n)
    test = np.zeros(n, dtype=bool)
    test[order[n - n_test:]] = True
    return test


def item_table(items: Sequence[StereoSetItem], test: np.ndarray) -> pd.DataFrame:
    """One row per sentence: context, kind, label (1: unrelated) and fold."""
    rows = []
    for it, held in zip(items, test, strict=True):
        for kind, text in zip(KINDS, it.sentences(), strict=True):
            rows.append({"item_id": f"{it.item_id}:{kind}", "context_id": it.item_id,
                         "bias_type": it.bias_type, "kind": kind, "sentence": text,
                         "label": int(kind == "unrelated"),
                         "fold": "test" if held else "train"})
    return pd.DataFrame(rows)


def fit_predict(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray) -> np.ndarray:
    """Predicted 0/1 labels of ``x_test`` (standardised logistic regression, module doc)."""
    from sklearn.linear_model import LogisticRegression

    mu = x_train.mean(axis=0)
    sd = x_train.std(axis=0)
    sd[sd == 0] = 1.0
    clf = LogisticRegression(C=1.0, max_iter=5000)
    clf.fit((x_train - mu) / sd, y_train)
    return clf.predict((x_test - mu) / sd).astype(int)


def run_downstream(adapter: Any, items: Sequence[StereoSetItem], *, test_share: float = 0.3,
                   seed: int = 0, progress: bool = False,
                   params: dict[str, Any] | None = None) -> Result:
    """Held-out accuracy of the coherence probe (module doc)."""
    from genderscope.models.lm_encoder import REPRESENTATION, as_sentence_encoder
    from genderscope.stats.resample import cluster_proportion_ci

    if not 0 < test_share < 1:
        raise GenderscopeError(f"--test-share must be in (0, 1), got {test_share}")
    df = item_table(items, split_contexts(len(items), test_share, seed))
    train = (df.fold == "train").to_numpy()
    if df.label[train].nunique() < 2:
        raise GenderscopeError("the training contexts hold one class only; use more contexts")
    feats = as_sentence_encoder(adapter).encode(list(df.sentence), progress=progress)
    pred = fit_predict(feats[train], df.label[train].to_numpy(), feats[~train])
    test = df[~train].copy()
    test["predicted"] = pred
    test["correct"] = (test.predicted == test.label).astype(int)
    ci = cluster_proportion_ci(test.correct.to_numpy(float), test.context_id.to_numpy(),
                               unit="contexts")
    acc = {**ci.as_dict(), "estimate": 100 * ci.estimate, "ci_low": 100 * ci.ci_low,
           "ci_high": 100 * ci.ci_high, "unit": "percent", "ci_unit": "contexts"}
    majority = float(max(test.label.mean(), 1 - test.label.mean()))
    summary = {"accuracy": acc, "majority_share": 100 * majority,
               "n_test_sentences": int(len(test)), "n_test_contexts": int(
                   test.context_id.nunique()), "n_train_sentences": int(train.sum())}
    meta = {"model": describe(adapter),
            "params": {"task": "StereoSet intrasentence: unrelated vs related sentence",
                       "features": REPRESENTATION,
                       "classifier": "LogisticRegression(C=1, lbfgs), standardised features",
                       "test_share": test_share, **(params or {})},
            "data": data_meta({it.path for it in items}), "seed": seed}
    return Result(method="downstream", summary=summary, items=test.reset_index(drop=True),
                  metadata=meta)
