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
    assert bootstrap_ci([1.0, 1.0, 1.0]).ci_low == 1.0
    assert bootstrap_ci([np.nan, 2.0, 4.0]).n == 2
    assert np.isnan(bootstrap_ci([]).estimate)


def test_wilson_interval_known_value() -> None:
    ci = proportion_ci(30, 100)
    # Wilson 95% interval for 30/100: [0.2189, 0.3958]
    assert (round(ci.ci_low, 4), round(ci.ci_high, 4)) == (0.2189, 0.3958)


def test_paired_test_choice_and_effect_size() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(0, 1, 60)
    b = a - 0.5 + rng.normal(0, 0.3, 60)
    t = paired_test(a, b)
    assert t.test == "paired t-test"
    ref = stats.ttest_rel(a, b)
    assert t.p_value == pytest.approx(ref.pvalue)
    assert t.effect_size_r == pytest.approx(np.sqrt(ref.statistic**2 / (ref.statistic**2 + 59)))
    skew = a + rng.exponential(3.0, 60) ** 2
    w = paired_test(skew, a)
    assert w.test == "Wilcoxon signed-rank"
    assert 0 < w.effect_size_r <= 1 and w.p_value < 0.001
    with pytest.raises(ValueError):
        paired_test([1, 2], [1, 2, 3])
