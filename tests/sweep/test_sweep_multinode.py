"""``genderscope sweep`` on a real multi-node Ray cluster on this machine
(``ray.cluster_utils.Cluster``): a head with no CPU for jobs, worker A (1 CPU) and worker B
(1 CPU and a fake GPU), each with a custom resource naming it.

Shown: jobs spread over the nodes; a worker node removed while its job runs is survived
(retried on the other node, the store then equals a serial run's: numbers, item tables,
cache rows, nothing lost or duplicated); a GPU job runs only on the node that declares a
GPU; a driver killed mid-sweep and restarted redoes no finished job.

Runs in CI (not ``slow``; about a minute on 2 cores). The pause hook
(:data:`genderscope.sweep.driver.PAUSE_ENV`) holds a named model's first attempt so the test
knows where it runs and can act while it is in flight.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from genderscope.store import Store
from genderscope.sweep import driver
from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = [pytest.mark.ray_cluster, pytest.mark.slow]

PAUSED = ["pause-me", "hold-me"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """Head + 2 worker nodes; yields (cluster, {name: node id}, {name: Node}, hook folder)."""
    hook = tmp_path_factory.mktemp("pause-hook")
    os.environ[driver.PAUSE_ENV] = f"{','.join(PAUSED)}={hook}"  # the raylets pass it on
    try:
        c = cluster_utils.Cluster(initialize_head=True, head_node_args={
            "num_cpus": 0, "resources": {"node-head": 1}, "include_dashboard": False})
        nodes = {"a": c.add_node(num_cpus=1, resources={"node-a": 1}),
                 "b": c.add_node(num_cpus=1, num_gpus=1, resources={"node-b": 1})}
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
        c.wait_for_nodes()
    except Exception as exc:  # noqa: BLE001 - say precisely why the cluster is missing
        os.environ.pop(driver.PAUSE_ENV, None)
        pytest.skip(f"ray.cluster_utils could not start a 3-node cluster here: "
                    f"{type(exc).__name__}: {str(exc)[:200]}")
    ids = {name: n["NodeID"] for n in ray.nodes() if n["Alive"]
           for name in ("head", "a", "b") if f"node-{name}" in n["Resources"]}
    assert len(ids) == 3
    yield c, ids, nodes, hook
    ray.shutdown()
    c.shutdown()
    os.environ.pop(driver.PAUSE_ENV, None)


def _spec(data_dir: Path, address: str, *models: ModelSpec,
          names: tuple[str, ...] = ("crows-pairs", "probe")) -> SweepSpec:
    return SweepSpec(models=list(models), measures=[MeasureSpec(n) for n in names], quick=True,
                     data=data_dir, cpus_per_job=1, address=address).check()


def _rows(path: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _assert_same_store(got: Path, want: Path) -> None:
    """Same runs (method, key), same numbers, item tables and cache rows, no duplicates."""
    runs = "SELECT method, cache_key, run_id FROM runs ORDER BY method, cache_key"
    a, b = _rows(got, runs), _rows(want, runs)
    assert [r[:2] for r in a] == [r[:2] for r in b] and len({r[1] for r in a}) == len(a)
    sa, sb = Store(got, readonly=True), Store(want, readonly=True)
    for (_, _, ra), (_, _, rb) in zip(a, b, strict=True):
        x, y = sa.load_run(ra), sb.load_run(rb)
        assert x.summary == y.summary
        pd.testing.assert_frame_equal(x.items, y.items, check_exact=True)
        assert x.tables.keys() == y.tables.keys()
        for t in y.tables:
            pd.testing.assert_frame_equal(x.tables[t], y.tables[t], check_exact=True)
    sa.close()
    sb.close()
    scores = "SELECT model, namespace, key, value FROM scores ORDER BY model, namespace, key"
    assert _rows(got, scores) and _rows(got, scores) == _rows(want, scores)


def test_gpu_job_runs_only_on_the_node_with_a_gpu(cluster, tmp_path: Path, data_dir: Path,
                                                  tiny_bert_dir: Path,
                                                  tiny_gpt2_dir: Path) -> None:
    c, ids, _, _ = cluster
    spec = _spec(data_dir, c.address, ModelSpec(str(tiny_bert_dir), label="gpu-1", gpus=1.0),
                 ModelSpec(str(tiny_gpt2_dir), label="gpu-2", gpus=1.0), names=("probe",))
    store = Store(tmp_path / "gpu.sqlite")
    run = driver.run_sweep(spec, store)
    store.close()
    assert run.count("done") == 2
    assert {st.node for st in run.statuses.values()} == {ids["b"]}  # the only GPU node


def test_spread_and_a_removed_node_is_survived(cluster, tmp_path: Path, data_dir: Path,
                                               tiny_bert_dir: Path, tiny_gpt2_dir: Path) -> None:
    c, ids, nodes, hook = cluster
    spec = _spec(data_dir, c.address, ModelSpec(str(tiny_bert_dir), label="pause-me"),
                 ModelSpec(str(tiny_gpt2_dir), label="gpt2"))
    removed: list[str] = []

    def remove_when_paused() -> None:  # the node running pause-me's first attempt goes away
        marker = hook / "pause-me.node"
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        node_id = marker.read_text(encoding="utf-8") if marker.exists() else ""
        name = next((n for n, i in ids.items() if i == node_id), "")
        if name in nodes:
            removed.append(name)
            c.remove_node(nodes.pop(name))

    watcher = threading.Thread(target=remove_when_paused, daemon=True)
    watcher.start()
    events: list[tuple[str, str, str]] = []
    store = Store(tmp_path / "swept.sqlite")
    run = driver.run_sweep(spec, store, on_status=lambda st, ev: events.append(
        (st.model, st.measure, ev)))
    store.close()
    watcher.join(timeout=5)
    assert removed, "the paused job's node was not a worker node"
    gone, other = ids[removed[0]], ids["b" if removed[0] == "a" else "a"]
    assert run.count("done") == 4 and run.count("failed") == 0, run.statuses
    # spread: the two models ran at once on the two worker nodes; the one whose node was
    # removed was retried on the other
    assert {st.node for (m, _), st in run.statuses.items() if m == "gpt2"} == {other}
    assert {st.node for (m, _), st in run.statuses.items() if m == "pause-me"} == {other}
    assert ("pause-me", "crows-pairs", "retried") in events
    assert run.statuses[("pause-me", "probe")].attempts >= 2 and gone != other

    serial = Store(tmp_path / "serial.sqlite")
    driver.run_sequential(spec, serial)
    serial.close()
    _assert_same_store(tmp_path / "swept.sqlite", tmp_path / "serial.sqlite")
    # bring a fresh worker back for the next test
    nodes["c"] = c.add_node(num_cpus=1, resources={"node-c": 1})
    c.wait_for_nodes()


DRIVER = """
import json, sys
from pathlib import Path
from genderscope.store import Store
from genderscope.sweep import driver
from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec
bert, gpt2, data, store, address = sys.argv[1:]
spec = SweepSpec(models=[ModelSpec(bert, label="hold-me"), ModelSpec(gpt2, label="gpt2")],
                 measures=[MeasureSpec("probe")], quick=True, data=Path(data), cpus_per_job=1,
                 address=address).check()
