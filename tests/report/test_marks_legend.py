"""What the GenderBench marks A-D mean is worded once
(``genderscope.measures.genderbench.MARKS_LEGEND``) and carried by every output that shows
marks: a probe's run table, the suite's table, the report's terminal summary and the
report page's marks section."""

from __future__ import annotations

import html
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from rich.console import Console

from genderscope.measures.genderbench import GENDERBENCH_MARK, MARKS_LEGEND
from genderscope.results import Result


def _printed(items: list[Any]) -> str:
    """The tables and lines as a wide terminal shows them, whitespace collapsed."""
    console = Console(record=True, width=400)
    for x in items:
        console.print(x)
    return " ".join(console.export_text().split())


def _summary(mark: str | None, point: str | None, **extra: Any) -> dict[str, Any]:
    return {"fail_rate": {"estimate": 0.6, "ci_low": 0.4, "ci_high": 0.8},
            "marks": {"fail_rate": {"mark": mark, "mark_point": point, **extra}},
            "n_items": 10, "n_attempts": 10, "undetected_rate_attempts": 0.0, "tests": []}


def test_the_legend_says_what_mark_of_computes() -> None:
    """The legend's claims hold for the function that gives the marks: the best mark
    whose range the interval overlaps, the point's own mark, none for NaN."""
    from genderscope.measures.genderbench.common import mark_of, ranges

    spec = ranges([0.0, 0.05, 0.15, 0.5, 1.0])
    assert mark_of((0.1, 0.6), spec) == "B" and mark_of(0.3, spec) == "C"  # best overlapped
    assert mark_of((float("nan"), float("nan")), spec) is None  # '-': nothing to mark
    for words in ("A (healthy) to D (severe)", "95% CI", "best mark", "point", "-:"):
        assert words in MARKS_LEGEND


def test_a_probe_table_carries_the_legend() -> None:
    from genderscope.cli.commands.chat_probes import tables

    r = Result("direct", _summary("C", "D"), pd.DataFrame(),
               metadata={"params": {"cluster_unit": "stereotypes"}})
    assert f"marks: {MARKS_LEGEND}" in _printed(tables(r))


def test_the_suite_table_carries_the_legend_and_genderbench_s_mark() -> None:
    from genderscope.cli.commands.genderbench_suite import tables

    row = {"probe": "direct", "metric": "fail_rate", "estimate": 0.6, "ci_low": 0.4,
           "ci_high": 0.8, "mark": "C", "mark_point": "D", "mark_genderbench": "D",
           "genderbench_low": 0.5, "genderbench_high": 0.7}
    r = Result("genderbench", {"n_probes": 1, "n_items": 10, "n_attempts": 10, "marks": [row],
                               "probes": {"direct": {"undetected_rate_attempts": 0.0}}},
               pd.DataFrame(), metadata={"params": {"scope": "quick"}})
    assert f"marks: {MARKS_LEGEND}; {GENDERBENCH_MARK}" in _printed(tables(r))


def _report_data() -> Any:
    summary = _summary("C", "D", genderbench={"mark": "D", "interval": [0.5, 0.7]})
    sec = SimpleNamespace(status="ok", result=SimpleNamespace(summary=summary),
                          subject=SimpleNamespace(label="m1"),
                          measure=SimpleNamespace(name="direct"))
    return SimpleNamespace(sections=[sec], subjects=[])


def test_the_report_page_carries_the_legend() -> None:
    from genderscope.reporting.html import marks_html

    page = html.unescape(marks_html(_report_data()))
    assert f"Marks: {MARKS_LEGEND}; {GENDERBENCH_MARK}." in page


def test_the_report_terminal_summary_carries_the_legend(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a headline reads 'GenderBench mark ...', the summary says what the marks
    mean (the report itself is replaced: only what the command prints is checked)."""
    from typer.testing import CliRunner

    import genderscope.api
    import genderscope.reporting.terminal as terminal
    from genderscope.cli.app import app

    monkeypatch.setattr(genderscope.api, "report", lambda *a, **kw: _report_data())
    row = {"model": "m1", "measure": "direct", "time": "0.1 s", "number": "agrees",
           "estimate [95% CI]": "0.6", "items": "10",
           "reading": "GenderBench mark (CI / point): C / D"}
    monkeypatch.setattr(terminal, "headline_rows", lambda data: [row])
    res = CliRunner().invoke(app, ["report", "--model", "openai:x", "--base-url",
                                   "http://127.0.0.1:9", "--quick", "--measure", "direct",
                                   "--out", str(tmp_path / "r.html"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert f"GenderBench mark: {MARKS_LEGEND}" in " ".join(res.output.split())
