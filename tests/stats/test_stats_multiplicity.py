"""Holm / BH adjustment, Wilcoxon effect size from scipy's z, cluster bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from genderscope.stats import (
    adjust_pvalues,
    annotate_family,
    bootstrap_ci,
    cluster_mean_ci,
    paired_test,
)


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.02, 0.03, 0.04 (m = 4): 0.04, 0.06, 0.06 (monotone), 0.06
    p = [0.03, 0.01, 0.04, 0.02]
    assert adjust_pvalues(p) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert adjust_pvalues([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_bh_matches_scipy_and_nan_kept() -> None:
    p = np.array([0.001, 0.2, np.nan, 0.03, 0.04])
    got = adjust_pvalues(p, "bh")
    assert np.isnan(got[2])
    ok = ~np.isnan(p)
    assert got[ok] == pytest.approx(stats.false_discovery_control(p[ok]))
    holm = adjust_pvalues(p)
    assert np.isnan(holm[2]) and holm[0] == pytest.approx(0.004)  # m = 4, not 5
    with pytest.raises(ValueError, match="holm"):
        adjust_pvalues(p, "bonferonni")


def test_annotate_family_adds_contract_keys() -> None:
    rows = [{"p_value": 0.01}, {"p_value": 0.04}, {"p_value": None}]
    annotate_family(rows, "per group")
    assert rows[0]["p_adjusted"] == pytest.approx(0.02)
    assert rows[1]["p_adjusted"] == pytest.approx(0.04)
    assert np.isnan(rows[2]["p_adjusted"])
    assert {r["p_adjust_method"] for r in rows} == {"holm"}
    assert {r["family"] for r in rows} == {"per group"}


def test_wilcoxon_r_finite_when_p_underflows() -> None:
    # 2,000 positive, non-normal differences: p underflows to 0; r must stay finite
    d = np.random.default_rng(0).exponential(1.0, 2000) ** 3 + 0.01
    t = paired_test(d, np.zeros_like(d), method="rank")
    assert t.test == "Wilcoxon signed-rank" and t.p_value == 0.0
    assert np.isfinite(t.effect_size_r) and t.effect_size_r > 0
    z = stats.wilcoxon(d, method="approx", alternative="greater").zstatistic
    assert t.effect_size_r == pytest.approx(z / np.sqrt(2000))


def test_wilcoxon_r_signed_by_rank_direction_not_median() -> None:
    # median difference is negative but the positive differences carry the ranks
    d = np.array([-0.1] * 11 + list(range(5, 15)), dtype=float)
    assert np.median(d) < 0
    t = paired_test(d, np.zeros_like(d), method="rank")
    assert t.test == "Wilcoxon signed-rank"
    assert t.effect_size_r == pytest.approx(1.7498158960596661 / np.sqrt(21))
    neg = paired_test(-d, np.zeros_like(d), method="rank")
    assert neg.effect_size_r == pytest.approx(-t.effect_size_r)


def test_cluster_bootstrap_is_wider_than_iid_with_shared_cluster_effects() -> None:
    rng = np.random.default_rng(3)
    k, m = 15, 45  # 15 professions x 45 sentence pairs each
    clusters = np.repeat(np.arange(k), m)
    values = rng.normal(0, 1, k)[clusters] + rng.normal(0, 0.3, k * m)
    iid = bootstrap_ci(values, n_resamples=2000)
    clu = cluster_mean_ci(values, clusters, unit="professions", n_resamples=2000)
    assert clu.estimate == pytest.approx(values.mean())
    assert (clu.ci_high - clu.ci_low) > 4 * (iid.ci_high - iid.ci_low)
    d = clu.as_dict()
    assert d["ci_unit"] == "professions" and d["n_units"] == k and d["n"] == k * m
    # 15 equal clusters (< 20): Student's t interval over the 15 cluster means
    ref = stats.ttest_1samp(values.reshape(k, m).mean(axis=1), 0).confidence_interval()
    assert clu.method == "cluster t interval"
    assert (clu.ci_low, clu.ci_high) == pytest.approx((ref.low, ref.high))
    assert "ci_unit" not in bootstrap_ci(values, n_resamples=200).as_dict()
