"""A measure's terminal table comes from its declaration (issue 35): ``table=
"module:function"`` is what ``genderscope run NAME`` and ``genderscope runs show RUN``
print, for built-in and plug-in measures alike; a path naming nothing fails
``check_measure``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.cli.common import declared_table, summary_table
from genderscope.cli.tables import tables_of
from genderscope.core import registry
from genderscope.core.declaration import Plan, declaration
from genderscope.core.options import Option, Options
from genderscope.results import Result
from genderscope.testing import check_measure


def plug_in_table(result: Result) -> list[str]:
    """The plug-in's own table: one line naming its count."""
    return [f"plug-in table: {result.summary['n']['estimate']:g} items"]


def _plug_in(table: str | None) -> Any:
    def plan(*, n: int = 3) -> Plan:
        def run(_: Any) -> Result:
            return Result("plug-in-count", {"n": {"estimate": float(n), "ci_low": 0.0,
                                                  "ci_high": float(n)}},
                          pd.DataFrame({"i": range(n)}))

        return Plan("plug-in-count", "none", run, inputs=list(range(n)))

    return declaration("plug-in-count", plan, needs="none", doc="Count items.", table=table,
                       options=Options((Option("n", 3, "How many items.", type="int",
                                               min=1),)))


def _result(n: int = 4) -> Result:
    return Result("plug-in-count", {"n": {"estimate": float(n), "ci_low": 0.0,
                                          "ci_high": float(n)}}, pd.DataFrame({"i": range(n)}))


def test_a_plug_in_s_declared_table_is_what_runs_show_prints() -> None:
    registry.register(_plug_in(f"{__name__}:plug_in_table"))
    try:
        assert declared_table("plug-in-count") is plug_in_table
        assert tables_of(_result(4)) == ["plug-in table: 4 items"]
    finally:
        registry.unregister("plug-in-count")
    registry.register(_plug_in(None))  # no table declared: every summary number
    try:
        assert declared_table("plug-in-count") is summary_table
        assert "plug-in table" not in str(tables_of(_result(4)))
    finally:
        registry.unregister("plug-in-count")


def test_the_plain_summary_table_has_a_p_column_only_when_a_number_has_a_p() -> None:
    """``genderscope run gap`` printed an empty p column beside its F1 intervals."""
    ci = {"estimate": 0.7, "ci_low": 0.6, "ci_high": 0.8}
    without = summary_table(Result("m", {"f1": ci, "n": 60}, pd.DataFrame()))[0]
    assert [c.header for c in without.columns] == ["measure", "estimate [95% CI]"]
    with_p = summary_table(Result("m", {"f1": ci, "d": {**ci, "p_value": 0.01}},
                                  pd.DataFrame()))[0]
    assert [c.header for c in with_p.columns] == ["measure", "estimate [95% CI]", "p"]
    assert list(with_p.columns[2].cells)[0] == "" and "0.01" in list(with_p.columns[2].cells)[1]


def test_an_embedding_metric_table_has_a_p_column_only_for_metrics_with_a_p() -> None:
    """``genderscope run mac --query q.yaml`` printed an empty p column (MAC has no p)."""
    from genderscope.cli.commands.embedding_metrics import metric_tables

    row = {"test": "t", "X": "Male", "Y": "Female", "A": "Career", "B": "Family",
           "attribute": "A,B", "value": 0.5, "ci_low": 0.4, "ci_high": 0.6, "p": ""}
    mac = metric_tables("mac", [row])[0]
    assert [c.header for c in mac.columns] == ["test", "X vs Y", "set", "value [95% CI]"]
    ripa = metric_tables("ripa", [{**row, "attribute": "A", "p": 0.03}, row])[0]
    assert [c.header for c in ripa.columns][-1] == "p"
    assert list(ripa.columns[-1].cells) == ["0.03", ""]


def test_ripa_table_says_n_a_and_names_unpaired_words() -> None:
    """``genderscope run ripa`` on target sets of 6 and 3 words printed p "nan" and
    nothing about the 3 words RIPA left without a partner."""
    from genderscope.cli.commands.embedding_metrics import metric_tables

    row = {"test": "t", "X": "Male", "Y": "Female", "A": "Career", "B": "Family",
           "attribute": "A", "value": 0.5, "ci_low": 0.4, "ci_high": 0.6, "unpaired": 3}
    out = metric_tables("ripa", [{**row, "p": float("nan")}, {**row, "p": None}])
    assert list(out[0].columns[-1].cells) == ["n/a", "n/a"]
    assert out[1:] == ["t: 3 target words left out: RIPA pairs X_i with Y_i, and the "
                       "longer set's extra words have no partner"]
    assert metric_tables("ripa", [{**row, "p": 0.2, "unpaired": 0}])[1:] == []
    stored = metric_tables("ripa", [{**row, "p": None}])[0]  # a stored run's NaN
    assert [c.header for c in stored.columns][-1] == "p"


@pytest.mark.parametrize("path", ["no_such_module_xyz:table", f"{__name__}:no_such_function",
                                  f"{__name__}"])
def test_a_table_path_naming_nothing_fails_check_measure(path: str) -> None:
    with pytest.raises(AssertionError, match=r"\[declared\] table"):
        check_measure(_plug_in(path))


def test_generated_run_commands_print_their_declared_tables(tmp_path: Path,
                                                            tiny_gpt2_dir: Path) -> None:
    """``genderscope run probe`` is made from the declaration alone, and prints the table
    its declaration names (the same as ``genderscope runs show``), not the plain list of
    summary numbers."""
    res = CliRunner().invoke(app, ["run", "probe", "--model", str(tiny_gpt2_dir),
                                   "--targets", "nurse", "--store",
                                   str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"),
                                   "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "corrected" in res.output and "nats; > 0 leans 'he'" in res.output
    assert "probe: summary" not in res.output
