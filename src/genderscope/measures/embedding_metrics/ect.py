"""ECT, the embedding coherence test (Dev & Phillips 2019, "Attenuating Bias in Word
Vectors", AISTATS, Sec. 5.1).

With ``v_X``, ``v_Y`` the averages of the target sets' vectors, ECT of an attribute set
S is Spearman's rank correlation between ``(cos(v_X, a))_{a in S}`` and
``(cos(v_Y, a))_{a in S}``: 1 when the attribute words rank the same way by similarity
to both target groups (no bias), lower when the groups order them differently.
Computed for S = A and S = B; unitless, in [-1, 1].

Statistics (an addition to the paper): 95 % percentile bootstrap CI over *words*,
resampling X, Y and S independently (ties among resampled attribute words get average
ranks). ECT has no test: its "no bias" value is 1, the edge of its range.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from genderscope.datasets.seat import AssociationTest
from genderscope.errors import DataError
from genderscope.measures.embedding_metrics._sets import (
    ATTRS,
    DEFAULT_RESAMPLES,
    LookedUp,
    ci_fields,
    look_up,
    resample_counts,
    unit_rows,
)
from genderscope.measures.weat import DEFAULT_MAX_OOV
from genderscope.results import Result

MIN_WORDS = 3
"""In-vocabulary words an attribute set needs: a Spearman correlation over 2 words is
always +1 or -1, over 1 undefined."""


def check_sizes(looked: LookedUp) -> None:
    """Refuse an attribute set too small for ECT's rank correlation (:data:`MIN_WORDS`)."""
    for role in ATTRS:
        if len(looked.words[role]) < MIN_WORDS:
            raise DataError(f"{looked.test.name}: ECT ranks the words of each attribute set "
                            f"and needs at least {MIN_WORDS} in the vocabulary; set {role} "
                            f"({looked.categories()[role]}) has {len(looked.words[role])} "
                            "(a Spearman correlation over 2 words is always +1 or -1)")


def average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, ties given their average rank (scipy's ``rankdata``
    'average'). Small inputs are ranked by counting, (#smaller) + (#equal + 1) / 2,
    which skips scipy's per-call overhead (most of a point estimate's time)."""
    n = a.shape[-1]
    if a.size * n > 1_000_000:
        return stats.rankdata(a, axis=-1)
    # sum of sign(a_i - a_j) over j = #smaller - #larger, so the average rank
    # #smaller + (#equal + 1) / 2 is (that sum + n + 1) / 2 (exact half-integers)
    return (np.sign(a[..., :, None] - a[..., None, :]).sum(axis=-1) + (n + 1)) / 2.0


def rowwise_spearman(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row of ``u`` with the same row of ``v`` (average ranks)."""
    centre = (u.shape[-1] + 1) / 2.0  # the mean of n average ranks, exactly
    ru = average_ranks(u) - centre
    rv = average_ranks(v) - centre
    den = np.sqrt((ru * ru).sum(axis=-1) * (rv * rv).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ru * rv).sum(axis=-1) / den, np.nan)


def ect(vectors: Any, test: AssociationTest, *, seed: int = 0, max_oov: float = DEFAULT_MAX_OOV,
        case_fallback: bool = True, n_resamples: int = DEFAULT_RESAMPLES,
        **_: Any) -> Result:
    """ECT of attribute sets A and B between target sets X and Y (module docstring)."""
    looked = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    check_sizes(looked)
    x, y = looked.emb["X"], looked.emb["Y"]
    if n_resamples:
        rng = np.random.default_rng(seed)
        boot_x = unit_rows(resample_counts(rng, len(x), n_resamples) @ x)
        boot_y = unit_rows(resample_counts(rng, len(y), n_resamples) @ y)
    # unit centroids (sum / n = mean(axis=0)) as the two columns of one product
    means = unit_rows(np.array([np.add.reduce(x, 0) / len(x), np.add.reduce(y, 0) / len(y)]))
    sizes = [len(looked.emb[r]) for r in ATTRS]
    # A and B normalised and scored in one pass (row by row: the same numbers), then split
    units = unit_rows(np.concatenate([looked.emb[r] for r in ATTRS]))
    cos_all = units @ means.T
    by_attr, cos = {}, {}
    for role, lo, hi in ((ATTRS[0], 0, sizes[0]), (ATTRS[1], sizes[0], sum(sizes))):
        attr = units[lo:hi]
        cx, cy = cos[role] = cos_all[lo:hi, 0], cos_all[lo:hi, 1]
        est = float(rowwise_spearman(cx[None], cy[None])[0])
        draws = np.empty(0)
        if n_resamples:
            idx = rng.integers(0, len(attr), size=(n_resamples, len(attr)))
            bx = np.take_along_axis((boot_x @ attr.T), idx, axis=1)
            by = np.take_along_axis((boot_y @ attr.T), idx, axis=1)
            draws = rowwise_spearman(bx, by)
        by_attr[role] = ci_fields(est, draws, n=len(attr) + len(x) + len(y), unit="words")

    def rows() -> list[dict[str, Any]]:
        cats = looked.categories()
        return [{"set": role, "category": cats[role], "text": w, "value": float(a - b),
                 "cos_x": float(a), "cos_y": float(b)}
                for role in ATTRS
                for w, a, b in zip(looked.words[role], *cos[role], strict=True)]

    summary = {**looked.base_summary(), "attributes": by_attr}
    params = {"max_oov": max_oov, "case_fallback": case_fallback, "n_bootstrap": n_resamples,
              "similarity": "cosine"}
    return looked.result("ect", summary, rows, params, seed)
