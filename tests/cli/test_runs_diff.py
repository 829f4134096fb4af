"""``genderscope runs diff RUN_A RUN_B`` and :func:`genderscope.results.diff_results`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.results import Result, diff_results
from genderscope.store import Store


def _result(est: float, seed: int, fp: str = "sha256:aaa") -> Result:
    return Result("crows-pairs", {"score": {"estimate": est, "n": 3}},
                  pd.DataFrame({"item": ["a", "b", "c"]}),
                  {"model": {"fingerprint": fp}, "params": {"k": 1}, "seed": seed,
                   "runtime_s": est})


def test_diff_names_what_changed() -> None:
    df = diff_results(_result(55.0, 0), _result(60.5, 1))
    rows = {r.key: r for r in df.itertuples()}
    assert set(rows) == {"score.estimate", "seed"}  # runtime_s is a timing: left out
    assert rows["score.estimate"].change == 5.5 and rows["seed"].b == 1
    assert diff_results(_result(55.0, 0), _result(55.0, 0)).empty


def test_cli_diff(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    s = Store(path)
    a = s.record_run(_result(55.0, 0))
    b = s.record_run(_result(55.0, 0, fp="sha256:bbb"))
    s.close()
    res = CliRunner().invoke(app, ["runs", "diff", a, b, "--store", str(path), "--json"])
    assert res.exit_code == 0, res.output
    diffs = json.loads(res.output)["differences"]
    assert [(d["key"], d["a"], d["b"]) for d in diffs] == [
        ("model.fingerprint", "sha256:aaa", "sha256:bbb")]
    res = CliRunner().invoke(app, ["runs", "diff", a, a, "--store", str(path)])
    assert res.exit_code == 0 and "agree" in res.output
    res = CliRunner().invoke(app, ["runs", "diff", a, "nope", "--store", str(path)])
    assert res.exit_code != 0
