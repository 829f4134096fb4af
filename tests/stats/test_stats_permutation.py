"""Exactness of the WEAT difference-of-sums permutation test on hand-computed and
brute-force examples."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from genderscope.stats import difference_of_sums_test
from genderscope.stats.permutation import effect_size


def _brute(x: list[float], y: list[float]) -> tuple[float, float]:
    """One- and two-sided p by enumerating every equal-size re-partition."""
    allv = np.array(x + y, dtype=float)
    obs = sum(x) - sum(y)
    centre = (len(x) - len(y)) * allv.mean()
    ge = two = total = 0
    for idx in itertools.combinations(range(len(allv)), len(x)):
        sx = allv[list(idx)].sum()
        s = sx - (allv.sum() - sx)
        ge += s >= obs - 1e-12
        two += abs(s - centre) >= abs(obs - centre) - 1e-12
        total += 1
    return ge / total, two / total


def test_hand_computed_two_by_two() -> None:
    # partitions of {1,2,3,4} into X of size 2: S in {-4,-2,0,0,2,4}; observed S = 4
    r = difference_of_sums_test([3.0, 4.0], [1.0, 2.0])
    assert r.exact and r.n_permutations == 6
    assert r.statistic == pytest.approx(4.0)
    assert r.p_one_sided == pytest.approx(1 / 6)
    assert r.p_two_sided == pytest.approx(2 / 6)
    # d = (3.5 - 1.5) / sd(1, 2, 3, 4; ddof=1) = 2 / sqrt(5/3)
    assert r.effect_size == pytest.approx(2 / math.sqrt(5 / 3))


def test_reversed_sets_negate_statistic_and_d() -> None:
    a = difference_of_sums_test([3.0, 4.0], [1.0, 2.0])
    b = difference_of_sums_test([1.0, 2.0], [3.0, 4.0])
    assert b.statistic == pytest.approx(-a.statistic)
    assert b.effect_size == pytest.approx(-a.effect_size)
    assert b.p_one_sided == pytest.approx(1.0)


@pytest.mark.parametrize("nx,ny", [(5, 5), (4, 6), (3, 7)])
def test_exact_matches_brute_force(nx: int, ny: int) -> None:
    rng = np.random.default_rng(nx * 10 + ny)
    x = (rng.normal(size=nx) + 0.5).tolist()
    y = rng.normal(size=ny).tolist()
    r = difference_of_sums_test(x, y, chunk=17)  # small chunks exercise the loop
    p1, p2 = _brute(x, y)
    assert r.exact
    assert r.n_permutations == math.comb(nx + ny, nx)
    assert r.p_one_sided == pytest.approx(p1)
    assert r.p_two_sided == pytest.approx(p2)
    assert r.statistic == pytest.approx(sum(x) - sum(y))


def test_effect_size_uses_sample_std() -> None:
    x, y = np.array([0.2, 0.4, 0.9]), np.array([-0.1, 0.0, 0.3])
    allv = np.concatenate([x, y])
    sd = math.sqrt(((allv - allv.mean()) ** 2).sum() / (allv.size - 1))
    assert effect_size(x, y) == pytest.approx((x.mean() - y.mean()) / sd)
    assert effect_size(np.ones(3), np.ones(3)) == 0.0


def test_random_permutations_approach_exact_p() -> None:
    rng = np.random.default_rng(3)
    x = (rng.normal(size=8) + 0.4).tolist()
    y = rng.normal(size=8).tolist()
    exact = difference_of_sums_test(x, y)
    approx = difference_of_sums_test(x, y, exact_limit=0, n_permutations=40_000, seed=1)
    assert exact.exact and not approx.exact
    assert approx.n_permutations == 40_000
    # binomial standard error at p ~ 0.1-0.3 with 40k draws is < 0.0025
    assert approx.p_one_sided == pytest.approx(exact.p_one_sided, abs=0.01)
    assert approx.p_two_sided == pytest.approx(exact.p_two_sided, abs=0.01)


def test_random_permutations_are_seeded_and_never_zero() -> None:
    x, y = [10.0, 11.0, 12.0, 13.0], [0.0, 1.0, 2.0, 3.0]
    a = difference_of_sums_test(x, y, exact_limit=0, n_permutations=999, seed=5)
    b = difference_of_sums_test(x, y, exact_limit=0, n_permutations=999, seed=5)
    assert a == b
    assert a.p_one_sided >= 1 / 1000  # (k + 1) / (n + 1)
    assert a.p_one_sided < 0.05


def test_empty_set_is_an_error() -> None:
    with pytest.raises(ValueError):
        difference_of_sums_test([], [1.0, 2.0])
