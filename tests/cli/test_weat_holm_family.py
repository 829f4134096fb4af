"""The Holm-adjusted p of ``genderscope run weat`` is the invocation's: computed over the
tests of that command, never read from the store, and a stored run is never rewritten by
a later command that ran it beside other tests (Holm 1979)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.stats import adjust_pvalues
from genderscope.store import Store


def _weat(tmp_path: Path, data_dir: Path, out: str, *tests: str) -> dict[str, Any]:
    args = ["run", "weat", "--vectors", "glove-6b-50d", "--tests-dir",
            str(data_dir / "seat" / "tests"), "--out", str(tmp_path / out), "--store",
            str(tmp_path / "s.sqlite"), "--json"]
    for t in tests:
        args += ["--test", t]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def _stored(tmp_path: Path) -> dict[str, str]:
    """Every stored run's summary, as the store holds it (JSON text)."""
    st = Store(tmp_path / "s.sqlite", readonly=True)
    try:
        return dict(st._con.execute("SELECT run_id, summary FROM runs").fetchall())
    finally:
        st.close()


def test_holm_is_the_commands_family_and_runs_stay_as_recorded(tmp_path: Path,
                                                               data_dir: Path) -> None:
    alone = _weat(tmp_path, data_dir, "a", "weat6")
    (row,) = alone["tests"]
    assert row["p_holm"] == row["p"]  # a family of one
    before = _stored(tmp_path)

    pair = _weat(tmp_path, data_dir, "b", "weat6", "weat7")
    assert pair["runs"]["weat6"] == alone["runs"]["weat6"] and pair["reused"] == ["weat6"]
    raw = [r["p"] for r in pair["tests"]]
    assert [r["p_holm"] for r in pair["tests"]] == pytest.approx(list(adjust_pvalues(raw)))
    assert pair["tests"][0]["p_holm"] > pair["tests"][0]["p"]
    table = pd.read_csv(tmp_path / "b" / "tests.csv")
    assert list(table["p_holm"]) == pytest.approx(list(adjust_pvalues(raw)))
    # the family's p is this command's output: weat6's record and summary.json unchanged
    after = _stored(tmp_path)
    assert after[alone["runs"]["weat6"]] == before[alone["runs"]["weat6"]]
    assert all("p_adjusted" not in json.loads(s) for s in after.values())
    saved = json.loads((tmp_path / "b" / "weat6" / "summary.json").read_text())["summary"]
    assert saved == json.loads(before[alone["runs"]["weat6"]])

    again = _weat(tmp_path, data_dir, "c", "weat6")  # what ran beside it before: no matter
    assert again["runs"]["weat6"] == alone["runs"]["weat6"]
    assert again["tests"][0]["p_holm"] == alone["tests"][0]["p_holm"] == row["p"]
    # each row names its family: the tests of the command that shows it
    assert row["holm_family"] == "weat tests of this command: weat6"
    assert {r["holm_family"] for r in pair["tests"]} == \
        {"weat tests of this command: weat6, weat7"}


def test_runs_show_ignores_a_family_an_older_version_stored(tmp_path: Path,
                                                            data_dir: Path) -> None:
    """A run rewritten by an older version (``p_adjusted`` of another command's family)
    shows and exports its own p: one test, no adjustment read from the store."""
    from genderscope.cli.commands.embeddings import one_test_tables
    from genderscope.reporting.cards.weat import headlines

    first = _weat(tmp_path, data_dir, "a", "weat6")
    st = Store(tmp_path / "s.sqlite")
    try:
        res = st.load_run(first["runs"]["weat6"])
        p = res.summary["p_value"]
        res.summary.update(p_adjusted=0.5, p_adjust_method="holm", family="weat tests run "
                           "together")
        table, note = one_test_tables(res)
        assert table.columns[-1].header == "p Holm"
        assert list(table.columns[-1].cells) == [f"{p:.2g}"]
        assert "p Holm = p" in note
        (h,) = headlines(res)
        assert h.p_value == p and h.p_adjusted is None and h.family is None
    finally:
        st.close()