run = driver.run_sweep(spec, Store(store))
print(json.dumps({"ran": run.ran, "status": {m: s.status for (m, _), s in run.statuses.items()}}))
"""


def test_killed_driver_resumes_without_redoing_finished_jobs(
        cluster, tmp_path: Path, data_dir: Path, tiny_bert_dir: Path,
        tiny_gpt2_dir: Path) -> None:
    c, _, _, hook = cluster
    store = tmp_path / "resume.sqlite"
    Store(store).close()
    args = [sys.executable, "-c", DRIVER, str(tiny_bert_dir), str(tiny_gpt2_dir),
            str(data_dir), str(store), c.address]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline and first.poll() is None and not (
            (hook / "hold-me.node").exists() and _rows(store, "SELECT method FROM runs")):
        time.sleep(0.3)
    assert first.poll() is None, first.communicate()[1][-2000:]
    recorded = _rows(store, "SELECT run_id, cache_key FROM runs")
    assert len(recorded) == 1  # gpt2 done, hold-me still in flight
    first.send_signal(signal.SIGKILL)  # the driver dies mid-sweep
    first.communicate()
    (hook / "hold-me.go").write_text("", encoding="utf-8")

    again = subprocess.run(args, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr[-2000:]
    out = json.loads(again.stdout.strip().splitlines()[-1])
    assert out == {"ran": 1, "status": {"hold-me": "done", "gpt2": "skipped"}}
    runs = _rows(store, "SELECT run_id, cache_key FROM runs")
    assert len(runs) == 2 and set(recorded) < set(runs)  # the finished run kept, not redone
