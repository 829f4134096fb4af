"""Calibration of the statistics chosen from a declared design (issue 36, rows 1 and 3),
run through the measures themselves (simulations in tests/calibration_sims.py, shared with
docs/calibration.md). Bar: 95 % CI coverage in [0.93, 0.97].

- Row 1, the counterfactual flip rate with rare flips (n = 50-200 texts, p = 0.01-0.05):
  a percentile bootstrap of 0/1 outcomes covered 0.83 here and gave [0, 0] for zero
  flips; Wilson covers, and with texts sharing templates the design-effect Wilson does.
- Row 3, RIPA over 8 and 20 word pairs: the percentile bootstrap over pairs covered
  0.88 / 0.92 here; the t interval over pairs (WEAT's fix, carried over) covers for the
  attribute words given (kept as given_words_ci_*), but covered the value over attribute
  words drawn anew 0.480 of the time; the headline interval, crossed over pairs x
  attribute words (several-sample jackknife t), covers both (conservative for the words
  given when the pairs are aligned).
- Row 6, skewed unit effects: a mean difference whose sign is not arbitrary under the null
  (compare's after - before, BEC-Pro's male - female over professions) is tested
  studentised (bootstrap-t), not by sign flips (0.073 at 20 centred-exponential units,
  docs/calibration.md); 5 or fewer units: "too few units to test".
"""

from __future__ import annotations

import numpy as np
import pytest
from calibration_sims import (
    COVER,
    FPR,
    REPORT_SKEW_CASES,
    compare_once,
    compare_rows,
    flip_rate_row,
    flip_rate_templates_row,
    flip_rates,
    lognormal_rows,
    report_median_rows,
    report_skew_rows,
    report_unequal_skew_rows,
    ripa_population_row,
    ripa_row,
    sign_flip_row,
)
from calibration_size import Runs, runs, runs_for


def _report(row) -> float:  # noqa: ANN001
    lo, hi = row.wilson()
    print(f"{row.key}: {row.kind} {row.rate:.3f} [{lo:.3f}, {hi:.3f}] over {row.sims} "
          f"simulations of {row.design}")
    return row.rate


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, 2000))
def test_flip_rate_ci_covers_rare_flips(runs: Runs) -> None:
    rate = _report(flip_rate_row(runs.sims))
    assert runs.meets(rate, COVER)


def test_no_flip_is_not_a_zero_width_interval() -> None:
    """Zero flips of 50 texts: [0, z^2 / (50 + z^2)] = [0, 0.071], not [0, 0]."""
    none = flip_rates(np.zeros(50, dtype=bool))["all"]["flip_rate"]
    assert none["estimate"] == 0.0 and none["ci_low"] == 0.0
    assert none["ci_high"] == pytest.approx(1.959964 ** 2 / (50 + 1.959964 ** 2), rel=1e-5)
    one = flip_rates(np.r_[True, np.zeros(49, dtype=bool)])["m2f"]["flip_rate"]
    assert one["estimate"] == pytest.approx(1 / 25) and one["ci_low"] > 0.0


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(300, 1500))
def test_flip_rate_ci_with_templates_covers(runs: Runs) -> None:
    rate = _report(flip_rate_templates_row(runs.sims))
    assert runs.meets(rate, COVER)


@pytest.mark.parametrize("runs", runs(500, 2000))
@pytest.mark.parametrize(("n_pairs", "pairs", "given"), [
    (8, "random", False), (20, "random", False), (8, "random", True),
    (20, "random", True), (20, "aligned", True)])
def test_ripa_ci_over_pairs_covers(n_pairs: int, pairs: str, given: bool,
                                   runs: Runs) -> None:
    rate = _report(ripa_row(n_pairs, runs.sims, pairs=pairs, given=given))
    assert runs.meets(rate, COVER)


def test_ripa_ci_is_conservative_for_the_words_given() -> None:
    """20 aligned pairs, 8 fixed attribute words: the crossed interval counts the attribute
    words' sampling, which dominates there, so it over-covers the value for the words
    given (a stated limit); the interval over pairs alone covers it."""
    row = ripa_row(20, 300, pairs="aligned")
    _report(row)
    assert row.rate > COVER[1] and row.limit


@pytest.mark.parametrize("runs", runs(500, 1000))
def test_ripa_ci_covers_attribute_words_drawn_anew(runs: Runs) -> None:
    """The value over the population of attribute words (8 drawn anew per run, 20 aligned
    pairs): the t interval over pairs alone covered it 0.480 of the time."""
    rate = _report(ripa_population_row(runs.sims))
    assert runs.meets(rate, COVER)


