"""Calibration of the before/after comparison of debiased word vectors (issue 36, row 2;
simulations in tests/calibration_sims_debias.py, shared with docs/calibration.md).

Two noisy copies of the same vectors (every word plus independent N(0, 0.5^2) noise, 8 + 8
target words, 8 + 8 attribute words, 20 dimensions) are no change. The comparison's old
interval and test, compare's bootstrap-t over the per-word items (which share the
attribute words, RIPA's word pairs, RND's and ECT's centroids), rejected there: WEAT
0.35 over all items and 0.21 on set X, RIPA 0.35 / 0.20, RND 0.15 / 0.10, ECT 0.11 /
0.09, MAC 0.16 / 0.13 (``null_rows(100, old=True)``; the audit: 0.13-0.25). Now: the
several-sample jackknife t interval over every word set and its t test of no change (the
variance from each word's own contribution): 0.032-0.053 in 600 runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from calibration_sims_debias import (
    COVER,
    FPR,
    METRICS,
    compare_null_rows,
    compare_skew_rows,
    null_rows,
    saved_run,
    shrink_rows,
    world,
)
from calibration_size import Runs, runs

from genderscope.core.design import Design


def _report(row) -> float:  # noqa: ANN001
    lo, hi = row.wilson()
    print(f"{row.key}: {row.kind} {row.rate:.3f} [{lo:.3f}, {hi:.3f}] over {row.sims}")
    return row.rate


def test_debias_change_test_is_sized_fast() -> None:
    """60 no-change comparisons: the rejections of all ten rows (five metrics, over all
    items and one set) pooled stay near alpha; the items' bootstrap-t test it replaced
    rejected about 0.18 of them pooled (the same runs, ``old=True``)."""
    rows = null_rows(60, old=True)
    new = [r for r in rows if not r.key.startswith("old-")]
    old = [r for r in rows if r.key.startswith("old-")]
    pooled = sum(r.hits for r in new) / sum(r.sims for r in new)
    pooled_old = sum(r.hits for r in old) / sum(r.sims for r in old)
    print(f"pooled FPR {pooled:.3f} (items alone: {pooled_old:.3f})")
    assert pooled <= 0.09 and pooled_old > 0.12
    assert all(r.rate <= 0.15 for r in new), [(r.key, r.rate) for r in new]


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(150, 600))
def test_debias_change_test_is_sized(runs: Runs) -> None:
    """600 no-change comparisons (Wilson width 0.035 at 0.05; the runs of
    docs/calibration.md): every row within the bar."""
    rows = null_rows(runs.sims)
    for r in rows:
        _report(r)
    assert all(runs.meets(r.rate, FPR) for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(50, 600))
def test_debias_change_interval_covers(runs: Runs) -> None:
    """Debiasing halves every word's gender loading: the interval of each metric's
    change over all items covers its expected change (600 runs, as docs/calibration.md):
    WEAT 0.955, RIPA 0.935, RND 0.967, ECT 0.960, MAC 0.958. With the larger of the two
    variances taken per word set (before) they covered 0.962, 0.937, 0.978 (RND: too
    wide), 0.963 and 0.963."""
    rows = shrink_rows(runs.sims)
    for r in rows:
        _report(r)
    assert all(runs.meets(r.rate, COVER) for r in rows), [(r.key, r.rate) for r in rows]


def test_interval_takes_the_larger_variance_once_over_all_sets() -> None:
    """The change's variance is max(V_0, V_c) over all word sets together, not the sum of
    each set's larger share: here set X's corrected derivatives and set A's own
    contributions are the larger, so the per-set maxima add up to more than either total
    and the interval is V_0's (narrower than the per-set floor's)."""
    from scipy import stats

    from genderscope.stats.change_interval import infer_change
    from genderscope.stats.jackknife import infer_samples, jackknife_variance

    crossed = Design("mean", unit="target words", crossed=("attribute words",))
    rng = np.random.default_rng(12)
    grads = {"X": 0.07 * rng.normal(size=8), "A": 0.02 * rng.normal(size=8)}
    own = {"X": 0.05 * rng.normal(size=8), "A": 0.12 * rng.normal(size=8)}
    own = {k: v - v.mean() for k, v in own.items()}
    noise = {k: np.full(8, 1e-4) for k in grads}
    v_c = jackknife_variance(grads, noise)
    v_0 = jackknife_variance(own)
    assert v_c.by_sample["X"] > v_0.by_sample["X"] and v_c.by_sample["A"] < v_0.by_sample["A"]
    assert v_0.variance > v_c.variance
    res = infer_change(crossed, 0.3, grads, own, noise)
    half = stats.t.ppf(0.975, v_0.df) * np.sqrt(v_0.variance)
    assert (res.ci.ci_low, res.ci.ci_high) == pytest.approx((0.3 - half, 0.3 + half))
    per_set = infer_samples(crossed, 0.3, grads, null=0.0, null_influence=own,
                            corrections=noise)
    assert res.ci.ci_high - res.ci.ci_low < per_set.ci.ci_high - per_set.ci.ci_low
    assert res.p_value == pytest.approx(per_set.p_value)  # the test is V_0's, unchanged
    grads["X"] = 3 * grads["X"]  # now V_c is the larger: its interval
    res = infer_change(crossed, 0.3, grads, own, noise)
    v_c = jackknife_variance(grads, noise)
    assert v_c.variance > v_0.variance
    half = stats.t.ppf(0.975, v_c.df) * np.sqrt(v_c.variance)
    assert (res.ci.ci_low, res.ci.ci_high) == pytest.approx((0.3 - half, 0.3 + half))


@pytest.mark.parametrize("scale", [1.0, 3.0])  # V_0's interval; V_c's
def test_change_computes_each_variance_once(monkeypatch, scale: float) -> None:  # noqa: ANN001
    """infer_change computes V_0 (for the test, and the interval when it is the larger)
    and V_c once each, whichever interval it returns: it once computed V_0 three times."""
    from genderscope.stats import change_interval, jackknife

    calls: list[object] = []
    real = jackknife.jackknife_variance

    def counted(derivatives, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(derivatives)
        return real(derivatives, *args, **kwargs)

    monkeypatch.setattr(jackknife, "jackknife_variance", counted)
    monkeypatch.setattr(change_interval, "jackknife_variance", counted)
    crossed = Design("mean", unit="target words", crossed=("attribute words",))
    rng = np.random.default_rng(12)
    grads = {"X": scale * 0.07 * rng.normal(size=8), "A": 0.02 * rng.normal(size=8)}
    own = {"X": 0.05 * rng.normal(size=8), "A": 0.12 * rng.normal(size=8)}
    noise = {k: np.full(8, 1e-4) for k in grads}
    res = change_interval.infer_change(crossed, 0.3, grads, own, noise)
    assert np.isfinite(res.ci.ci_low) and np.isfinite(res.p_value)
    assert sorted(map(id, calls)) == sorted((id(own), id(grads)))


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(60, 1500))
def test_compare_of_saved_runs_is_sized(runs: Runs) -> None:
    """``genderscope compare`` of two saved runs of each metric on two noisy copies of the
    same vectors (the runs the evaluation saves, word rows recorded): every row within the
    bar, or below it as the known limit the page states (1,500 runs: 0.036-0.049, every
    row within; at 600, WEAT's set X read 0.027, Monte-Carlo error: the same test rejects
    0.042 of 20,000 such worlds, ``calibration_sims_debias.NULL_20000``). Compare treated
    the per-word items as independent before (bootstrap-t over the items: 0.09-0.35 of such
    runs rejected, ``null_rows(100, old=True)``)."""
    rows = compare_null_rows(runs.sims)
    for r in rows:
        _report(r)
    assert all(runs.meets(r.rate, FPR) or (r.limit and r.rate < FPR[0]) for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(100, 1500))
def test_compare_of_saved_runs_is_sized_under_skewed_words(runs: Runs) -> None:
    """As :func:`test_compare_of_saved_runs_is_sized`, each word's noise centred lognormal
    per coordinate (skewness 6.2; the word positions, and so the items, skewed): every row
    within the bar, or below it as the known limit the page states (1,500 runs: 0.027-0.057;
    RND's 0.029 over all items and 0.027 on set A, 1.6 and 2.4 standard errors below the
    0.037 and 0.038 the same test rejects of 20,000 such worlds, every row 0.037-0.047
    there: ``calibration_sims_debias.NULL_20000_LOGNORMAL``; the evaluation's own rows on
    these 1,500 worlds reject alike)."""
    rows = compare_null_rows(runs.sims, noise="lognormal")
    for r in rows:
        _report(r)
    assert all(runs.meets(r.rate, FPR) or (r.limit and r.rate < FPR[0]) for r in rows), [
        (r.key, r.rate) for r in rows]


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(50, 2000))
def test_compare_of_saved_runs_covers_skewed_changes(runs: Runs) -> None:
    """compare of two saved runs when each word's own change is skewed (after, every word
    moved along the gender axis by a centred lognormal amount): the interval of each
    metric's change over all items covers the expected change within the bar, or above it
    (too wide) as the known limit the page states (2,000 runs, as the page since
    ``SKEW_OWN_2000``: 0.950-0.969, ECT 0.966, MAC 0.963; of 2,000 other worlds,
    ``calibration_sims_debias.SKEW_2000``: 0.957-0.965, ECT 0.975, too wide)."""
    rows = compare_skew_rows(runs.sims)
    for r in rows:
        _report(r)
    assert all(runs.meets(r.rate, COVER) or (r.limit and r.rate > COVER[1]) for r in rows), [
        (r.key, r.rate) for r in rows]


def test_compare_of_saved_runs_is_the_evaluations_change(tmp_path) -> None:  # noqa: ANN001
    """compare of two saved runs that record their word rows gives the evaluation's own
    rows (one code path: the crossed design), not the items-alone bootstrap-t; without
    the word rows it says the items are treated as independent."""
    from genderscope.measures.compare import compare_runs
    from genderscope.measures.vector_change import WORDS_TABLE, word_sets
    from genderscope.vector_debias.evaluate import change_design, paired_change

    before, after, test = world(np.random.default_rng(8))
    for metric in METRICS:
        runs = [saved_run(metric, v, test, tmp_path / f"{metric}-{side}")
                for side, v in (("before", before), ("after", after))]
        res = compare_runs(*runs)
        want = paired_change(metric, word_sets(metric, before, test),
                             word_sets(metric, after, test))
        got = res.tables["change_by_group"].to_dict("records")
        assert res.summary["design"] == change_design(metric).describe()
        for g, w in zip(got, want, strict=True):
            assert g["set"] == w["set"] and g["test"] == w["test"], metric
            for col in ("change", "change_ci_low", "change_ci_high", "p_value"):
                assert g[col] == pytest.approx(w[col], rel=1e-6, abs=1e-9), (metric, col)
        for r in runs:
            del r.tables[WORDS_TABLE]
        plain = compare_runs(*runs)
        assert "independent" in plain.summary["design_note"]
        assert plain.tables["change_by_group"]["ci_method"].iloc[0] != got[0]["ci_method"]


def test_item_values_are_the_metrics_items() -> None:
    """The comparison recomputes each metric's per-word items from the vectors (to move
    each word's weight); at every weight 1 they are the items the metric's run records."""
    from genderscope.measures.embedding_metrics import ect, mac, ripa, rnd
    from genderscope.measures.weat import weat
    from genderscope.vector_debias.evaluate import item_values, word_sets

    before, _, test = world(np.random.default_rng(4), n_target=6, n_attr=7)
    runs = {"weat": weat(before, test, n_permutations=0),
            "ripa": ripa(before, test, n_permutations=0, n_resamples=0),
            "rnd": rnd(before, test, n_permutations=0, n_resamples=10),
            "ect": ect(before, test, n_resamples=0), "mac": mac(before, test, n_resamples=0)}
    for metric, res in runs.items():
        col = "association" if metric == "weat" else "value"
        mine = item_values(metric, word_sets(metric, before, test))
        for group, (values, _) in mine.items():
            recorded = res.items.loc[res.items["set"] == group, col].to_numpy(float)
            assert values == pytest.approx(recorded, abs=1e-9), (metric, group)


def test_a_comparison_with_itself_is_no_change() -> None:
    from genderscope.vector_debias.evaluate import NO_CHANGE, paired_change, word_sets

    before, _, test = world(np.random.default_rng(5))
    for metric in METRICS:
        sets = word_sets(metric, before, test)
        for row in paired_change(metric, sets, sets):
            assert row["change"] == 0.0 and row["test"] == NO_CHANGE, (metric, row)
            assert row["change_ci_low"] == row["change_ci_high"] == 0.0, (metric, row)


def test_a_real_change_is_found() -> None:
    """After: the attribute words of A moved 6 units along the gender axis: every
    metric's test over all items (RIPA: of set A, whose items moved) rejects."""
    from genderscope.vector_debias.evaluate import paired_change, word_sets

    before, after, test = world(np.random.default_rng(6))
    for metric in METRICS:
        sb, sa = word_sets(metric, before, test), word_sets(metric, after, test)
        sa["A"] = sa["A"] + 6.0 * np.eye(sa["A"].shape[1])[0]
        rows = {r["set"]: r for r in paired_change(metric, sb, sa)}
        assert rows["A" if metric == "ripa" else "(all)"]["p_value"] < 0.05, metric


