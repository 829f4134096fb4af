"""RND, the relative norm distance (Garg, Schiebinger, Jurafsky & Zou 2018, "Word
embeddings quantify 100 years of gender and ethnic stereotypes", PNAS, eq. 1;
docs/measures/rnd.md).

With ``v_X``, ``v_Y`` the target sets' mean vectors, RND of attribute set S is
``mean_{a in S} (||a - v_X|| - ||a - v_Y||)`` (Euclidean, raw vectors; averaged as WEFE,
where Garg et al. sum), in the vectors' units; negative: S is closer to X. With
``distance="cosine"`` each distance is ``1 - cos(a, v)`` (unitless; WEFE 1.0.1's "cos"
has the opposite sign).

Statistics (additions): a two-sided permutation test of X/Y membership (exact up to
``exact_limit`` re-partitions, else ``n_permutations`` with (k + 1) / (B + 1)); the CI
inverts it under a shift model, ``[RND - q_0.975, RND - q_0.025]`` (Lehmann 1975, Ch. 2),
so it contains 0 exactly when the equal-tailed test does not reject. With no test
asked, ``n_resamples`` re-partitions give the interval alone.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from genderscope.datasets.seat import AssociationTest
from genderscope.errors import DataError
from genderscope.measures.embedding_metrics._sets import ATTRS, DEFAULT_RESAMPLES, look_up
from genderscope.measures.weat import DEFAULT_MAX_OOV
from genderscope.results import Result
from genderscope.stats.permutation import DEFAULT_EXACT_LIMIT

DISTANCES = ("euclidean", "cosine")
"""RND's distance: Euclidean (Garg et al.) or cosine distance ``1 - cos(a, v)``."""


def cosine_differences(attr: np.ndarray, mean_x: np.ndarray, mean_y: np.ndarray
                       ) -> np.ndarray:
    """``(1 - cos(a, v_X)) - (1 - cos(a, v_Y)) = cos(a, v_Y) - cos(a, v_X)``, shaped as
    :func:`distance_differences` gives. WEFE 1.0.1's ``distance="cos"`` takes the cosine
    *similarity* as its "distance", so its value is the negative of this one."""
    au = attr / np.linalg.norm(attr, axis=1, keepdims=True)

    def cos(m: np.ndarray) -> np.ndarray:
        m2 = np.atleast_2d(m)
        return au @ (m2 / np.linalg.norm(m2, axis=1, keepdims=True)).T

    out = cos(mean_y) - cos(mean_x)
    return out[:, 0] if mean_x.ndim == 1 else out


def distance_differences(attr: np.ndarray, mean_x: np.ndarray, mean_y: np.ndarray,
                         distance: str = "euclidean") -> np.ndarray:
    """``||a - v_X|| - ||a - v_Y||``; ``mean_x``/``mean_y`` are (d,) or (k, d) (one pair
    of centroids per row), giving (n_attr,) or (n_attr, k). ``distance="cosine"``:
    :func:`cosine_differences`."""
    if distance == "cosine":
        return cosine_differences(attr, mean_x, mean_y)
    if mean_x.ndim == 1:  # one pair of centroids: the differences directly (exact, fast)
        diff = attr[:, None, :] - np.array([mean_x, mean_y])  # (n_attr, 2, d)
        dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        return dist[:, 0] - dist[:, 1]
    sq = np.einsum("ij,ij->i", attr, attr)[:, None]

    def dist(m: np.ndarray) -> np.ndarray:
        m2 = np.atleast_2d(m)
        d2 = sq - 2 * attr @ m2.T + np.einsum("ij,ij->i", m2, m2)[None, :]
        return np.sqrt(np.maximum(d2, 0.0))

    out = dist(mean_x) - dist(mean_y)
    return out[:, 0] if mean_x.ndim == 1 else out


def permutation_p(targets: np.ndarray, nx: int, attr: np.ndarray, observed: float, *,
                  n_permutations: int, seed: int, exact_limit: int,
                  chunk: int = 4096, distance: str = "euclidean",
                  keep: list[np.ndarray] | None = None) -> tuple[float, int, bool]:
    """Two-sided p of |RND| over re-partitions of the target rows into |X| and |Y|;
    ``keep``: a list that receives the RND of every re-partition (blocks of them)."""
    n = targets.shape[0]
    ny = n - nx
    total = targets.sum(axis=0)
    exact = math.comb(n, nx) <= exact_limit
    if not exact and n_permutations < 1:  # no test asked for (an estimate-only call)
        return float("nan"), 0, False
    tol = 1e-12 * max(1.0, abs(observed))
    hits = done = 0
    if exact:
        combos = itertools.combinations(range(n), nx)
        blocks = iter(lambda: list(itertools.islice(combos, chunk)), [])
    else:
        rng = np.random.default_rng(seed)
        sizes = [min(chunk, n_permutations - s) for s in range(0, n_permutations, chunk)]
        blocks = (np.argsort(rng.random((k, n)), axis=1)[:, :nx] for k in sizes)
    for block in blocks:
        idx = np.asarray(block)
        member = np.zeros((idx.shape[0], n))
        np.put_along_axis(member, idx, 1.0, axis=1)
        sum_x = member @ targets
        stat = distance_differences(attr, sum_x / nx, (total - sum_x) / ny,
                                    distance).mean(axis=0)
        if keep is not None:
            keep.append(stat)
        hits += int(np.count_nonzero(np.abs(stat) >= abs(observed) - tol))
        done += idx.shape[0]
    if exact:
        return hits / done, done, True
    return (hits + 1) / (done + 1), done, False


