"""Bootstrap and Wilson intervals, and the paired test Bartl et al. use."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from genderscope.stats import bootstrap_ci, paired_test, proportion_ci


def test_bootstrap_ci_brackets_mean_and_is_seeded() -> None:
    x = np.random.default_rng(1).normal(2.0, 1.0, 200)
    a, b = bootstrap_ci(x, seed=3), bootstrap_ci(x, seed=3)
    assert a == b
    assert a.ci_low < x.mean() < a.ci_high
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert a.ci_high - a.ci_low == pytest.approx(2 * 1.96 * se, rel=0.15)
    med = bootstrap_ci(x, np.median)
    assert med.estimate == pytest.approx(np.median(x))


def test_bootstrap_degenerate_and_nan() -> None:
    same = bootstrap_ci([1.0, 1.0, 1.0])  # no spread: no interval, not [1, 1]
    assert same.estimate == 1.0 and np.isnan(same.ci_low) and np.isnan(same.ci_high)
    assert same.no_interval == "no spread over 3 units: interval undefined"
    assert bootstrap_ci([np.nan, 2.0, 4.0]).n == 2
    assert np.isnan(bootstrap_ci([]).estimate)


def test_wilson_interval_known_value() -> None:
    ci = proportion_ci(30, 100)
    # Wilson 95% interval for 30/100: [0.2189, 0.3958]
    assert (round(ci.ci_low, 4), round(ci.ci_high, 4)) == (0.2189, 0.3958)


def test_paired_test_is_of_the_mean_and_rank_test_is_labelled() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(0, 1, 60)
    b = a - 0.5 + rng.normal(0, 0.3, 60)
    t = paired_test(a, b)
    assert t.test == "bootstrap-t test of the mean" and t.estimand == "mean difference"
    ref = stats.ttest_rel(a, b)
    assert t.statistic == pytest.approx(ref.statistic)
    assert t.effect_size_r == pytest.approx(np.sqrt(ref.statistic**2 / (ref.statistic**2 + 59)))
    assert t.estimate == pytest.approx(np.mean(a - b)) and t.p_value < 0.001
    skew = a + rng.exponential(3.0, 60) ** 2
    w = paired_test(skew, a, method="rank")
    assert w.test == "Wilcoxon signed-rank" and w.estimand.startswith("pseudo-median")
    d = skew - a
    walsh = [(d[i] + d[j]) / 2 for i in range(60) for j in range(i, 60)]
    assert w.estimate == pytest.approx(np.median(walsh))
    assert 0 < w.effect_size_r <= 1 and w.p_value < 0.001
    assert paired_test(skew, a).test.startswith("bootstrap-t")  # never a silent switch
    assert paired_test(a, b, method="mean").test.startswith("sign-flip")
    with pytest.raises(ValueError):
        paired_test([1, 2], [1, 2, 3])


def test_small_n_p_values_are_exact() -> None:
    """n = 6 all positive: the exact two-sided sign-flip p is 2/64 (a normal
    approximation without continuity correction gave less, issue 22); Wilcoxon's exact
    null gives the same. With 5 units neither can reach 0.05 (2/32): no test."""
    a, b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.0] * 6
    t = paired_test(a, b, method="mean")
    assert t.exact and t.p_value == pytest.approx(0.03125)
    w = paired_test(a, b, method="rank")
    assert w.exact and w.p_value == pytest.approx(0.03125)
    for method in ("bootstrap-t", "mean", "rank"):
        few = paired_test(a[:5], b[:5], method=method)
        assert few.test == "too few units to test" and np.isnan(few.p_value)
        assert few.estimate > 0


def test_exact_sign_flip_counts_match_brute_force() -> None:
    """The meet-in-the-middle exact p equals enumerating every sign vector (ties too)."""
    import itertools

    from genderscope.stats.signflip import sign_flip_pvalues

    rng = np.random.default_rng(4)
    for n in (1, 2, 5, 9, 12):
        x = np.round(rng.normal(size=(6, n)), 1)
        two, ge, le, b, exact = sign_flip_pvalues(x)
        assert exact and b == 2 ** n
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        for k, row in enumerate(x):
            s, obs = signs @ row, row.sum()
            tol = 1e-12 * max(1.0, abs(obs / n)) * n
            assert two[k] == pytest.approx(np.mean(np.abs(s) >= abs(obs) - tol))
            assert ge[k] == pytest.approx(np.mean(s >= obs - tol))
            assert le[k] == pytest.approx(np.mean(s <= obs + tol))


def test_paired_bootstrap_t_keeps_the_skew_caveat() -> None:
    """The bootstrap-t test's caveat (stats/diagnostics.mean_caveat over the differences)
    is part of the paired test's result; normal differences and other tests get none."""
    from genderscope.stats.bootstrap_t import bootstrap_t_test
    from genderscope.stats.diagnostics import mean_caveat

    normal = stats.norm.ppf((np.arange(20) + 0.5) / 20)
    skewed = np.exp(normal) - np.exp(normal).mean()
    t = paired_test(skewed, np.zeros(20), unit="professions", n_flips=199)
    assert t.caveat == mean_caveat(skewed, "professions") and t.caveat
    assert t.as_dict()["caveat"] == t.caveat
    assert t.p_value == bootstrap_t_test(skewed, n_resamples=199).p_two_sided
    plain = paired_test(normal, np.zeros(20), n_flips=199)
    assert plain.caveat is None and "caveat" not in plain.as_dict()
    assert paired_test(skewed, np.zeros(20), method="rank").caveat is None


def test_one_wilson_formula_serves_the_cluster_and_the_crossed_share() -> None:
    """stats/resample.wilson_bounds is the score interval of both the clustered share
    (cluster_proportion_ci) and the crossed one (jackknife.infer_share)."""
    from genderscope.core.design import Design
    from genderscope.stats import jackknife, resample

    z = float(stats.norm.ppf(0.975))
    assert tuple(round(b, 4) for b in resample.wilson_bounds(0.3, 100, z)) == (0.2189, 0.3958)
    assert resample.wilson_bounds(0.0, 50, z)[0] == 0.0
    assert resample.wilson_bounds(1.0, 50, z)[1] == 1.0
    # every cluster alike (deff floored at 1): Wilson's at n with the t(K - 1) quantile
    ci = resample.cluster_proportion_ci(np.tile([1.0, 0.0, 0.0, 0.0], 10), np.repeat(
        np.arange(10), 4), unit="templates")
    assert (ci.ci_low, ci.ci_high) == resample.wilson_bounds(0.25, 40.0, float(
        stats.t.ppf(0.975, 9)))
    # none counted over 3 items x 5 templates: Wilson's at N with t(2) (fewer levels - 1)
    design = Design("proportion", unit="items", crossed=("templates",))
    r, c = np.repeat(np.arange(3), 5), np.tile(np.arange(5), 3)
    res = jackknife.infer_share(design, np.zeros(15), np.full(15, 10.0), r, c)
    assert (res.ci.ci_low, res.ci.ci_high) == resample.wilson_bounds(
        0.0, 150.0, float(stats.t.ppf(0.975, 2)))
