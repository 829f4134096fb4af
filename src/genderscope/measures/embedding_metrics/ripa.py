"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019,
"Understanding Undesirable Word Embedding Associations", ACL, Sec. 4, Def. 3).

For target word pairs (x_i, y_i) (X[i] with Y[i], in file order) the relation vector is
``b_i = (x_i - y_i) / ||x_i - y_i||``; the association of an attribute word a is
``RIPA(a) = mean_i a . b_i`` (inner product with the raw vector of a: its length counts,
as in the paper). The metric of an attribute set S is ``mean_{a in S} RIPA(a)``; it is
computed for S = A and for S = B. Positive: S lies on the X side of the pairs. Units:
those of the vectors (inner product with a unit vector).

Statistics (additions to the paper): the per-pair score ``r_i = mean_{a in S} a . b_i``
averages to the metric, so the metric is a mean over *word pairs* (its declared design,
:data:`DESIGN`) and :func:`genderscope.stats.design.infer` chooses its statistics: the
95 % CI is Student's t interval over the pairs (WEAT's fix of issue 22 carried over, issue
36 row 3: the percentile bootstrap over pairs it replaced covered 0.88 at 8 pairs and
0.92 at 20), and the p-value a two-sided sign-flip test of mean r = 0 (swapping a pair's
order flips the sign of r_i; under no association the order is arbitrary). The attribute
words are held fixed: the interval is for the attribute words given (docs/calibration.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.core.design import Design
from genderscope.datasets.seat import AssociationTest
from genderscope.errors import DataError
from genderscope.measures.embedding_metrics._sets import (
    ATTRS,
    DEFAULT_RESAMPLES,
    look_up,
)
from genderscope.measures.weat import DEFAULT_MAX_OOV
from genderscope.results import Result
from genderscope.stats.design import infer

DESIGN = Design("mean", unit="word pairs", paired="pair order")
"""RIPA's design: a mean over independent word pairs whose sign flips with the pair's
order (the declaration's ``design``, catalog/embedding_metrics.py)."""


def relation_vectors(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``(x_i - y_i) / ||x_i - y_i||`` per pair (a pair of identical vectors is an error)."""
    diff = x - y
    norms = np.linalg.norm(diff, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise DataError("RIPA: a target pair has identical vectors (no relation direction)")
    return diff / norms


def word_pairs(vectors: Any, test: AssociationTest, *, case_fallback: bool
               ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(pairs kept as vocabulary keys, pairs dropped) of X[i] with Y[i]; a pair is kept
    only when both words are in the vocabulary (so OOV words never shift the pairing),
    and once when two spellings find the same two vocabulary entries."""
    kept: list[tuple[str, str]] = []
    dropped: list[tuple[str, str]] = []
    for wx, wy in zip(test.targ1.examples, test.targ2.examples, strict=False):
        kx = vectors.key_for(wx, case_fallback=case_fallback)
        ky = vectors.key_for(wy, case_fallback=case_fallback)
        if kx is not None and ky is not None:
            if (kx, ky) not in kept:  # ("He", "She") after ("he", "she"): one pair
                kept.append((kx, ky))
        else:
            dropped.append((wx, wy))
    if not kept:
        raise DataError(f"{test.name}: RIPA needs X[i], Y[i] word pairs in the vocabulary; "
                        "none is")
    return kept, dropped


def ripa(vectors: Any, test: AssociationTest, *, n_permutations: int = 10_000, seed: int = 0,
         max_oov: float = DEFAULT_MAX_OOV, case_fallback: bool = True,
         n_resamples: int = DEFAULT_RESAMPLES) -> Result:
    """RIPA of attribute sets A and B on the X/Y pairs of ``test`` (module docstring).
    ``n_resamples``: unused (the t interval needs none; kept for the metrics' shared
    options)."""
    looked = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    pairs, dropped = word_pairs(vectors, test, case_fallback=case_fallback)
    b = relation_vectors(vectors.vectors([p[0] for p in pairs]),
                         vectors.vectors([p[1] for p in pairs]))
    summary = looked.base_summary()
    rows, pair_rows = [], {"x": [p[0] for p in pairs], "y": [p[1] for p in pairs]}
    by_attr: dict[str, dict[str, Any]] = {}
    for role in ATTRS:
        scores = looked.emb[role] @ b.T  # (n_attr, n_pairs): a . b_i
        r = scores.mean(axis=0)  # per pair
        if n_permutations > 0:
            by_attr[role] = infer(DESIGN, r, null=0.0, n_flips=n_permutations,
                                  seed=seed).as_dict()
        else:  # n_permutations=0: no test (an estimate-only call)
            by_attr[role] = {**infer(DESIGN, r).as_dict(), "p_value": float("nan"),
                             "exact": False, "n_flips": 0}
        pair_rows[f"r_{role}"] = r
        means, stds = scores.mean(axis=1).tolist(), scores.std(axis=1).tolist()
        cat = looked.categories()[role]
        for w, mean, std in zip(looked.words[role], means, stds, strict=True):
            rows.append({"set": role, "category": cat, "text": w, "value": mean, "std": std})
    summary.update({"attributes": by_attr, "n_pairs": len(pairs),
                    "dropped_pairs": [list(p) for p in dropped],
                    "n_unpaired": abs(len(test.targ1.examples) - len(test.targ2.examples))})
    params = {"n_permutations": n_permutations, "max_oov": max_oov,
              "case_fallback": case_fallback, "n_bootstrap": n_resamples,
              "normalize": False, "test": "two-sided sign flip over pairs"}
    return looked.result("ripa", summary, rows, params, seed, tables={"pairs": pair_rows})
