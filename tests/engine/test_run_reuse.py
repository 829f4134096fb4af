"""A rerun with the same model, options and items returns the stored run (issue 15):
it loads no model and imports neither torch nor pandas nor scipy; anything that
changes the numbers is a new run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from genderscope.engine.keys import run_key
from genderscope.results import to_json

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "pandas", "scipy", "matplotlib")
PROBE = ("import sys\nfrom genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\n"
         "try:\n    main()\nfinally:\n    print('HEAVY=' + ','.join(m for m in "
         f"{HEAVY!r} if m in sys.modules), file=sys.stderr)\n")


def _cli(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", GENDERSCOPE_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)
    line = [x for x in done.stderr.splitlines() if x.startswith("HEAVY=")]
    assert done.returncode == 0 and line, done.stderr[-2000:]
    return done, {m for m in line[-1][len("HEAVY="):].split(",") if m}


def _run_id(done: subprocess.CompletedProcess) -> str:
    return json.loads(done.stdout)["run_id"]


@pytest.mark.slow
def test_cli_rerun_reuses_the_stored_run_without_heavy_imports(tmp_path: Path,
                                                               tiny_bert_dir: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    args = ["bec-pro", "--model", str(tiny_bert_dir), "--limit", "60", "--no-progress",
            "--resamples", "200", "--store", store, "--json"]
    first, heavy = _cli(tmp_path, "run", *args, "--out", "a")
    assert {"torch", "pandas", "scipy"} <= heavy  # the probe sees a real run's imports
    written = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "a").iterdir()}
    assert {"items.csv", "summary.json", "association.png", "association.svg"} <= set(written)

    again, heavy = _cli(tmp_path, "run", *args, "--out", "a")
    assert heavy == set()
    assert _run_id(again) == _run_id(first)
    assert json.loads(again.stdout)["reused"] and not json.loads(first.stdout)["reused"]
    table, _ = _cli(tmp_path, "run", *[a for a in args if a != "--json"], "--out", "a")
    assert "reused stored run " + _run_id(first) in " ".join(table.stdout.split())
    assert json.loads(again.stdout)["summary"] == json.loads(first.stdout)["summary"]
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "a").iterdir()} == written

    # another output folder: written from the stored run, the same files' content
    elsewhere, _ = _cli(tmp_path, "run", *args, "--out", "b")
    assert _run_id(elsewhere) == _run_id(first)
    assert (tmp_path / "b" / "items.csv").read_text() == \
        (tmp_path / "a" / "items.csv").read_text()
    assert (tmp_path / "b" / "association.png").is_file()
    s_a = json.loads((tmp_path / "a" / "summary.json").read_text())
    s_b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert s_a["summary"] == s_b["summary"]

    # an option that changes the numbers: a new run; --no-reuse: a new run, same numbers
    other, _ = _cli(tmp_path, "run", *[x if x != "200" else "201" for x in args], "--out", "c")
    assert _run_id(other) != _run_id(first)
    fresh, heavy = _cli(tmp_path, "run", "--no-reuse", *args, "--out", "d")
    assert _run_id(fresh) != _run_id(first)
    assert "torch" not in heavy  # every answer still comes from the score cache
    assert json.loads(fresh.stdout)["summary"] == json.loads(first.stdout)["summary"]
    listed, _ = _cli(tmp_path, "runs", "list", "--store", store, "--json")
    assert len(json.loads(listed.stdout)) == 3  # first, the 201-resample run, --no-reuse


def test_api_rerun_returns_the_stored_run_and_decodes_items_on_demand(
        tmp_path: Path, tiny_bert_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import genderscope as gs
    from genderscope.measures import bec_pro

    store = tmp_path / "s.sqlite"
    first = gs.run("bec-pro", str(tiny_bert_dir), store=store, limit=40, resamples=200)
    assert not first.metadata.get("reused")

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("measured again")

    monkeypatch.setattr(bec_pro, "run", boom)
    again = gs.run("bec-pro", str(tiny_bert_dir), store=store, limit=40, resamples=200)
    assert again.metadata["reused"] is True
    assert again.metadata["run_id"] == first.metadata["run_id"]
    assert again.summary == json.loads(to_json(first.summary))  # NaN stored as null
    pd.testing.assert_frame_equal(again.items, first.items, check_dtype=False)
    assert set(again.tables) == set(first.tables) == set(again.table_names)
    with pytest.raises(AssertionError, match="measured again"):
        gs.run("bec-pro", str(tiny_bert_dir), store=store, limit=40, resamples=200,
               reuse=False)
    with pytest.raises(AssertionError, match="measured again"):
        gs.run("bec-pro", str(tiny_bert_dir), store=store, limit=41, resamples=200)


@dataclass(frozen=True)
class Row:
    text: str
    score: float


def test_run_key_follows_content_only() -> None:
    model = {"fingerprint": "abc", "kind": "masked", "dtype": "float32"}
    base = run_key("m", {"seed": 0, "limit": None}, model, [Row("a", 0.1), Row("b", 0.2)])
    assert base is not None and base.startswith("run:")
    # same content in other objects, options in another order: the same key
    assert run_key("m", {"limit": None, "seed": 0}, dict(reversed(model.items())),
                   [Row("a", 0.1), Row("b", 0.2)]) == base
    # any change of what the numbers depend on: another key
    for changed in (run_key("m2", {"seed": 0, "limit": None}, model, [Row("a", 0.1),
                                                                      Row("b", 0.2)]),
                    run_key("m", {"seed": 1, "limit": None}, model, [Row("a", 0.1),
                                                                     Row("b", 0.2)]),
                    run_key("m", {"seed": 0, "limit": None}, {**model, "fingerprint": "abd"},
                            [Row("a", 0.1), Row("b", 0.2)]),
                    run_key("m", {"seed": 0, "limit": None}, model,
                            [Row("a", 0.1), Row("b", 0.2 + 1e-15)]),
                    run_key("m", {"seed": 0, "limit": None}, model, [Row("b", 0.2),
                                                                     Row("a", 0.1)])):
        assert changed is not None and changed != base
    # an object without canonical content is never keyed (so never reused)
    assert run_key("m", {"seed": 0}, model, [object()]) is None


def test_measures_without_items_or_fingerprint_are_not_reused(tmp_path: Path) -> None:
    from genderscope.core.declaration import Plan
    from genderscope.engine.keys import reuse_key as _run_key

    class Adapter:
        def describe(self) -> dict[str, object]:
            return {"kind": "masked", "fingerprint": "f", "device": "cpu"}

    class NoPrint(Adapter):
        def describe(self) -> dict[str, object]:
            return {"kind": "masked", "device": "cpu"}

    plan = Plan("x", "lm", lambda a: None, inputs=[Row("a", 1.0)])
    assert _run_key("x", plan, Adapter(), {}) is not None
    assert _run_key("x", Plan("x", "lm", lambda a: None), Adapter(), {}) is None
    assert _run_key("x", plan, NoPrint(), {}) is None

    # the device an adapter runs on is not part of its identity
    class OnGpu(Adapter):
        def describe(self) -> dict[str, object]:
            return {"kind": "masked", "fingerprint": "f", "device": "cuda:0"}

    assert _run_key("x", plan, OnGpu(), {}) == _run_key("x", plan, Adapter(), {})


@pytest.mark.slow
def test_half_precision_on_sentence_pair_measures_warns(tmp_path: Path, data_dir: Path,
                                                        tiny_gpt2_dir: Path) -> None:
    import genderscope as gs

    with pytest.warns(UserWarning, match="bfloat16: 9 of 300 decisions flipped"):
        gs.run("crows-pairs", str(tiny_gpt2_dir), store=tmp_path / "s.sqlite", data=data_dir,
               limit=2, dtype="bfloat16")
    done = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "run",
         "crows-pairs", "--model", str(tiny_gpt2_dir), "--data", str(data_dir), "--limit", "2",
         "--dtype", "bfloat16", "--store", str(tmp_path / "s.sqlite"), "--out",
         str(tmp_path / "o"), "--no-progress", "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src"), HF_HUB_OFFLINE="1"))
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [x for x in done.stderr.splitlines() if "decisions flipped" in x]
    assert len(lines) == 1 and lines[0].startswith("warning: crows-pairs with dtype bfloat16")


@pytest.mark.slow
def test_crows_pairs_rerun_imports_no_measure_code(tmp_path: Path, data_dir: Path,
                                                    tiny_gpt2_dir: Path) -> None:
    args = ["run", "crows-pairs", "--model", str(tiny_gpt2_dir), "--data", str(data_dir),
            "--limit", "4", "--store", str(tmp_path / "s.sqlite"), "--out", "o",
            "--no-progress", "--json"]
    first, heavy = _cli(tmp_path, *args)
    assert {"torch", "scipy"} <= heavy
    again, heavy = _cli(tmp_path, *args)
    assert heavy == set() and _run_id(again) == _run_id(first)
