"""Calibration of every test-producing statistic (issue 11, item 5).

Each block simulates data under the null (seeded) and checks that the test rejects
at alpha = 0.05 in [3 %, 7 %] of runs and that 95 % CIs cover the truth in
[93 %, 97 %] of runs, with the data structure the measure really has (words
recurring across templates, sentences sharing a profession or occupation); a
power check then plants an effect and requires it to be found. Resample counts are
small (the Monte-Carlo error of a p-value or a CI bound averages out over runs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from calibration_sims import (
    cluster_t_row,
    compare_once,
    compare_rows,
    heavy_skew_rows,
    heavy_skew_units,
    probe_t_row,
    probe_targets,
    sign_flip_row,
    skewed_cluster_values,
    skewed_units,
    weat_permutation_rows,
    wilson_row,
)
from calibration_sims import skewed as _skewed
from calibration_size import Runs, runs

from genderscope.datasets.captions import RatioTable
from genderscope.measures import bec_pro, lpbs, stereoset
from genderscope.measures.amplification import bias_amplification_from_ratios
from genderscope.measures.counterfactual import diff_ci
from genderscope.measures.crows_pairs import per_bias_type
from genderscope.measures.winobias import summarise as wino_summarise
from genderscope.stats import (
    bootstrap_ci,
    cluster_bootstrap_ci,
    cluster_mean_ci,
    difference_of_sums_test,
    paired_test,
    proportion_ci,
    t_mean_ci,
)
from genderscope.stats.resample import index_bootstrap_ci

ALPHA = 0.05
FPR = (0.03, 0.07)
COVER = (0.93, 0.97)


def _within(rate: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= rate <= bounds[1]


# -- LPBS: words recur across templates --------------------------------------------------
def _lpbs_items(rng: np.random.Generator, shift: float = 0.0) -> pd.DataFrame:
    """8 + 8 attribute words x 3 templates; each word has its own effect shared by its
    templates; ``shift`` is added to set x (0: the null of no set difference)."""
    words = [f"x{i}" for i in range(8)] + [f"y{i}" for i in range(8)]
    word_effect = rng.normal(0, 1, 16) + np.r_[np.full(8, shift), np.zeros(8)]
    rows = np.repeat(np.arange(16), 3)
    return pd.DataFrame({"set": np.where(rows < 8, "x", "y"),
                         "attribute": [words[i] for i in rows],
                         "template_index": np.tile(np.arange(3), 16),
                         "lpbs": word_effect[rows] + rng.normal(0, 0.3, rows.size)})


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(150, 400))
def test_lpbs_word_level_test_is_calibrated_and_pooled_is_not(runs: Runs) -> None:
    rng = np.random.default_rng(11)
    sims = [_lpbs_items(rng) for _ in range(400)][:runs.sims]  # the same draws after
    p_words = np.array([lpbs.effect(it, "x", "y")["p_two_sided"] for it in sims])
    assert runs.meets(float(np.mean(p_words < ALPHA)), FPR)
    # the replication notebook's item pooling: far too many false positives
    p_items = np.array([lpbs.effect(it, "x", "y", aggregation="pooled-items",
                                    n_permutations=300)["p_two_sided"]
                        for it in sims[:runs.of(100)]])
    assert runs.above(float(np.mean(p_items < ALPHA)), 0.2, len(p_items))
    power = [lpbs.effect(_lpbs_items(rng, 1.5), "x", "y")["p_two_sided"] for _ in range(100)]
    assert np.mean(np.array(power) < ALPHA) > 0.8


@pytest.mark.slow
def test_lpbs_set_mean_ci_over_words_covers() -> None:
    """The set-mean CI LPBS reports (t over 8 word means) covers; a percentile
    bootstrap over the same 8 words does not (the interval it replaced)."""
    rng = np.random.default_rng(12)
    hits, hits_boot = [], []
    for _ in range(600):
        it = _lpbs_items(rng)
        res = lpbs.word_means(it)
        vals = res.loc[res.set == "x", "lpbs"].to_numpy()
        ci = t_mean_ci(vals, unit="words")
        hits.append(ci.ci_low <= 0.0 <= ci.ci_high)
        if len(hits_boot) < 300:
            boot = bootstrap_ci(vals, n_resamples=400, seed=int(rng.integers(1 << 31)))
            hits_boot.append(boot.ci_low <= 0.0 <= boot.ci_high)
    assert 0.93 <= np.mean(hits) <= 0.97
    assert np.mean(hits_boot) < 0.93


# -- WEAT / SEAT permutation test ---------------------------------------------------------
def test_weat_permutation_test_fpr_and_power() -> None:
    rng = np.random.default_rng(21)
    power = []
    for row in weat_permutation_rows(1000, rng=rng):  # one- and two-sided (docs/calibration.md)
        assert row.within, row
    for _ in range(100):
        s = rng.normal(0, 1, 16) + np.r_[np.full(8, 1.5), np.zeros(8)]
        power.append(difference_of_sums_test(s[:8], s[8:], n_permutations=200,
                                             exact_limit=0).p_one_sided)
    assert np.mean(np.array(power) < ALPHA) > 0.8


# -- BEC-Pro: sentence pairs share their profession ----------------------------------------
def _bec_items(rng: np.random.Generator, shift: float = 0.0, n_prof: int = 20) -> pd.DataFrame:
    """One profession group: n_prof professions x 9 person pairs; the male - female
    difference has a profession effect (sd 1) plus noise; ``shift`` is the true mean."""
    prof = np.repeat(np.arange(n_prof), 9)
    diff = shift + rng.normal(0, 1, n_prof)[prof] + rng.normal(0, 0.5, prof.size)
    female = rng.normal(0, 1, prof.size)
    n = prof.size
    return pd.DataFrame({"prof_group": "male", "profession_key": np.tile(prof, 2).astype(str),
                         "pair_index": np.tile(np.tile(np.arange(9), n_prof), 2),
                         "gender": ["male"] * n + ["female"] * n,
                         "association": np.r_[female + diff, female]})


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(100, 300))
def test_bec_pro_group_test_over_professions_is_calibrated(runs: Runs) -> None:
    rng = np.random.default_rng(31)
    p, p_rows = [], []
    for k in range(runs.sims):
        it = _bec_items(rng)
        p.append(float(bec_pro.gender_tests(it, n_resamples=10)["p_value"].iloc[0]))
        if k < runs.of(100):
            m, f = bec_pro.paired_by_gender(it, "male")
            p_rows.append(paired_test(m, f).p_value)  # every row as a pair: not valid
    assert runs.meets(float(np.mean(np.array(p) < ALPHA)), FPR)
    assert runs.above(float(np.mean(np.array(p_rows) < ALPHA)), 0.3, len(p_rows))
    power = [float(bec_pro.gender_tests(_bec_items(rng, 1.0), n_resamples=10)["p_value"]
                   .iloc[0]) for _ in range(30)]
    assert np.mean(np.array(power) < ALPHA) > 0.8


@pytest.mark.slow
def test_profession_cluster_ci_covers() -> None:
    rng = np.random.default_rng(32)
    hits = []
    for _ in range(500):
        it = _bec_items(rng, n_prof=60)
        w = bec_pro.paired_rows(it)
        ci = cluster_mean_ci((w.male - w.female).to_numpy(), w.profession_key,
                             unit="professions", n_resamples=500,
                             seed=int(rng.integers(1 << 31)))
        hits.append(ci.ci_low <= 0.0 <= ci.ci_high)
    assert _within(float(np.mean(hits)), COVER)


# -- proportions: CrowS-Pairs / StereoSet ---------------------------------------------------
@pytest.mark.slow
def test_proportion_ci_and_bias_type_test() -> None:
    rng = np.random.default_rng(41)
    assert wilson_row(2000, rng=rng).within  # Wilson at n = 200 (docs/calibration.md)
    # exact binomial test: its size at n = 350 is 0.048 (discreteness; at n = 200, 0.040)
    pref = rng.random((300, 2, 350)) < 0.5
    p = []
    for sim in pref:
        df = pd.DataFrame({"bias_type": np.repeat(["gender", "race"], 350),
                           "stereotypical_preferred": sim.ravel(), "tie": False})
        p += list(per_bias_type(df)["p_value"])
    assert _within(float(np.mean(np.array(p) < ALPHA)), FPR)
    strong = pd.DataFrame({"bias_type": "gender", "stereotypical_preferred":
                           rng.random(200) < 0.62, "tie": False})
    assert per_bias_type(strong)["p_value"].iloc[0] < ALPHA



# -- StereoSet: contexts share their target term ----------------------------------------------
def _stereoset_items(rng: np.random.Generator, shift: float = 0.0) -> pd.DataFrame:
    """10 targets (as the gender domain) x 21-30 contexts; each target has its own
    stereotype preference (logit ~ N(shift, 1)), so SS over the population of targets
    is 50 at shift 0; ``n_related`` is 0-2 at random."""
    n = rng.integers(21, 31, 10)
    term = np.repeat(np.arange(10), n)
    p = 1.0 / (1.0 + np.exp(-(shift + rng.normal(0, 1, 10))))
    return pd.DataFrame({"target": term.astype(str), "stereo_over_anti": rng.random(term.size)
                         < p[term], "n_related": rng.integers(0, 3, term.size)})


def _ss_over_contexts(pro: np.ndarray, term: np.ndarray, n_terms: int) -> np.ndarray:
    """SS (mean over targets of per-target SS_t) of each row of resampled contexts,
    ``pro`` and ``term`` shaped (B, n): the statistic of the interval before issue 11,
    which resampled contexts as if iid (kept here only as the comparison baseline)."""
    b = pro.shape[0]
    offs = (term + n_terms * np.arange(b)[:, None]).ravel()
    count = np.bincount(offs, minlength=b * n_terms).reshape(b, n_terms)
    n_pro = np.bincount(offs, weights=pro.ravel(), minlength=b * n_terms).reshape(b, n_terms)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nanmean(np.where(count > 0, 100.0 * n_pro / count, np.nan), axis=1)


@pytest.mark.slow
def test_stereoset_ss_interval_and_test_over_targets() -> None:
    """SS: the t interval / t-test over target means covers and holds its size; the
    old percentile bootstrap over contexts does not, nor does a percentile cluster
    bootstrap of only 10 targets."""
    rng = np.random.default_rng(91)
    hits, p, hits_ctx, hits_boot = [], [], [], []
    for k in range(600):
        df = _stereoset_items(rng)
        ss = stereoset.metrics(df, n_resamples=20, seed=k)["ss"]
        hits.append(ss["ci_low"] <= 50.0 <= ss["ci_high"])
        p.append(ss["p_value"])
        if k < 300:
            per = stereoset.target_scores(df)
            tot = np.column_stack([per["ss"], np.ones(len(per))])
            c = cluster_bootstrap_ci(tot, lambda t: t[:, 0] / t[:, 1], unit="targets",
                                     n_resamples=400, seed=k)
            hits_boot.append(c.ci_low <= 50.0 <= c.ci_high)
        if k < 100:  # the interval before issue 11: contexts resampled as if iid
            term = pd.factorize(df["target"])[0]
            pro = df["stereo_over_anti"].to_numpy(float)
            c = index_bootstrap_ci([len(df)], lambda i, pro=pro, term=term:
                                   _ss_over_contexts(pro[i[0]], term[i[0]], 10),
                                   n_resamples=300, seed=k)
            assert c.estimate == pytest.approx(ss["estimate"])
            hits_ctx.append(c.ci_low <= 50.0 <= c.ci_high)
    print(f"StereoSet SS coverage: t over targets {np.mean(hits):.3f} (size "
          f"{np.mean(np.array(p) < ALPHA):.3f}), cluster bootstrap {np.mean(hits_boot):.3f}, "
          f"contexts {np.mean(hits_ctx):.3f}")
    assert _within(float(np.mean(hits)), COVER)
    assert _within(float(np.mean(np.array(p) < ALPHA)), FPR)
    assert np.mean(hits_boot) < 0.93
    assert np.mean(hits_ctx) < 0.8
    power = [stereoset.metrics(_stereoset_items(rng, 1.5), n_resamples=20)["ss"]["p_value"]
             for _ in range(50)]
    assert np.mean(np.array(power) < ALPHA) > 0.8



# -- bias amplification: the mean runs over objects ------------------------------------------
@pytest.mark.slow
def test_amplification_ci_over_objects_covers(tmp_path) -> None:
    """66 objects (as COCO MLC): training share b* ~ U(0.2, 0.8), each object's true
    drift towards its majority d ~ N(0, 0.04) (mean 0: no amplification on average),
    predicted share from 40 captions. The object-bootstrap CI covers 0."""
    rng = np.random.default_rng(95)
    path = tmp_path / "ratios.csv"
    path.write_text("object,training_ratio,predicted\n")
    hits = []
    for k in range(400):
        b = rng.uniform(0.2, 0.8, 66)
        p = b + np.sign(b - 0.5) * rng.normal(0, 0.04, 66)
        table = RatioTable([f"o{i}" for i in range(66)], list(b),
                           list(rng.binomial(40, p) / 40), "object", "training_ratio",
                           "predicted", str(path))
        m = bias_amplification_from_ratios(table, n_resamples=400, seed=k).summary[
            "mean_bias_amplification"]
        hits.append(m["ci_low"] <= 0.0 <= m["ci_high"])
    print(f"bias amplification: object-bootstrap CI coverage {np.mean(hits):.3f}")
    assert m["ci_unit"] == "objects"
    assert _within(float(np.mean(hits)), COVER)


# -- compare before / after (paired test and bootstrap of the mean change) ------------------
@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, 1500))
def test_compare_paired_test_and_change_ci(runs: Runs) -> None:
    """``compare_runs`` under no change (60 items, t(5) changes): its bootstrap-t test's
    size and its interval's coverage of 0 (the page's 1,500 runs; the CI variant's 400
    are held to their Wilson interval), and its power for a change of 0.54 SD. The
    fast check under skew is tests/stats/test_calibration_design.py."""
    test, change = compare_rows(runs.sims)
    assert runs.meets(test.rate, FPR) and runs.meets(change.rate, COVER), (test.rate,
                                                                          change.rate)
    rng = np.random.default_rng(52)
    shifted = [compare_once(rng, 60, "t5", shift=0.7, n_resamples=499)["p_value"]
               for _ in range(40)]
    assert np.mean(np.array(shifted) < ALPHA) > 0.8


# -- counterfactual flip rates ---------------------------------------------------------------
@pytest.mark.slow
def test_flip_rate_cis_cover() -> None:
    rng = np.random.default_rng(61)
    one, two = [], []
    for _ in range(600):
        a = (rng.random(300) < 0.2).astype(float)
        b = (rng.random(300) < 0.2).astype(float)
        ci = bootstrap_ci(a, n_resamples=500, seed=int(rng.integers(1 << 31)))
        one.append(ci.ci_low <= 0.2 <= ci.ci_high)
        d = diff_ci(a, b, n_resamples=500, seed=int(rng.integers(1 << 31)))
        two.append(d["ci_low"] <= 0.0 <= d["ci_high"])
    assert _within(float(np.mean(one)), COVER)
    assert _within(float(np.mean(two)), COVER)


# -- ABC (groups) and WinoBias (occupations) ---------------------------------------------------
@pytest.mark.slow
def test_abc_median_ci_over_groups_covers() -> None:
    rng = np.random.default_rng(71)
    hits = [(c := bootstrap_ci(rng.normal(0, 1, 200) + rng.standard_t(3, 200) * 0.2,
                               np.median, n_resamples=500,
                               seed=int(rng.integers(1 << 31)))).ci_low <= 0 <= c.ci_high
            for _ in range(500)]
    assert _within(float(np.mean(hits)), COVER)


def _wino(rng: np.random.Generator, gap: float = 0.0) -> pd.DataFrame:
    """40 occupations x 10 pro + 10 anti sentences; accuracy varies by occupation
    (shared by its pro and anti sentences); ``gap`` = accuracy pro - anti."""
    occ = np.repeat(np.arange(40), 20)
    cond = np.tile(np.r_[np.full(10, "pro"), np.full(10, "anti")], 40)
    skill = rng.uniform(0.3, 0.8, 40)[occ] + np.where(cond == "pro", gap / 2, -gap / 2)
    correct = rng.random(occ.size) < skill
    gender = np.where(rng.random(occ.size) < 0.5, "male", "female")
    other = np.where(gender == "male", "female", "male")
    return pd.DataFrame({"occupation": occ.astype(str), "condition": cond, "gender": gender,
                         "pred_gender": np.where(correct, gender, other),
                         "correct": correct, "type": 1})


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("runs", runs(100, 300))
def test_winobias_occupation_ci_covers_and_finds_a_gap(runs: Runs) -> None:
    rng = np.random.default_rng(81)
    hits = []
    for _ in range(runs.sims):
        s, _ = wino_summarise(_wino(rng), n_resamples=400, seed=int(rng.integers(1 << 31)))
        d = s["difference_pro_minus_anti"]
        hits.append(d["ci_low"] <= 0.0 <= d["ci_high"])
    assert runs.meets(float(np.mean(hits)), COVER)
    found = [wino_summarise(_wino(rng, 0.2), n_resamples=400)[0]["difference_pro_minus_anti"]
             ["ci_low"] > 0 for _ in range(30)]
    assert np.mean(found) > 0.8


# -- issue 22: crossed random effects, skewed mean-0 effects, few clusters ------------------
def _seat_scores(rng: np.random.Generator, shift: float = 0.0
                 ) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """SEAT-like association scores: 8 + 8 words x 8 templates; a skewed word effect, a
    template effect shared by X and Y (crossed), sentence noise; ``shift`` on X."""
    tmpl = rng.normal(0, 0.5, 8)
    sx = (_skewed(rng, 8)[:, None] + shift + tmpl + rng.normal(0, 0.3, (8, 8))).ravel()
    sy = (_skewed(rng, 8)[:, None] + tmpl + rng.normal(0, 0.3, (8, 8))).ravel()
    words = [f"w{i}" for i in np.repeat(np.arange(8), 8)]
    return sx, sy, words, [f"v{w}" for w in words]


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(300, 1000))
def test_seat_word_level_test_and_ci_are_calibrated_sentence_level_is_not(runs: Runs
                                                                          ) -> None:
    """Row 1 of issue 22: the test and d's CI over source words hold their size and
    coverage; May et al.'s sentence-level permutation (today ``p_as_published``, the
    reported p before issue 22) rejects far more than 5 %."""
    from genderscope.measures.weat import effect_size_ci, word_level_test

    rng = np.random.default_rng(221)
    one, two, cover, sent = [], [], [], []
    for k in range(runs.sims):
        sx, sy, wx, wy = _seat_scores(rng)
        p1, p2, _, _ = word_level_test(sx, sy, wx, wy, n_permutations=200, seed=k,
                                       exact_limit=0)
        one.append(p1)
        two.append(p2)
        ci = effect_size_ci(sx, sy, wx, wy)
        cover.append(ci.ci_low <= 0.0 <= ci.ci_high)
        if k < runs.of(200):
            sent.append(difference_of_sums_test(sx, sy, n_permutations=200, seed=k,
                                                exact_limit=0).p_two_sided)
    rates = [float(np.mean(np.array(v) < ALPHA)) for v in (one, two, sent)]
    print(f"SEAT null: word-level FPR one-sided {rates[0]:.3f}, two-sided {rates[1]:.3f}; "
          f"CI coverage {np.mean(cover):.3f}; sentence-level FPR {rates[2]:.3f}")
    assert runs.meets(rates[0], FPR) and runs.meets(rates[1], FPR)
    assert runs.meets(float(np.mean(cover)), COVER)
    assert runs.above(rates[2], 0.2, len(sent))
    power = [word_level_test(*_seat_scores(rng, 1.5), n_permutations=200, seed=0,
                             exact_limit=0)[1] for _ in range(50)]
    assert np.mean(np.array(power) < ALPHA) > 0.8


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(150, 1000))
def test_report_compare_permutes_the_clusters_it_resamples(runs: Runs) -> None:
    """Row 2: two models whose gap varies by profession with mean 0 (20 professions x 9
    items). The permutation at professions holds its size; swapping single items (the
    p-value before issue 22, here with no clusters given) does not."""
    from genderscope.reporting.compare import paired_difference
    from genderscope.reporting.entry import Paired

    rng = np.random.default_rng(222)
    prof = np.repeat(np.arange(20), 9)
    index = pd.Index([f"i{i}" for i in range(prof.size)])
    clusters = pd.Series(prof.astype(str), index=index)
    p_clu, p_item = [], []
    for k in range(runs.sims):
        base = rng.normal(0, 1, prof.size)
        gap = _skewed(rng, 20)[prof] + rng.normal(0, 0.3, prof.size)
        a = pd.DataFrame({"v": base + gap}, index=index)
        b = pd.DataFrame({"v": base}, index=index)

        def mean(x: np.ndarray) -> float:
            return float(x[:, 0].mean())

        p_clu.append(paired_difference(Paired(a, mean, "professions", clusters),
                                       Paired(b, mean, "professions", clusters),
                                       n_resamples=20, n_permutations=200, seed=k)[5])
        if k < runs.of(100):
            p_item.append(paired_difference(Paired(a, mean), Paired(b, mean), n_resamples=20,
                                            n_permutations=200, seed=k)[5])
    rate, rate_item = (float(np.mean(np.array(v) < ALPHA)) for v in (p_clu, p_item))
    print(f"report compare FPR: professions {rate:.3f}, items {rate_item:.3f}")
    assert runs.meets(rate, FPR)
    assert runs.above(rate_item, 0.3, len(p_item))


def _old_bartl_rule(d: np.ndarray) -> float:
    """The paired test before issue 22: Shapiro-Wilk chooses t-test or Wilcoxon."""
    from scipy import stats

    if stats.shapiro(d).pvalue >= 0.05:
        return float(stats.ttest_1samp(d, 0.0).pvalue)
    return float(stats.wilcoxon(d, method="approx").pvalue)


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 10, 20, 60])
def test_paired_mean_test_under_skewed_mean_zero_units(n: int) -> None:
    """Row 3: the sign-flip test of the mean over n units (professions) with skewed,
    mean-0 differences (vectorised path of :func:`paired_test`). Exact at n <= 24; at
    n = 5 the smallest two-sided p is 1/16, so it never rejects at 0.05 (valid, not
    sized). At 60 units with stronger skew the old Shapiro -> Wilcoxon rule tests the
    pseudo-median and rejects ~3x too often."""
    from genderscope.stats.signflip import sign_flip_pvalues

    row = sign_flip_row(n, 4000)  # docs/calibration.md
    d = skewed_units(n, 4000)
    p, _, _, _, exact = sign_flip_pvalues(d[:1] if n > 5 else d, n_flips=1000,
                                          seed=n)  # exact to n = 24
    if n > 5:
        assert paired_test(d[0], np.zeros(n), method="mean").p_value == pytest.approx(
            p[0], abs=0.02 if not exact else 1e-12)
    else:
        assert paired_test(d[0], np.zeros(n)).test == "too few units to test"
    print(f"sign-flip test, {n} skewed units: FPR {row.rate:.3f}")
    if n == 5:
        assert exact and p.min() >= 1 / 16 and row.rate == 0.0 and row.limit
        return
    assert row.within
    if n == 60:
        old = np.array([_old_bartl_rule(row) for row in d[:1000]])
        print(f"old Shapiro -> Wilcoxon rule: FPR {np.mean(old < ALPHA):.3f}")
        assert np.mean(old < ALPHA) > 0.1


@pytest.mark.slow
@pytest.mark.parametrize("n", [10, 20])
def test_bootstrap_t_holds_under_heavy_skew_where_sign_flip_does_not(n: int) -> None:
    """The heavy-skew case of docs/measures/bec_pro.md: n units whose mean-0 effects are a
    centred exponential (skewness 2). The sign-flip test assumes symmetry and rejects
    ~0.09; the equal-tailed bootstrap-t test (``paired_test(method="bootstrap-t")``)
    keeps its size, and its interval covers the true mean 0."""
    test_bt, ci_bt, test_sf = heavy_skew_rows(n, 2000)  # docs/calibration.md
    print(f"heavy skew, {n} units: sign-flip FPR {test_sf.rate:.3f}, bootstrap-t FPR "
          f"{test_bt.rate:.3f}, bootstrap-t coverage {ci_bt.rate:.3f}")
    assert test_bt.within and ci_bt.within
    assert test_sf.rate > FPR[1] and test_sf.limit  # a known limit on the page
    d0 = heavy_skew_units(n, 2000)[0]
    one = paired_test(d0, np.zeros(n), n_flips=999, seed=n)  # the default
    assert one.test == "bootstrap-t test of the mean" and 0 < one.p_value <= 1


@pytest.mark.slow
@pytest.mark.parametrize("k", [5, 10, 20])
def test_cluster_mean_ci_with_few_skewed_clusters(k: int) -> None:
    """Rows 7 and 8: a mean over k clusters (professions x 9 person words each) with
    skewed mean-0 cluster effects; the cluster t interval covers, the percentile
    cluster bootstrap (the interval before issue 22) does not at 5 and 10 clusters."""
    row = cluster_t_row(k, 2000)  # docs/calibration.md
    rng = np.random.default_rng(224 + k)  # its first 300 simulations again
    boot = []
    for s in range(300):
        v, clusters = skewed_cluster_values(rng, k)
        tot = np.column_stack([np.bincount(clusters, v), np.bincount(clusters)])
        b = cluster_bootstrap_ci(tot, lambda t: t[:, 0] / t[:, 1], unit="professions",
                                 n_resamples=400, seed=s)
        boot.append(b.ci_low <= 0.0 <= b.ci_high)
    print(f"{k} clusters: t coverage {row.rate:.3f}, percentile {np.mean(boot):.3f}")
    assert cluster_mean_ci(v, clusters, unit="professions").method == "cluster t interval"
    assert row.within
    if k <= 10:
        assert np.mean(boot) < 0.91


def _abc_log_ratios(rng: np.random.Generator, n: int | None = 300
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ABC-like log-perplexity ratios: 60 occupations x 76 frames (crossed random effects,
    sd 0.3 each, group noise sd 0.3; median 0), or a random ``n`` of them (report subset)."""
    rr, cc = (a.ravel() for a in np.meshgrid(np.arange(60), np.arange(76), indexing="ij"))
    if n is not None:
        keep = rng.choice(rr.size, n, replace=False)
        rr, cc = rr[keep], cc[keep]
    v = rng.normal(0, 0.3, 60)[rr] + rng.normal(0, 0.3, 76)[cc] + rng.normal(0, 0.3, rr.size)
    return v, rr, cc


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(150, 500))
def test_abc_median_ci_over_occupations_and_frames_covers(runs: Runs) -> None:
    """Row 5: the ABC median's two-way interval over occupations x frames covers on the
    report subset (300 groups) and on all 4,560; the percentile bootstrap over groups
    (the interval before issue 22) does not."""
    from genderscope.stats.crossed import crossed_ci, weighted_median

    rng = np.random.default_rng(225)
    hits, old, share, wilson = [], [], [], []
    for k in range(runs.sims):
        v, rr, cc = _abc_log_ratios(rng)
        ci = crossed_ci(rr, cc, lambda w, v=v: weighted_median(v, w), unit="x",
                        n_resamples=300, seed=k)
        hits.append(ci.ci_low <= 0.0 <= ci.ci_high)
        pos = (v > 0).astype(float)  # a share (e.g. reflexive preferred), truth 0.5
        sh = crossed_ci(rr, cc, lambda w, x=pos: (w @ x) / w.sum(axis=1), unit="x",
                        n_resamples=300, seed=k)
        share.append(sh.ci_low <= 0.5 <= sh.ci_high)
        if k < runs.of(150):
            b = bootstrap_ci(v, np.median, n_resamples=300, seed=k)
            old.append(b.ci_low <= 0.0 <= b.ci_high)
            w = proportion_ci(int(pos.sum()), pos.size)
            wilson.append(w.ci_low <= 0.5 <= w.ci_high)
    full = []
    for k in range(runs.of(40)):
        v, rr, cc = _abc_log_ratios(rng, None)
        ci = crossed_ci(rr, cc, lambda w, v=v: weighted_median(v, w), unit="x",
                        n_resamples=200, seed=k)
        full.append(ci.ci_low <= 0.0 <= ci.ci_high)
    print(f"ABC median: two-way coverage {np.mean(hits):.3f} (subset), {np.mean(full):.3f} "
          f"(all 4,560, 40 runs); groups bootstrap {np.mean(old):.3f}; share: two-way "
          f"{np.mean(share):.3f}, Wilson over groups {np.mean(wilson):.3f}")
    assert runs.meets(float(np.mean(hits)), COVER)
    assert runs.meets(float(np.mean(share)), COVER)
    assert runs.below(float(np.mean(wilson)), 0.85, len(wilson))
    # 40 runs: a coarse check that the full set is not 0.26
    assert runs.meets(float(np.mean(full)), (0.85, 1.0), len(full))
    assert runs.below(float(np.mean(old)), 0.85, len(old))


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(500, 2000))
def test_probe_mean_over_twelve_targets_covers(runs: Runs) -> None:
    """Row 8: the probe's mean over 12 targets (the report's --quick professions) with
    skewed mean-0 target effects: the bootstrap-t interval it now reports (issue 36 row
    10; Student's t before) covers; the percentile bootstrap it reported before issue 22
    does not."""
    from genderscope.measures import probe

    row = probe_t_row(runs.sims)  # docs/calibration.md
    rng = np.random.default_rng(226)  # its first 300 simulations again
    old = []
    for k in range(runs.of(300)):
        b = bootstrap_ci(probe_targets(rng), n_resamples=400, seed=k)
        old.append(b.ci_low <= 0.0 <= b.ci_high)
    print(f"probe, 12 targets: bootstrap-t coverage {row.rate:.3f}, percentile "
          f"{np.mean(old):.3f}")
    from fake_lm import FakeCausal

    targets = [f"t{i}" for i in range(12)]
    lm = FakeCausal({t: -float(i % 5) for i, t in enumerate(targets)} | {"he": -1.0})
    res = probe.probe(lm, "GGG is a XXX.", ("he", "she"), targets).summary["fill_bias"]
    # this fake's fill bias is the same for every target: nothing to resample, Student's t
    assert res["method"] == "t interval" and res["ci_unit"] == "targets"
    assert probe.mean_ci(probe_targets(rng), seed=0).method == "bootstrap-t"
    assert runs.meets(row.rate, COVER)
    assert runs.below(float(np.mean(old)), 0.92, len(old))


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(300, 1000))
@pytest.mark.parametrize("k", [5, 10, 20])
def test_report_compare_ci_with_few_clusters_covers(k: int, runs: Runs) -> None:
    """Item 3 of issue 22: the report's tested difference (A − B, mean over items) with a
    model gap that varies by profession (skewed, known mean 0.3) over k professions x 9
    items. Its CI (jackknife-t below 50 clusters) covers; the percentile cluster bootstrap,
    the interval before this change, does not at 5 and 10."""
    from genderscope.reporting.compare import _percentile, ci_method, paired_difference
    from genderscope.reporting.entry import Paired

    rng = np.random.default_rng(2230 + k)
    prof = np.repeat(np.arange(k), 9)
    index = pd.Index([f"i{i}" for i in range(prof.size)])
    clusters = pd.Series(prof.astype(str), index=index)
    members = [np.flatnonzero(prof == j) for j in range(k)]

    def mean(x: np.ndarray) -> float:
        return float(x[:, 0].mean())

    hits, old = [], []
    for s in range(runs.sims):
        base = _skewed(rng, k)[prof] + rng.normal(0, 1, prof.size)
        gap = 0.3 + _skewed(rng, k)[prof] + rng.normal(0, 0.5, prof.size)
        a, b = base + gap, base
        lo, hi = paired_difference(
            Paired(pd.DataFrame({"v": a}, index=index), mean, "professions", clusters),
            Paired(pd.DataFrame({"v": b}, index=index), mean, "professions", clusters),
            n_resamples=20, n_permutations=20, seed=s)[3:5]
        hits.append(lo <= 0.3 <= hi)
        if s < runs.of(250):
            lo, hi = _percentile(a[:, None], b[:, None], mean, members, prof.size, 250,
                                 np.random.default_rng(s))
            old.append(lo <= 0.3 <= hi)
    print(f"report compare, {k} clusters: {ci_method(k)} coverage {np.mean(hits):.3f}, "
          f"percentile bootstrap {np.mean(old):.3f}")
    assert ci_method(k) == "jackknife t interval"
    assert ci_method(k, smooth=False) == "percentile bootstrap"  # ABC's median
    assert runs.meets(float(np.mean(hits)), COVER)
    if k <= 10:
        assert runs.below(float(np.mean(old)), 0.91, len(old))