def test_compare_holds_its_size_under_skewed_changes() -> None:
    """20 items, centred exponential changes, no mean change: compare's bootstrap-t test
    and interval (docs/calibration.md runs 1,000); the sign-flip test it replaced rejected
    0.073 at 20 such units (docs/calibration.md)."""
    test, ci = compare_rows(300, n=20, noise="exponential")
    _report(test), _report(ci)
    assert FPR[0] <= test.rate <= FPR[1] and COVER[0] <= ci.rate <= COVER[1]
    row = compare_once(np.random.default_rng(0), 20, "exponential", n_resamples=199)
    assert row["test"] == "bootstrap-t test of the mean" and row["ci_method"] == "bootstrap-t"


def test_too_few_units_to_test() -> None:
    """With 5 items no test is run (a sign flip's smallest p is 1/16); the interval is."""
    row = compare_once(np.random.default_rng(1), 5, "t5", shift=10.0)
    assert row["test"] == "too few units to test" and np.isnan(row["p_value"])
    assert row["change_ci_low"] < row["change"] < row["change_ci_high"]
    assert sign_flip_row(5, 500).rate == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(500, 2000))
@pytest.mark.parametrize("n", [10, 20, 60])
def test_paired_test_under_lognormal_skew(n: int, runs: Runs) -> None:
    """The audit's heaviest skew (centred lognormal, skewness 6.2): the default test
    (bootstrap-t) rejects less often than the sign flip it replaced, and every figure
    outside the bar is on the page as a known limit with its figure."""
    from genderscope.stats.signflip import sign_flip_pvalues

    test, ci = lognormal_rows(n, runs.sims)
    _report(test), _report(ci)
    rng = np.random.default_rng(2360 + n)
    d = rng.lognormal(0.0, 1.0, (runs.sims, n)) - np.exp(0.5)
    flips = float(np.mean(sign_flip_pvalues(d, n_flips=999, seed=n)[0] < 0.05))
    assert test.rate < flips
    for row in (test, ci):
        assert row.within or row.limit


def test_effective_clusters() -> None:
    """The report's jackknife-t degrees of freedom: K* - 1, K* = N^2 / sum N_k^2 (K for
    equal clusters, so their intervals are unchanged)."""
    from genderscope.reporting.compare import effective_clusters

    assert effective_clusters([9] * 7) == 7
    assert effective_clusters([1] * 40) == 40
    assert effective_clusters([5, 5, 5, 15]) == pytest.approx(30 ** 2 / 300)
    assert effective_clusters([100, 1]) == 2.0  # floored: t(1) at least


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(300, 1000))
@pytest.mark.parametrize("k", [5, 10])
def test_report_difference_with_unequal_clusters_covers(k: int, runs: Runs) -> None:
    """The report's model-vs-model difference over k professions of 2-30 items: with
    t(K - 1) its jackknife-t interval covered 0.929 / 0.924 here (1,000 runs); with the
    effective number of clusters it covers (docs/calibration.md runs 1,500)."""
    from calibration_sims import report_unequal_row

    row = report_unequal_row(k, runs.sims)
    _report(row)
    assert runs.meets(row.rate, COVER)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(40, 1000))
def test_bec_pro_counts_person_words_too(runs: Runs) -> None:
    """BEC-Pro with random person-word effects (the audit's crossed design): the
    professions-only interval and test covered 0.730 and rejected 0.260 here (100 runs);
    the two-way interval over professions x person words and its t test hold (the full
    run is the page's: 1,000 runs, a Wilson interval under 0.04 wide)."""
    from calibration_sims import bec_pro_person_rows

    ci, test = bec_pro_person_rows(runs.sims)
    _report(ci), _report(test)
    assert runs.meets(ci.rate, (COVER[0], 1.0)) and runs.meets(test.rate, (0.0, FPR[1]))
    assert ci.within or ci.limit


def test_report_difference_few_clusters() -> None:
    """The report's model difference: no p-value at 5 clusters (too few units to test);
    from 6, the cluster bootstrap-t test, which finds a clear gap."""
    import pandas as pd

    from genderscope.reporting.compare import paired_difference
    from genderscope.reporting.entry import Paired

    rng = np.random.default_rng(7)

    def mean(x: np.ndarray) -> float:
        return float(x[:, 0].mean())

    for k, shifted in ((5, True), (8, True), (8, False)):
        prof = np.repeat(np.arange(k), 9)
        index = pd.Index([f"i{i}" for i in range(prof.size)])
        clusters = pd.Series(prof.astype(str), index=index)
        base = rng.normal(0, 1, prof.size)
        gap = (2.0 if shifted else 0.0) + rng.normal(0, 0.3, k)[prof]
        a = Paired(pd.DataFrame({"v": base + gap}, index=index), mean, "p", clusters)
        b = Paired(pd.DataFrame({"v": base}, index=index), mean, "p", clusters)
        p = paired_difference(a, b, n_resamples=20, n_permutations=199, seed=0)[5]
        if k == 5:
            assert np.isnan(p)
        else:
            assert (p <= 0.01) if shifted else (p > 0.05)  # 2 / (199 + 1) at least
    same = paired_difference(a, a, n_resamples=20, n_permutations=50)
    assert same[5] == 1.0  # no difference: the swap's p (the jackknife SE is 0)