def test_jackknife_of_one_mean_is_students_t() -> None:
    """One sample's mean: derivative (x_i - mean) / n; V = s^2 / n, df n - 1."""
    from genderscope.stats import t_mean_ci
    from genderscope.stats.jackknife import jackknife_ci

    x = np.random.default_rng(7).normal(size=9)
    ci, df = jackknife_ci(float(x.mean()), {"x": (x - x.mean()) / x.size})
    want = t_mean_ci(x)
    assert df == pytest.approx(8) and (ci.ci_low, ci.ci_high) == pytest.approx(
        (want.ci_low, want.ci_high))


def test_too_few_units_and_the_null_variance() -> None:
    from genderscope.stats.design import TOO_FEW
    from genderscope.stats.jackknife import TEST, infer_samples

    crossed = Design("mean", unit="target words", crossed=("attribute words",))
    few = infer_samples(crossed, 0.1, {"X": [0.1, -0.1, 0.05], "A": [0.01, -0.01]},
                        null=0.0)
    assert few.test_name == TOO_FEW and np.isnan(few.p_value)
    wide = {"X": np.array([0.1, -0.1] * 4), "A": np.array([0.1, -0.1] * 4)}
    narrow = {k: v / 10 for k, v in wide.items()}
    res = infer_samples(crossed, 0.1, wide, null=0.0, null_influence=narrow)
    assert res.test_name == TEST and res.ci.spans(0.0) and res.p_value < 0.05
    assert infer_samples(crossed, 0.1, wide, null=0.0).p_value > 0.05
    with pytest.raises(ValueError, match="crossed"):
        infer_samples(Design("mean"), 0.1, {"X": [0.1], "A": [0.2]})
