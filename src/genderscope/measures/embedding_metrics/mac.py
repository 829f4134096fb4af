"""MAC, the mean average cosine distance (Manzini, Lim, Tsvetkov & Black 2019, "Black is
to Criminal as Caucasian is to Police", NAACL, Sec. 4, eq. 5).

For each target word t (of X and of Y) and each attribute set A_j (A and B),
``S(t, A_j) = mean_{a in A_j} (1 - cos(t, a))``; ``MAC = mean over (t, j) of S(t, A_j)``.
Unitless, in [0, 2]; the paper reads a higher MAC as less association between the
targets and the attribute classes (values nearer 1: near-orthogonal).

Statistics (an addition to the paper): 95 % percentile bootstrap CI over *words*,
resampling X, Y, A and B independently. Manzini et al. compare MAC before and after
debiasing with a paired t-test over the S(t, A_j) values; ``genderscope compare``
gives that paired comparison on the per-target items.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.datasets.seat import AssociationTest
from genderscope.measures.embedding_metrics._sets import (
    DEFAULT_RESAMPLES,
    look_up,
    percentile_ci,
    resample_counts,
    unit_rows,
)
from genderscope.measures.weat import DEFAULT_MAX_OOV
from genderscope.results import Result


def mac(vectors: Any, test: AssociationTest, *, seed: int = 0, max_oov: float = DEFAULT_MAX_OOV,
        case_fallback: bool = True, n_resamples: int = DEFAULT_RESAMPLES,
        **_: Any) -> Result:
    """MAC of targets X, Y against attribute sets A, B (module docstring)."""
    looked = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    rng = np.random.default_rng(seed)
    units = {r: unit_rows(looked.emb[r]) for r in ("X", "Y", "A", "B")}
    counts = {r: resample_counts(rng, len(units[r]), n_resamples) for r in units}
    est_parts, boot_parts, rows = [], [], []
    for tr in ("X", "Y"):
        for ar in ("A", "B"):
            dist = 1.0 - units[tr] @ units[ar].T  # (n_t, n_a)
            est_parts.append(dist.mean(axis=1))
            # resampled mean over t of the resampled mean over a, per resample
            boot_parts.append(np.einsum("kt,ta,ka->k", counts[tr], dist, counts[ar])
                              / (dist.shape[0] * dist.shape[1]))
    n_t = len(units["X"]) + len(units["Y"])
    est = float(np.concatenate(est_parts).mean())
    # each resample keeps |X| and |Y|, so the mean over (t, j) weights the four blocks
    w = np.array([len(units["X"])] * 2 + [len(units["Y"])] * 2) / (2 * n_t)
    draws = np.tensordot(w, np.vstack(boot_parts), axes=1)
    ci = percentile_ci(est, draws, n=n_t + len(units["A"]) + len(units["B"]), unit="words")
    for i, tr in enumerate(("X", "Y")):
        sa, sb = est_parts[2 * i], est_parts[2 * i + 1]
        for word, va, vb in zip(looked.words[tr], sa, sb, strict=True):
            rows.append({"set": tr, "category": looked.categories()[tr], "text": word,
                         "value": float((va + vb) / 2), "dist_a": float(va),
                         "dist_b": float(vb)})
    summary = {**looked.base_summary(), "mac": ci.as_dict()}
    params = {"max_oov": max_oov, "case_fallback": case_fallback, "n_bootstrap": n_resamples,
              "distance": "cosine distance 1 - cos"}
    return looked.result("mac", summary, rows, params, seed)
