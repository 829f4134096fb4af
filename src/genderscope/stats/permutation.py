"""Permutation test for the WEAT-style difference of sums (Caliskan et al. 2017, Sec.
"Methods": test statistic, effect size and one-sided permutation p-value).

Given one association score per target word, s(w) (for WEAT s(w, A, B), the
difference of mean cosine similarities to the attribute sets), the statistic is

    S(X, Y) = sum_{x in X} s(x) - sum_{y in Y} s(y)

and the effect size is

    d = (mean_{x in X} s(x) - mean_{y in Y} s(y)) / std_{w in X u Y} s(w)

with the sample standard deviation (ddof=1). The null distribution comes from
re-partitioning X u Y into sets of the original sizes: every partition when
their number is at most ``exact_limit``, else ``n_permutations`` seeded random
ones (p-values then use the (k + 1) / (n + 1) estimator, which is never 0).
Everything is vectorised over permutations in chunks.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass

import numpy as np

DEFAULT_PERMUTATIONS = 10_000
DEFAULT_EXACT_LIMIT = 200_000


@dataclass(frozen=True)
class PermutationResult:
    """Statistic, effect size and permutation p-values of :func:`difference_of_sums_test`."""

    statistic: float
    effect_size: float
    p_one_sided: float
    p_two_sided: float
    n_permutations: int
    exact: bool
    n_x: int
    n_y: int

    def as_dict(self) -> dict[str, float | int | bool]:
        return asdict(self)


def effect_size(scores_x: np.ndarray, scores_y: np.ndarray) -> float:
    """Caliskan's d: difference of means over the sample std of all scores."""
    allv = np.concatenate([scores_x, scores_y])
    sd = float(np.std(allv, ddof=1))
    if sd == 0.0:
        return 0.0
    return float((scores_x.mean() - scores_y.mean()) / sd)


def _sums_from_indicator(scores: np.ndarray, in_x: np.ndarray) -> np.ndarray:
    """S for each row of a boolean (perms x N) membership matrix."""
    total = scores.sum()
    sum_x = in_x.astype(scores.dtype) @ scores
    return sum_x - (total - sum_x)


def difference_of_sums_test(
    scores_x: np.ndarray | list[float],
    scores_y: np.ndarray | list[float],
    *,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    chunk: int = 20_000,
) -> PermutationResult:
    """Permutation test of S(X, Y) (module docstring): one-sided p = P(S_perm >= S_obs);
    two-sided p = P(|S_perm - c| >= |S_obs - c|), c the permutation mean of S, (n_x - n_y) *
    mean(all scores)."""
    x = np.asarray(scores_x, dtype=np.float64)
    y = np.asarray(scores_y, dtype=np.float64)
    if x.size == 0 or y.size == 0:
        raise ValueError("both target sets need at least one scored word")
    scores = np.concatenate([x, y])
    n, nx = scores.size, x.size
    observed = float(x.sum() - y.sum())
    centre = (nx - y.size) * float(scores.mean())
    tol = 1e-12 * max(1.0, abs(observed))
    n_partitions = math.comb(n, nx)
    exact = n_partitions <= exact_limit
    ge = two = 0
    done = 0
    if exact:
        combos = itertools.combinations(range(n), nx)
        while True:
            block = list(itertools.islice(combos, chunk))
            if not block:
                break
            in_x = np.zeros((len(block), n), dtype=bool)
            rows = np.repeat(np.arange(len(block)), nx)
            in_x[rows, np.asarray(block).ravel()] = True
            s = _sums_from_indicator(scores, in_x)
            ge += int(np.count_nonzero(s >= observed - tol))
            two += int(np.count_nonzero(np.abs(s - centre) >= abs(observed - centre) - tol))
            done += len(block)
        p1, p2 = ge / done, two / done
    else:
        rng = np.random.default_rng(seed)
        while done < n_permutations:
            m = min(chunk, n_permutations - done)
            order = rng.random((m, n)).argsort(axis=1)
            in_x = np.zeros((m, n), dtype=bool)
            np.put_along_axis(in_x, order[:, :nx], True, axis=1)
            s = _sums_from_indicator(scores, in_x)
            ge += int(np.count_nonzero(s >= observed - tol))
            two += int(np.count_nonzero(np.abs(s - centre) >= abs(observed - centre) - tol))
            done += m
        p1, p2 = (ge + 1) / (done + 1), (two + 1) / (done + 1)
    return PermutationResult(observed, effect_size(x, y), float(p1), float(min(1.0, p2)),
                             int(done), exact, int(nx), int(y.size))
