"""MAC, the mean average cosine distance (Manzini, Lim, Tsvetkov & Black 2019, "Black is
to Criminal as Caucasian is to Police", NAACL, Sec. 4, eq. 5).

For each target word t and attribute set A_j, ``S(t, A_j) = mean_{a in A_j} (1 - cos(t,
a))``; ``MAC = mean over (t, j) of S(t, A_j)``, unitless, in [0, 2] (higher: less
association). A :class:`~genderscope.datasets.query.Query` may hold any number of target
and attribute sets (WEFE 1.0.1's "n" x "n" template). CI (an addition): percentile
bootstrap over words, each set resampled independently; ``genderscope compare`` gives
the paper's paired before/after comparison over the per-target items.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.datasets.query import Query
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


def mac_values(targets: list[np.ndarray], attributes: list[np.ndarray],
               rng: np.random.Generator, n_resamples: int
               ) -> tuple[float, np.ndarray, list[list[np.ndarray]]]:
    """(MAC, its bootstrap draws, S(t, A_j) per target set and attribute set) of any
    number of target sets and attribute sets (WEFE's "n" x "n" template): the mean of
    S(t, A_j) over every target word t of every target set and every attribute set j.
    Each set is resampled on its own, target sets first (the rng's order)."""
    units_t = [unit_rows(t) for t in targets]
    units_a = [unit_rows(a) for a in attributes]
    counts_t = [resample_counts(rng, len(u), n_resamples) for u in units_t]
    counts_a = [resample_counts(rng, len(u), n_resamples) for u in units_a]
    est_parts, boot_parts, per_set = [], [], []
    for ut, ct in zip(units_t, counts_t, strict=True):
        per_set.append([])
        for ua, ca in zip(units_a, counts_a, strict=True):
            dist = 1.0 - ut @ ua.T  # (n_t, n_a)
            est_parts.append(dist.mean(axis=1))
            per_set[-1].append(est_parts[-1])
            # resampled mean over t of the resampled mean over a, per resample
            boot_parts.append(np.einsum("kt,ta,ka->k", ct, dist, ca)
                              / (dist.shape[0] * dist.shape[1]))
    n_t = sum(len(u) for u in units_t)
    m = len(units_a)
    est = float(np.concatenate(est_parts).mean())
    # each resample keeps every set's size, so the mean over (t, j) weights the blocks
    w = np.repeat([len(u) for u in units_t], m) / (m * n_t)
    draws = np.tensordot(w, np.vstack(boot_parts), axes=1)
    return est, draws, per_set


def mac(vectors: Any, test: AssociationTest | Query, *, seed: int = 0,
        max_oov: float = DEFAULT_MAX_OOV, case_fallback: bool = True,
        n_resamples: int = DEFAULT_RESAMPLES, **_: Any) -> Result:
    """MAC of targets X, Y against attribute sets A, B (module docstring); a
    :class:`~genderscope.datasets.query.Query` gives any number of each."""
    if isinstance(test, Query):
        return _mac_groups(vectors, test, seed=seed, max_oov=max_oov,
                           case_fallback=case_fallback, n_resamples=n_resamples)
    looked = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    rng = np.random.default_rng(seed)
    est, draws, per_set = mac_values([looked.emb["X"], looked.emb["Y"]],
                                     [looked.emb["A"], looked.emb["B"]], rng, n_resamples)
    n_t = len(looked.emb["X"]) + len(looked.emb["Y"])
    ci = percentile_ci(est, draws, n=n_t + len(looked.emb["A"]) + len(looked.emb["B"]),
                       unit="words")
    rows = []
    for tr, (sa, sb) in zip(("X", "Y"), per_set, strict=True):
        for word, va, vb in zip(looked.words[tr], sa, sb, strict=True):
            rows.append({"set": tr, "category": looked.categories()[tr], "text": word,
                         "value": float((va + vb) / 2), "dist_a": float(va),
                         "dist_b": float(vb)})
    summary = {**looked.base_summary(), "mac": ci.as_dict()}
    return looked.result("mac", summary, rows, _params(max_oov, case_fallback, n_resamples),
                         seed)


def _params(max_oov: float, case_fallback: bool, n_resamples: int) -> dict[str, Any]:
    return {"max_oov": max_oov, "case_fallback": case_fallback, "n_bootstrap": n_resamples,
            "distance": "cosine distance 1 - cos"}


def _mac_groups(vectors: Any, query: Query, *, seed: int, max_oov: float,
                case_fallback: bool, n_resamples: int) -> Result:
    """MAC of a query's n target sets against its m attribute sets (WEFE's n x n)."""
    groups = look_up(vectors, query, max_oov=max_oov, case_fallback=case_fallback)
    rng = np.random.default_rng(seed)
    est, draws, per_set = mac_values([groups.emb[r] for r in groups.targets],
                                     [groups.emb[r] for r in groups.attributes], rng,
                                     n_resamples)
    n = sum(len(v) for v in groups.emb.values())
    ci = percentile_ci(est, draws, n=n, unit="words")
    cats = groups.categories()
    rows = []
    for tr, parts in zip(groups.targets, per_set, strict=True):
        for i, word in enumerate(groups.words[tr]):
            s = [float(p[i]) for p in parts]
            rows.append({"set": tr, "category": cats[tr], "text": word,
                         "value": float(np.mean(s)),
                         **{f"dist_{ar}": v for ar, v in zip(groups.attributes, s,
                                                               strict=True)}})
    summary = {**groups.base_summary(), "mac": ci.as_dict()}
    return groups.result("mac", summary, rows, _params(max_oov, case_fallback, n_resamples),
                         seed)
