"""``genderscope sweep`` on a local Ray with 2 CPUs: same numbers as one-by-one runs,
a killed worker retried with nothing lost or duplicated, resume, a bad model id, the
sweep file, and the leaderboard page with a trajectory."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.errors import GenderscopeError
from genderscope.reporting.registry import measures
from genderscope.reporting.runner import lm_subject, run_one
from genderscope.results import to_json
from genderscope.store import Store
from genderscope.sweep import driver
from genderscope.sweep.jobs import CRASH_ENV, measure_context
from genderscope.sweep.report import write_report
from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec, load_file

pytestmark = pytest.mark.slow

ray = pytest.importorskip("ray")

MEASURES = ["crows-pairs", "probe"]
CRASH_LABEL = "crash-me"
DOOMED_LABEL = "doomed"
MAIN = [sys.executable, "-c", "from genderscope.cli.app import main; main()"]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray (2 CPUs) for the module; workers inherit the fault-injection hook,
    which only fires for a model labelled ``crash-me``."""
    os.environ[CRASH_ENV] = f"{CRASH_LABEL},{DOOMED_LABEL}*"
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()
    os.environ.pop(CRASH_ENV, None)


def _spec(data_dir: Path, *models: ModelSpec, names: list[str] = MEASURES) -> SweepSpec:
    return SweepSpec(models=list(models), measures=[MeasureSpec(n) for n in names], quick=True,
                     data=data_dir, cpus_per_job=1).check()


def _runs(store: Store) -> list[tuple[str, str]]:
    con = sqlite3.connect(store.path)
    rows = con.execute("SELECT method, cache_key FROM runs ORDER BY method, cache_key").fetchall()
    con.close()
    return rows


def _scores(store: Store) -> list[tuple]:
    con = sqlite3.connect(store.path)
    rows = con.execute("SELECT model, namespace, key, value FROM scores "
                       "ORDER BY model, namespace, key").fetchall()
    con.close()
    return rows


def test_sweep_equals_jobs_run_one_by_one(tmp_path: Path, data_dir: Path, tiny_bert_dir: Path,
                                          tiny_gpt2_dir: Path) -> None:
    spec = _spec(data_dir, ModelSpec(str(tiny_bert_dir)), ModelSpec(str(tiny_gpt2_dir)))
    swept = Store(tmp_path / "sweep.sqlite")
    events: list[tuple[str, str, str]] = []
    run = driver.run_sweep(spec, swept, on_status=lambda st, ev: events.append(
        (st.model, st.measure, ev)))
    assert run.ran == 2  # one Ray task per model, its two measures grouped
    assert run.count("done") == 4 and sorted(e[2] for e in events) == ["done"] * 4

    alone = Store(tmp_path / "alone.sqlite")  # the same four jobs, as `report` runs them
    reference = {}
    for folder in (tiny_bert_dir, tiny_gpt2_dir):
        for name in MEASURES:
            ctx = measure_context(spec, MeasureSpec(name))
            sec = run_one(measures()[name], lm_subject(str(folder), alone), ctx, alone)
            assert sec.status == "ok", sec.reason
            reference[(str(folder), name)] = sec.result
    assert len(_runs(swept)) == 4 and _runs(swept) == _runs(alone)  # same cache keys
    for (model, name), ref in reference.items():
        got = swept.load_run(run.statuses[(model, name)].run_id)
        assert got.summary == json.loads(to_json(ref.summary))  # as stored: NaN is null
        pd.testing.assert_frame_equal(got.items, ref.items, check_exact=True)
        assert got.tables.keys() == ref.tables.keys()
        for t in ref.tables:
            pd.testing.assert_frame_equal(got.tables[t], ref.tables[t], check_exact=True)
    # the workers' new score-cache entries reached the driver's store, bit for bit
    assert _scores(swept) and _scores(swept) == _scores(alone)

    # rerun as two checkpoints of one series: nothing runs, the page plots the trajectory
    again = _spec(data_dir, ModelSpec(str(tiny_bert_dir), series="run-a", label="step-1"),
                  ModelSpec(str(tiny_gpt2_dir), series="run-a", label="step-2"))
    rerun = driver.run_sweep(again, swept)
    assert rerun.ran == 0 and rerun.count("skipped") == 4
    path, data = write_report(again, rerun, swept, tmp_path / "board.html", "test")
    text = path.read_text(encoding="utf-8")
    assert 'id="trajectories"' in text and text.count("<figcaption>Trajectory: ") == 2
    assert 'class="leaderboard"' in text  # the multi-model comparison
    assert len(_runs(swept)) == 4
    swept.close()
    alone.close()


