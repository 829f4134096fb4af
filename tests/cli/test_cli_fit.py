"""Tables in a narrow terminal (issue 26, item 4): no word cut with "…" or broken."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.table import Table

from genderscope.cli.fit import FittingConsole

WORDS = ["MaleNames vs FemaleNames", "Career vs Family", "8/8/8/8", "1.71 [1.18, 2.23]",
         "0.00016", "extraordinarily-long-hyphenated-label"]


def _render(width: int) -> str:
    buf = io.StringIO()
    console = FittingConsole(file=buf, width=width, force_terminal=False)
    table = Table(title="a wide table")
    for h in ("test", "X vs Y", "A vs B", "n", "d [95% CI]", "p", "label"):
        table.add_column(h)
    table.add_row("weat6", *WORDS)
    table.add_row("weat7", "Math vs Arts", "MaleTerms vs FemaleTerms", "8/8/8/8",
                  "1.50 [0.79, 2.20]", "0.00047", "short")
    console.print(table)
    return buf.getvalue()


@pytest.mark.parametrize("width", [60, 80, 200])
def test_every_word_whole_at_any_width(width):
    out = _render(width)
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= width
    tokens = set(re.split(r"[\s│┃┏┓┗┛━─┡┩└┘┬┴┼╇╈┳┻]+", out))
    for cell in [*WORDS, "MaleTerms", "FemaleTerms"]:
        for word in cell.split():
            assert word in tokens, (word, out)
    assert ("┃" in out) is (width == 200)  # the table when it fits, blocks when not


@pytest.mark.slow
def test_cli_weat_at_80_columns(tmp_path: Path, data_dir: Path):
    """`genderscope run weat` at COLUMNS=80 printed "FemaleNa…" before."""
    r = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                        "run", "weat", "--vectors", "glove-6b-50d", "--test", "weat6",
                        "--test", "weat7", "--tests-dir", str(data_dir / "seat" / "tests"),
                        "--out", str(tmp_path / "o"), "--store", str(tmp_path / "s.sqlite")],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    for word in ("MaleNames", "FemaleNames", "MaleTerms", "FemaleTerms", "8/8/8/8"):
        assert word in r.stdout, r.stdout


def test_console_width_follows_columns_when_it_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich fixes a console's width from COLUMNS when it is made; the CLI's consoles are made
    once, at import, so a later COLUMNS (or a test runner's) must still decide the width."""
    monkeypatch.setenv("COLUMNS", "50")
    con = FittingConsole(stderr=False)
    monkeypatch.setenv("COLUMNS", "123")
    assert con.width == 123
    assert FittingConsole(stderr=False, width=60).width == 60  # an explicit width stays
