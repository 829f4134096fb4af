"""The design type (core/design.py) and the statistics chosen from it (stats/design.py):
each declared design gets the interval its docstring names, bad designs and calls are
refused, and the measures that declare a design use the one they declare."""

from __future__ import annotations

import numpy as np
import pytest

from genderscope.core.design import Design
from genderscope.stats import cluster_mean_ci, proportion_ci, sign_flip_test, t_mean_ci
from genderscope.stats.design import infer
from genderscope.stats.resample import cluster_proportion_ci


def test_design_checks_and_describes() -> None:
    with pytest.raises(ValueError, match="estimand"):
        Design("share")
    with pytest.raises(ValueError, match="unit"):
        Design("mean", unit="")
    d = Design("proportion", unit="texts")
    assert d.clustered("templates") == Design("proportion", "texts", clusters="templates")
    assert Design("mean", crossed="attribute words").crossed == ("attribute words",)
    assert d.clustered("templates").describe() == "proportion of texts, clustered by templates"
    assert Design("mean", "word pairs", paired="pair order").describe() == (
        "mean of word pairs, paired by pair order")


def test_proportion_of_independent_units_is_wilson() -> None:
    v = np.r_[np.ones(3), np.zeros(47)]
    ci = infer(Design("proportion", unit="texts"), v).ci
    w = proportion_ci(3, 50)
    assert (ci.estimate, ci.ci_low, ci.ci_high, ci.method) == (w.estimate, w.ci_low,
                                                                w.ci_high, "wilson")
    assert ci.ci_unit == "texts" and ci.n == 50
    zero = infer(Design("proportion", unit="texts"), np.zeros(50)).ci
    assert zero.ci_low == 0.0 and zero.ci_high == pytest.approx(3.8415 / 53.8415, rel=1e-4)
    assert np.isnan(infer(Design("proportion"), []).ci.estimate)
    with pytest.raises(ValueError, match="0 or 1"):
        infer(Design("proportion"), [0.5, 1.0])


def test_proportion_of_clustered_units_is_design_effect_wilson() -> None:
    rng = np.random.default_rng(0)
    clusters = np.repeat(np.arange(12), 5)
    v = (rng.random(60) < np.repeat(rng.uniform(0, 0.6, 12), 5)).astype(float)
    ci = infer(Design("proportion", "texts", clusters="templates"), v, clusters).ci
    assert ci.method == "design-effect Wilson" and ci.ci_unit == "templates"
    assert ci.n == 60 and ci.n_units == 12 and ci.estimate == pytest.approx(v.mean())
    assert 0.0 <= ci.ci_low < ci.estimate < ci.ci_high <= 1.0
    # clustered outcomes: wider than Wilson over the 60 texts as if independent
    w = proportion_ci(int(v.sum()), 60)
    assert ci.ci_high - ci.ci_low > w.ci_high - w.ci_low
    # by hand: deff from the CR1 variance, Wilson at n / deff with t(11)
    from scipy import stats

    y, m, p = np.bincount(clusters, v), np.bincount(clusters), v.mean()
    var = 12 / 11 * np.sum((y - p * m) ** 2) / 60 ** 2
    neff = 60 / max(var / (p * (1 - p) / 60), 1.0)
    q = stats.t.ppf(0.975, 11)
    centre = (p + q * q / (2 * neff)) / (1 + q * q / neff)
    half = q / (1 + q * q / neff) * np.sqrt(p * (1 - p) / neff + q * q / (4 * neff ** 2))
    assert (ci.ci_low, ci.ci_high) == pytest.approx((centre - half, centre + half))
    # no outcome at all: not [0, 0]; no variance to estimate deff from, so Wilson with
    # the t quantile over the 12 templates, each counted once
    none = cluster_proportion_ci(np.zeros(60), clusters, unit="templates")
    assert none.ci_low == 0.0 and none.ci_high == pytest.approx(q * q / (12 + q * q))
    one = cluster_proportion_ci(np.ones(5), ["a"] * 5, unit="templates")
    assert one.estimate == 1.0 and np.isnan(one.ci_low)  # one cluster: no interval


def test_means_medians_and_the_paired_test() -> None:
    rng = np.random.default_rng(1)
    v = rng.normal(0.3, 1, 9)
    pairs = Design("mean", "word pairs", paired="pair order")
    got = infer(pairs, v, null=0.0, n_flips=1000, seed=3)
    want = t_mean_ci(v, unit="word pairs")
    assert got.ci == want
    assert got.test == sign_flip_test(v, n_flips=1000, seed=3) and got.test.exact
    d = got.as_dict()
    assert d["p_value"] == got.test.p_two_sided and d["n_flips"] == 512 and d["exact"]
    assert infer(pairs, v).test is None  # no null: no test
    # not paired (the sign is not arbitrary under the null): bootstrap-t interval and test
    from genderscope.stats.bootstrap_t import bootstrap_t_test

    unpaired = infer(Design("mean", "texts"), v, null=0.0, n_resamples=999, seed=3)
    ref = bootstrap_t_test(v, n_resamples=999, seed=3)
    assert unpaired.ci.method == "bootstrap-t"
    assert (unpaired.ci.ci_low, unpaired.ci.ci_high) == pytest.approx((ref.ci_low,
                                                                       ref.ci_high))
    assert unpaired.p_value == pytest.approx(ref.p_two_sided)
    assert unpaired.as_dict()["test"] == "bootstrap-t test of the mean"
    few = infer(Design("mean", "texts"), v[:5], null=0.0)
    assert few.test_name == "too few units to test" and np.isnan(few.p_value)
    assert few.ci == t_mean_ci(v[:5], unit="texts")
    clusters = np.repeat(np.arange(3), 3)
    assert infer(Design("mean", "texts", clusters="professions"), v, clusters).ci == (
        cluster_mean_ci(v, clusters, unit="professions"))
    # a clustered mean is tested by its cluster t: p < 0.05 exactly where the CI excludes 0
    w = rng.normal(0.4, 1, 40)
    groups = np.repeat(np.arange(8), 5)
    for shift in (-0.4, 0.0, 0.4):
        res = infer(Design("mean", "texts", clusters="professions"), w + shift, groups,
                    null=0.0)
        assert res.test_name == "cluster t test of the mean"
        assert (res.p_value < 0.05) == (not res.ci.spans(0.0))
    med = infer(Design("median", "groups"), v, n_resamples=200, seed=0).ci
    assert med.estimate == pytest.approx(np.median(v)) and med.ci_unit == "groups"