def test_killed_worker_is_retried_nothing_lost_or_duplicated(
        tmp_path: Path, data_dir: Path, tiny_bert_dir: Path, tiny_gpt2_dir: Path) -> None:
    spec = _spec(data_dir, ModelSpec(str(tiny_bert_dir), label=CRASH_LABEL),
                 ModelSpec(str(tiny_gpt2_dir)))
    store = Store(tmp_path / "s.sqlite")
    events: list[tuple[str, str, str]] = []
    run = driver.run_sweep(spec, store, on_status=lambda st, ev: events.append(
        (st.model, st.measure, ev)))
    assert (CRASH_LABEL, "crows-pairs", "retried") in events  # its worker was SIGKILLed
    assert run.statuses[(CRASH_LABEL, "probe")].attempts == 2
    assert run.statuses[(str(tiny_gpt2_dir), "probe")].attempts == 1
    assert run.count("done") == 4 and run.count("failed") == 0
    runs = _runs(store)
    assert len(runs) == 4 and len({k for _, k in runs}) == 4
    n_scores = store.count_scores()
    rerun = driver.run_sweep(spec, store)  # a finished sweep: no job runs
    assert rerun.ran == 0 and rerun.count("skipped") == 4
    assert _runs(store) == runs and store.count_scores() == n_scores
    store.close()


def test_worker_dying_on_every_attempt_fails_its_job_only(
        tmp_path: Path, data_dir: Path, tiny_bert_dir: Path, tiny_gpt2_dir: Path) -> None:
    spec = _spec(data_dir, ModelSpec(str(tiny_bert_dir), label=DOOMED_LABEL),
                 ModelSpec(str(tiny_gpt2_dir)), names=["probe"])
    spec.max_retries = 1
    store = Store(tmp_path / "s.sqlite")
    run = driver.run_sweep(spec, store)
    doomed = run.statuses[(DOOMED_LABEL, "probe")]
    assert doomed.status == "failed" and doomed.attempts == 2
    assert doomed.reason.startswith("its worker process died on all 2 attempts")
    assert run.statuses[(str(tiny_gpt2_dir), "probe")].status == "done"
    assert [m for m, _ in _runs(store)] == ["probe"]
    store.close()


