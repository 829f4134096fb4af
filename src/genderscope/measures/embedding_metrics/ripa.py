"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019,
"Understanding Undesirable Word Embedding Associations", ACL, Sec. 4, Def. 3;
docs/measures/ripa.md).

For target pairs (x_i, y_i) in file order, ``b_i = (x_i - y_i) / ||x_i - y_i||`` and
``RIPA(a) = mean_i a . b_i`` (raw vector a); the metric of attribute set S (A, then B) is
``mean_{a in S} RIPA(a)``, in the vectors' units; positive: S lies on the X side.

Statistics (additions): attribute words and pairs are crossed samples (:data:`DESIGN`).
The CI is the several-sample infinitesimal-jackknife t interval
(:func:`genderscope.stats.jackknife.infer_samples`; Efron 1982, Ch. 6; Satterthwaite df)
with ``V = s_r^2 / n_p + s_c^2 / n_a - s_e^2 / (n_a n_p)`` (Cornfield & Tukey 1956;
r_i the pair means, c_a the word means, :func:`interaction`), and p the same t
statistic's two-sided test of 0 ("too few units to test" below 5 df). The interval for
the attribute words given (Student's t over the r_i, :data:`GIVEN_WORDS`) is kept as
``given_words_ci_low`` / ``given_words_ci_high``.
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
from genderscope.stats.jackknife import infer_samples

DESIGN = Design("mean", unit="word pairs", crossed=("attribute words",))
"""RIPA's design: a mean over word pairs crossed with the attribute words, each an
independent sample (the declaration's ``design``, catalog/embedding_metrics.py)."""


GIVEN_WORDS = Design("mean", unit="word pairs", paired="pair order")
"""The design of the secondary interval, for the attribute words given: Student's t
over the pairs' r_i (``given_words_ci_low`` / ``_high``; RIPA's interval before version
3)."""


def derivatives(scores: np.ndarray) -> dict[str, np.ndarray]:
    """The derivatives of ``mean(scores)`` (attribute words x pairs) with respect to each
    pair's and each attribute word's weight: ``(r_i - m) / n_p`` and ``(c_a - m) / n_a``
    (module docstring)."""
    m = float(scores.mean())
    return {"word pairs": (scores.mean(axis=0) - m) / scores.shape[1],
            "attribute words": (scores.mean(axis=1) - m) / scores.shape[0]}


def interaction(scores: np.ndarray) -> dict[str, np.ndarray]:
    """Per unit, what the pair x word interaction adds to its derivative's square, half from
    each sample, so that the two samples' variances less these sum to the module docstring's
    V (``s_e^2``: the residual mean square of the two-way layout). Zeros with one attribute
    word or one pair (no residual)."""
    n_a, n_p = scores.shape
    out = {"word pairs": np.zeros(n_p), "attribute words": np.zeros(n_a)}
    if n_a < 2 or n_p < 2:
        return out
    e = (scores - scores.mean(axis=0, keepdims=True) - scores.mean(axis=1, keepdims=True)
         + scores.mean())
    half = float(np.sum(e * e)) / ((n_a - 1) * (n_p - 1)) / (2 * n_a * n_p)
    out["word pairs"][:] = half * (n_p - 1) / n_p ** 2
    out["attribute words"][:] = half * (n_a - 1) / n_a ** 2
    return out


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
    options); ``n_permutations``: 0 runs no test, any other value the t test (no
    permutation is drawn; the option is shared with RND)."""
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
        d = derivatives(scores)
        inf = infer_samples(DESIGN, float(scores.mean()), d,
                            null=0.0 if n_permutations > 0 else None,
                            corrections=interaction(scores))
        # n_permutations=0: no test (an estimate-only call)
        given = infer(GIVEN_WORDS, r).ci
        by_attr[role] = {**inf.as_dict(), "test": inf.test_name, "p_value": inf.p_value,
                         "given_words_ci_low": given.ci_low,
                         "given_words_ci_high": given.ci_high}
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
              "normalize": False, "test": "two-sided t test, word pairs x attribute words"}
    return looked.result("ripa", summary, rows, params, seed, tables={"pairs": pair_rows})
