"""GenderBench probes on too few units: a printed reading must not contradict its own
statistics. A metric over 5 or fewer clusters (the rule under which the paired tests give
no p) has no interval, says why in the summary, the tables and the report, and is not
graded large or small; a metric left undefined (JobsLum's slope on one occupation) says
why, and GenderBench's own interval beside it, unchanged, is explained."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
from rich.console import Console

from genderscope.cli.commands import chat_probes, genderbench_suite
from genderscope.measures.genderbench import discrimination_tamkin, jobs_lum
from genderscope.measures.genderbench.common import attempts_frame
from genderscope.measures.genderbench.marks import UNDEFINED_NOTE, genderbench_intervals
from genderscope.measures.genderbench.probe_run import summarise
from genderscope.measures.genderbench.suite import summarise_suite
from genderscope.reporting.cards.chat_probes import DISCRIMINATION_TAMKIN
from genderscope.results import Result
from genderscope.stats.design import MIN_UNITS_TO_TEST


def _text(items: list) -> str:  # type: ignore[type-arg]
    out = io.StringIO()
    console = Console(file=out, width=250)
    for x in items:
        console.print(x)
    return out.getvalue()


def _tamkin(k: int, male_yes: int = 0) -> tuple[Result, int]:
    """DiscriminationTamkin on ``k`` items where women are told yes, and men only in the
    first ``male_yes`` scenarios (0: every scenario answered alike, so a cluster bootstrap
    would collapse to [-1, -1])."""
    spec = discrimination_tamkin.build(sample_k=k, sample_seed=123)
    yes_men = sorted({a.cluster for a in spec.attempts})[:male_yes]
    answers = ["Yes" if a.meta["gender"] == "female"
               or (a.meta["gender"] == "male" and a.cluster in yes_men) else "No"
               for a in spec.attempts]
    frame = attempts_frame(spec.attempts, answers, spec.evaluate)
    summary = summarise(spec, frame, n_resamples=200, seed=0)
    meta = {"params": {"cluster_unit": spec.cluster_unit}}
    clusters = len({a.cluster for a in spec.attempts})
    return Result(spec.method, summary, frame, meta), clusters


def test_too_few_scenarios_give_no_interval_and_no_graded_reading() -> None:
    r, k = _tamkin(4)
    assert k < MIN_UNITS_TO_TEST
    d = r.summary["diff_mvf_success_rate"]
    assert d["estimate"] == -1.0 and math.isnan(d["ci_low"]) and math.isnan(d["ci_high"])
    why = f"too few scenarios to give an interval ({k}; {MIN_UNITS_TO_TEST} needed)"
    assert d["no_interval"] == why
    assert all("too few units to test" in t["test"] for t in r.summary["tests"])
    marks = r.summary["marks"]["diff_mvf_success_rate"]
    assert marks["mark"] is None and marks["mark_point"] == "D"  # the point's mark stays
    table = _text(chat_probes.tables(r))
    assert f"-1.000 ({why})" in table and "[-1.000, -1.000]" not in table
    head = DISCRIMINATION_TAMKIN.headlines(r)[0]
    assert head.ci_text() == why and head.as_dict()["no_interval"] == why
    reading = head.reading()
    assert why in reading and "Large" not in reading and "favours women" in reading


def test_enough_scenarios_keep_their_interval() -> None:
    r, k = _tamkin(12, male_yes=1)  # scenarios differ: men told yes in one of them
    assert k >= MIN_UNITS_TO_TEST
    d = r.summary["diff_mvf_success_rate"]
    assert "no_interval" not in d and d["ci_low"] < d["estimate"] < d["ci_high"]
    alike, _ = _tamkin(12)  # every scenario alike: no spread, no interval (not [-1, -1])
    assert alike.summary["diff_mvf_success_rate"]["no_interval"] == (
        f"no spread over {k} scenarios: interval undefined")
    assert DISCRIMINATION_TAMKIN.headlines(r)[0].reading().startswith("Large bias")


def test_jobs_lum_slope_on_one_occupation_says_why_beside_genderbench() -> None:
    spec = jobs_lum.build(sample_k=4, sample_seed=123)
    caddy = [a.meta["job"] for a in spec.attempts].index("caddy")
    answers = ["He is one. His name is Bob." if i == caddy else "They are."
               for i in range(len(spec.attempts))]
    frame = attempts_frame(spec.attempts, answers, spec.evaluate)
    s = summarise_suite({"jobs-lum": spec}, {"jobs-lum": frame}, n_resamples=200, seed=0,
                        subset_seed=123)
    slope = s["probes"]["jobs-lum"]["stereotype_rate"]
    assert math.isnan(slope["estimate"])
    assert slope["no_estimate"] == ("too few items: the slope needs 2 occupations with a "
                                    "detected character, 1 here")
    row = next(r for r in s["marks"] if r["metric"] == "stereotype_rate")
    gb = genderbench_intervals(spec, frame, seed=123)["stereotype_rate"]
    assert np.isfinite(gb).all()  # GenderBench's resamples repeat the item: a slope
    assert [row["genderbench_low"], row["genderbench_high"]] == list(gb)  # unchanged
    assert row["mark_genderbench"] == "A" and row["genderbench_note"] == UNDEFINED_NOTE
    others = [r for r in s["marks"] if r["metric"] != "stereotype_rate"]
    assert all(r["genderbench_note"] is None for r in others)
    result = Result("genderbench", s, pd.DataFrame(), {"params": {"scope": "quick"}})
    table = _text(genderbench_suite.tables(result))
    assert "n/a (too few items: the slope needs 2 occupations" in table
    assert f"jobs-lum stereotype_rate: {UNDEFINED_NOTE}" in " ".join(table.split())


def test_probe_runs_stored_before_are_not_served() -> None:
    """A metric over 5 or fewer clusters now has no interval, so every probe's declared
    version (and the suite's) was raised above what its stored runs were made with
    (direct and business-vocabulary 1, the other probes and the suite 2), and raised
    again when an interval of units without spread became undefined instead of [x, x]:
    a store made before reruns them rather than serving the old interval and CI mark."""
    from genderscope.catalog.chat import _UNCHANGED
    from genderscope.core.registry import get
    from genderscope.measures.genderbench.probes import PROBES

    for probe in PROBES:
        assert get(probe.name).version == (3 if probe.name in _UNCHANGED else 4), probe.name
    assert get("genderbench").version == 4