@pytest.mark.parametrize(("k", "dist", "runs"), runs_for(REPORT_SKEW_CASES, 100, 1000))
def test_report_test_under_skewed_gaps(k: int, dist: str, runs: Runs) -> None:
    """Professions whose model gap is a centred exponential or lognormal (mean 0): the
    report's test of a mean, the cluster bootstrap-t at every cluster count, holds its
    size; the cluster swap it replaced for a mean (used from 50 clusters before) rejected
    about 0.10 at 50 lognormal clusters (docs/calibration.md). Under the lognormal gap
    (skewness 6.2, the audit's heaviest) a rate above the bar is a known limit on the page
    (0.088 at 10 clusters, 0.071 at 20, over the full run's 1,000), as for the paired
    bootstrap-t over 10-20 such units (0.091 / 0.076), where no test of a mean tried
    reached the bar; the report's caveat covers those counts (reporting/compare); a rate
    of 0.10 or more fails."""
    boot, swap = report_skew_rows(k, dist, sims=runs.sims)
    _report(boot), _report(swap)
    assert runs.meets(boot.rate, (FPR[0], 0.0999) if dist == "lognormal" else FPR)


@pytest.mark.parametrize(("k", "runs"), runs_for([(50,), (100,)], 100, 1000))
def test_report_test_under_unequal_skewed_gaps(k: int, runs: Runs) -> None:
    """Unequal professions (2-30 items) with a centred lognormal gap: the bootstrap-t
    rejects less often than the swap; a figure outside the bar is a known limit."""
    boot, swap = report_unequal_skew_rows(k, runs.sims)
    _report(boot), _report(swap)
    assert boot.within or boot.limit
    if runs.full:
        assert boot.rate < swap.rate


@pytest.mark.parametrize(("k", "runs"), runs_for([(20,), (50,)], 100, 500))
def test_report_median_swap_tests_exchangeability(k: int, runs: Runs) -> None:
    """The swap (the report's test of a median) holds under the null it tests, A and B
    exchangeable within each profession; under a mean-0 skewed gap it rejects far more
    often, because that null (and the medians' equality) is false there."""
    sharp, skew = report_median_rows(k, runs.sims)
    _report(sharp), _report(skew)
    assert runs.meets(sharp.rate, FPR)
    assert skew.limit and runs.above(skew.rate, FPR[1])


def test_report_bootstrap_t_from_50_clusters_matches_the_nested_one(monkeypatch) -> None:  # noqa: ANN001
    """From 50 clusters a smooth statistic is tested by the bootstrap-t, not the swap, and
    SE* from the jackknife influence values is each resample's own jackknife SE for a
    mean over equal clusters: the same p as the nested jackknife (K times the cost)."""
    import pandas as pd

    from genderscope.reporting import compare
    from genderscope.reporting.entry import Paired

    rng = np.random.default_rng(3)
    k = 60
    prof = np.repeat(np.arange(k), 4)
    index = pd.Index([f"i{i}" for i in range(prof.size)])
    clusters = pd.Series(prof.astype(str), index=index)
    base = rng.normal(0, 1, prof.size)
    gap = 0.3 + rng.lognormal(0, 1, k)[prof] - np.exp(0.5)

    def mean(x: np.ndarray) -> float:
        return float(x[:, 0].mean())

    a = Paired(pd.DataFrame({"v": base + gap}, index=index), mean, "p", clusters)
    b = Paired(pd.DataFrame({"v": base}, index=index), mean, "p", clusters)
    fast = compare.paired_difference(a, b, n_resamples=20, n_permutations=199, seed=1)[5]
    swap = compare.paired_difference(
        Paired(a.frame, mean, "p", clusters, smooth=False),
        Paired(b.frame, mean, "p", clusters, smooth=False),
        n_resamples=20, n_permutations=199, seed=1)[5]
    monkeypatch.setattr(compare, "MIN_BOOTSTRAP_UNITS", 1000)
    nested = compare.paired_difference(a, b, n_resamples=20, n_permutations=199, seed=1)[5]
    assert fast == pytest.approx(nested, abs=1e-12)
    assert fast != swap
