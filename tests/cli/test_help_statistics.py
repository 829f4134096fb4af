"""``genderscope run NAME --help`` says the measure's interval and test, the sentence its
docs page shows (``stats.design_words.statistics_of``), and generates it only when the
help is shown: the CLI's start imports no numeric code for it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.core.registry import declarations, names
from genderscope.stats.design_words import statistics_of


def _bare(text: str) -> str:
    """``text`` without white space (help wraps lines after hyphens too)."""
    return "".join(text.split())


@pytest.mark.parametrize("name", names())
def test_every_measure_help_says_its_interval_and_test(name: str) -> None:
    sentence = statistics_of(declarations()[name])
    assert sentence, f"{name} declares no interval and test"
    r = CliRunner().invoke(app, ["run", name, "--help"])
    assert r.exit_code == 0, r.output
    assert "Interval and test:" in r.output, r.output
    assert _bare(sentence) in _bare(r.output), r.output


def test_a_help_without_a_declaration_adds_nothing() -> None:
    from genderscope.cli.help import statistics_help

    assert statistics_help("no-such-measure") == ""


def test_the_cli_start_imports_no_statistics_code() -> None:
    """Building the command line (every ``run`` command included) imports neither the
    sentences' module nor numpy, scipy or pandas; showing one help does import it."""
    mods = ("numpy", "scipy", "pandas", "genderscope.stats.design_words")
    code = ("import sys\nimport genderscope.cli.app\n"
            f"print([m for m in {mods!r} if m in sys.modules])")
    start = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert start.stdout.strip() == "[]", start.stdout
    shown = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom genderscope.cli.app import app\n"
         "try:\n    app(['run', 'gap', '--help'])\nexcept SystemExit:\n    pass\n"
         "print('genderscope.stats.design_words' in sys.modules, file=sys.stderr)"],
        capture_output=True, text=True, check=True)
    assert "Interval and test:" in shown.stdout and shown.stderr.strip() == "True", shown