CI_METHOD = "permutation shift interval"
"""The interval's name (module docstring)."""


def shift_interval(estimate: float, permuted: np.ndarray, *, n: int,
                   confidence: float = 0.95) -> dict[str, Any]:
    """``[estimate - q_hi, estimate - q_lo]``: the interval that inverts the permutation
    distribution ``permuted`` of RND under a shift model (module docstring), for the
    attribute words given; NaN limits with fewer than 2 re-partitions."""
    out: dict[str, Any] = {"estimate": estimate, "ci_low": float("nan"),
                           "ci_high": float("nan"), "confidence": confidence, "n": n,
                           "method": CI_METHOD, "ci_unit": "target words"}
    d = permuted[np.isfinite(permuted)]
    if d.size >= 2:
        tail = (1 - confidence) / 2
        lo, hi = np.quantile(d, [tail, 1 - tail])
        out.update(ci_low=float(estimate - hi), ci_high=float(estimate - lo))
    return out


def rnd(vectors: Any, test: AssociationTest, *, n_permutations: int = 10_000, seed: int = 0,
        exact_limit: int = DEFAULT_EXACT_LIMIT, max_oov: float = DEFAULT_MAX_OOV,
        case_fallback: bool = True, n_resamples: int = DEFAULT_RESAMPLES,
        distance: str = "euclidean") -> Result:
    """RND of attribute sets A and B between target sets X and Y (module docstring);
    ``distance`` one of :data:`DISTANCES`."""
    if distance not in DISTANCES:
        raise DataError(f"distance must be one of {', '.join(DISTANCES)}, got {distance!r}")
    looked = look_up(vectors, test, max_oov=max_oov, case_fallback=case_fallback)
    x, y = looked.emb["X"], looked.emb["Y"]
    mean_x = np.add.reduce(x, 0) / len(x)  # = x.mean(axis=0), without its wrapper
    mean_y = np.add.reduce(y, 0) / len(y)
    sizes = [len(looked.emb[r]) for r in ATTRS]
    # A and B in one pass, then split (the item table's values)
    both = distance_differences(np.concatenate([looked.emb[r] for r in ATTRS]), mean_x, mean_y,
                                distance)
    per_role = {ATTRS[0]: both[:sizes[0]], ATTRS[1]: both[sizes[0]:]}
    test_asked = n_permutations > 0 or math.comb(len(x) + len(y), len(x)) <= exact_limit
    targets = np.vstack([x, y]) if test_asked or n_resamples else None
    by_attr = {}
    for role in ATTRS:
        attr, per_word = looked.emb[role], per_role[role]
        est = float(np.add.reduce(per_word) / len(per_word))  # = per_word.mean()
        perms: list[np.ndarray] = []
        p, n_perm, exact = float("nan"), 0, False
        if test_asked:
            p, n_perm, exact = permutation_p(
                targets, len(x), attr, est, n_permutations=n_permutations, seed=seed,
                exact_limit=exact_limit, distance=distance,
                keep=perms if n_resamples else None)
        elif targets is not None:  # the interval alone: n_resamples re-partitions
            permutation_p(targets, len(x), attr, est, n_permutations=n_resamples, seed=seed,
                          exact_limit=0, distance=distance, keep=perms)
        ci = shift_interval(est, np.concatenate(perms) if perms else np.empty(0),
                            n=len(attr) + len(x) + len(y))
        by_attr[role] = {**ci, "p_value": p, "exact": exact,
                         "n_permutations": n_perm}
    summary = {**looked.base_summary(), "attributes": by_attr}
    params = {"n_permutations": n_permutations, "exact_limit": exact_limit,
              "max_oov": max_oov, "case_fallback": case_fallback, "n_bootstrap": n_resamples,
              "ci": CI_METHOD,
              "distance": distance, "normalize": False}

    def rows() -> list[dict[str, Any]]:
        cats = looked.categories()
        return [{"set": role, "category": cats[role], "text": w, "value": float(v)}
                for role in ATTRS
                for w, v in zip(looked.words[role], per_role[role], strict=True)]

    return looked.result("rnd", summary, rows, params, seed)