def test_refuses_what_it_cannot_choose_or_was_not_declared() -> None:
    v = np.zeros(6)
    with pytest.raises(ValueError, match="cluster labels are required"):
        infer(Design("proportion", "texts", clusters="templates"), v)
    with pytest.raises(ValueError, match="independent texts"):
        infer(Design("proportion", "texts"), v, list("aabbcc"))
    with pytest.raises(ValueError, match="5 cluster labels for 6 values"):
        infer(Design("mean", "texts", clusters="t"), v, list("aabbc"))
    with pytest.raises(ValueError, match="group labels are required"):
        infer(Design("effect-size", "words"), v)
    with pytest.raises(ValueError, match="only for an effect size"):
        infer(Design("mean", "words"), v, groups=list("xxxyyy"))
    for design in (Design("ratio", "examples"), Design("mean", "words", crossed=("templates",))):
        with pytest.raises(NotImplementedError, match="issue 36"):
            infer(design, v)
    with pytest.raises(NotImplementedError):
        infer(Design("median", "texts", clusters="t"), v, list("aabbcc"))


def test_effect_size_design_gives_the_noncentral_t_interval_of_d() -> None:
    """Issue 36, row 8: an effect-size design gets d's noncentral-t interval; with
    clusters, over them (CR1, K_X + K_Y - 2 df)."""
    from genderscope.stats.permutation import effect_size

    rng = np.random.default_rng(3)
    v = np.r_[rng.normal(1, 1, 8), rng.normal(0, 1, 8)]
    got = infer(Design("effect-size", "words"), v, groups=["X"] * 8 + ["Y"] * 8)
    assert got.ci.method == "noncentral t interval" and got.ci.n_units == 16
    assert got.ci.estimate == pytest.approx(effect_size(v[:8], v[8:]))
    assert got.ci.ci_low < got.ci.estimate < got.ci.ci_high
    words = [f"w{i // 2}" for i in range(16)]
    clustered = infer(Design("effect-size", "sentences", clusters="source words"), v,
                      words, groups=["X"] * 8 + ["Y"] * 8)
    assert clustered.ci.n_units == 8 and clustered.ci.ci_unit == "source words"
    assert clustered.ci.ci_low != got.ci.ci_low


def test_declarations_carry_the_design_their_measures_use() -> None:
    """The catalog declares the design; the measure code holds the same (it may not read
    the catalog): the two must not drift apart."""
    import importlib

    from genderscope.core.registry import declarations
    from genderscope.measures import counterfactual, weat

    ripa = importlib.import_module("genderscope.measures.embedding_metrics.ripa")  # module

    declared = {name: d.design for name, d in declarations().items()}
    assert declared["counterfactual"] == counterfactual.DESIGN
    assert declared["ripa"] == ripa.DESIGN
    assert declared["rnd"] is None
    assert declared["weat"] == weat.WEAT_DESIGN and declared["seat"] == weat.SEAT_DESIGN


def test_flip_test_with_templates() -> None:
    """Texts that share templates: intervals over templates, a template column, and the
    direction difference from a cluster bootstrap over templates."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from calibration_sims import flip_rates

    flips = np.zeros(40, dtype=bool)
    flips[[0, 2, 4, 5]] = True  # m2f (even): 3 of 20; f2m: 1 of 20
    template = np.repeat(np.arange(8), 5)
    s = flip_rates(flips, template, seed=0)
    fr = s["all"]["flip_rate"]
    assert fr["method"] == "design-effect Wilson" and fr["ci_unit"] == "templates"
    assert fr["n_units"] == 8 and fr["estimate"] == pytest.approx(0.1)
    assert s["all"]["mean_abs_delta"]["method"] == "cluster t interval"
    diff = s["m2f_minus_f2m"]["flip_rate"]
    assert diff["ci_unit"] == "templates" and diff["n_a"] == 20 and diff["n_b"] == 20
    assert diff["estimate"] == pytest.approx(3 / 20 - 1 / 20)
    plain = flip_rates(flips, seed=0)["all"]["flip_rate"]
    assert plain["method"] == "wilson" and plain["ci_unit"] == "texts"