def test_bad_model_fails_its_job_and_the_rest_finish(tmp_path: Path, data_dir: Path,
                                                     tiny_gpt2_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.cli import common
    from genderscope.cli.app import app

    for con in (common.console, common.err_console):  # their width is fixed at import
        monkeypatch.setattr(con, "width", 1000)  # no wrap of long tmp paths (pytest -n)

    out = tmp_path / "board.html"
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(app, ["sweep", "-m", str(tmp_path / "no-such-folder"), "-m",
                                 str(tiny_gpt2_dir), "-m", "no-such-org/no-such-model",
                                 "--measure", "probe", "--quick", "--data", str(data_dir),
                                 "--store", str(store), "--out", str(out), "--no-progress"],
                           env={"COLUMNS": "200"})
    assert r.exit_code == 1, r.output  # something failed; the page is still written
    lines = r.output.splitlines()
    bad = [ln for ln in lines if ln.startswith(str(tmp_path / "no-such-folder") + ": probe")]
    assert bad == [f"{tmp_path / 'no-such-folder'}: probe failed: model path not found: "
                   f"{tmp_path / 'no-such-folder'}"]
    assert any(ln.startswith("no-such-org/no-such-model: probe failed: cannot read model "
                             "config from no-such-org/no-such-model") for ln in lines)
    assert any(ln.startswith(f"{tiny_gpt2_dir}: probe done") for ln in lines)
    assert "1 job(s) ran, 0 already recorded, 2 failed" in r.output
    assert "Traceback" not in r.output
    s = Store(store)
    assert [m for m, _ in _runs(s)] == ["probe"]
    s.close()
    text = out.read_text(encoding="utf-8")
    assert text.count('class="measure status-failed"') == 2 and "model path not found" in text


def test_sweep_file_revisions_series_and_options(tmp_path: Path) -> None:
    f = tmp_path / "sweep.yaml"
    f.write_text("models:\n  - smollm2\n  - model: org/m\n    revisions: [step1, step2]\n"
                 "  - {model: ck/a, series: run}\n  - {model: glove-6b-50d, kind: vectors}\n"
                 "measures:\n  - crows-pairs\n  - {name: probe, quick: false, seed: 3}\n"
                 "settings: {quick: true, data: data}\nresources: {gpus_per_job: 1}\n")
    spec = load_file(f)
    assert [m.name for m in spec.models] == ["smollm2", "org/m@step1", "org/m@step2", "ck/a",
                                             "glove-6b-50d"]
    assert spec.series_of(spec.models[1]) == "org/m" and spec.series_of(spec.models[0]) is None
    assert spec.series_of(spec.models[3]) == "run"
    assert spec.data == tmp_path / "data"  # relative to the file
    ctx = measure_context(spec, spec.measures[1])
    assert (ctx.quick, ctx.seed) == (False, 3)
    assert measure_context(spec, spec.measures[0]).quick is True
    assert spec.resources(spec.models[0]) == (1.0, 1.0)
    assert spec.resources(spec.models[4]) == (1.0, 0.0)  # CPU-only job: no GPU asked
    f.write_text("models: [smollm2]\nmeasures: [{name: probe, sed: 1}]\n")
    with pytest.raises(GenderscopeError, match=r"unknown measure key\(s\) sed"):
        load_file(f)


def test_cli_mistake_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    r = subprocess.run([*MAIN, "sweep", "-m", "smollm2", "--measure", "nope", "--store",
                        str(store), "--out", str(tmp_path / "r.html")], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "unknown measure 'nope'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not store.exists() and not (tmp_path / "r.html").exists()


def test_job_cache_reads_the_driver_store_and_never_writes_it(tmp_path: Path) -> None:
    import numpy as np

    from genderscope.sweep.jobs import JobCache

    store = Store(tmp_path / "s.sqlite")
    store.put_arrays("fp", "ns", {"a": np.array([1.5, 2.0])})
    before = _scores(store)
    cache = JobCache(store.path)
    cache.put_arrays("fp", "ns", {"b": np.array([3.0])})
    got = cache.get_arrays("fp", "ns", ["a", "b", "c"])
    assert got.keys() == {"a", "b"} and got["a"].tolist() == [1.5, 2.0]
    cache.put_texts("fp", "pieces", {"t": '["x"]'})
    assert cache.get_texts("fp", "pieces", ["t"]) == {"t": '["x"]'}
    assert [e[:3] for e in cache.new_entries()] == [("fp", "ns", "b"), ("fp", "pieces", "t")]
    cache.close()
    assert _scores(store) == before  # the worker's entries go back to the driver instead
    store.close()
    assert JobCache(tmp_path / "elsewhere.sqlite").get_arrays("fp", "ns", ["a"]) == {}


def test_without_ray_the_sweep_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(GenderscopeError, match=r"pip install 'genderscope\[ray\]'"):
        driver._ray()


def test_record_job_is_one_transaction_and_never_duplicates(tmp_path: Path) -> None:
    from genderscope.results import Result

    store = Store(tmp_path / "s.sqlite")
    ok = Result("m", {"x": 1.0}, pd.DataFrame({"a": [1]}), metadata={"cache_key": "k1"})
    bad = Result("m", {"x": 2.0}, pd.DataFrame({"a": [object()]}),  # Parquet cannot hold it
                 metadata={"cache_key": "k2"})
    with pytest.raises(Exception):  # noqa: B017 - whatever pyarrow raises
        store.record_job([ok, bad], [("fp", "ns", "q", 0.5)])
    assert _runs(store) == [] and store.count_scores() == 0  # nothing of the job stored
    first = store.record_job([ok], [("fp", "ns", "q", 0.5)])
    again = store.record_job([ok], [("fp", "ns", "q", 0.5)])
    assert first == again and _runs(store) == [("m", "k1")] and store.count_scores() == 1
    store.close()


def test_jobs_without_a_gpu_run_on_the_cpu(tmp_path: Path) -> None:
    spec = SweepSpec(models=[ModelSpec("m"), ModelSpec("v", kind="vectors")],
                     measures=[MeasureSpec("probe")], gpus_per_job=1)
    store = Store(tmp_path / "s.sqlite")
    lm = driver._payload(spec, driver.Planned(spec.models[0], None), store, "",
                         spec.resources(spec.models[0])[1])
    vec = driver._payload(spec, driver.Planned(spec.models[1], None), store, "",
                          spec.resources(spec.models[1])[1])
    assert lm.device is None and vec.device == "cpu"  # None: the GPU Ray gave the task
    store.close()
