"""Help that finds things (issue 41, item 4): ``genderscope --help`` in sections,
``genderscope run --help`` by family with whole descriptions, ``run weat --help`` with
the built-in test names (nothing fetched), and no stale developer paths in any help
text or docstring."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.cli.help import SECTIONS, first_paragraph
from genderscope.core.declaration import FAMILIES
from genderscope.core.registry import declarations

SRC = Path(__file__).resolve().parents[2] / "src" / "genderscope"
STALE = re.compile(r"shared/|shared data mirror|shared mirror", re.I)
"""The developer checkout's data folder: users have no ``shared/data``."""


def _help(*path: str) -> str:
    r = CliRunner().invoke(app, [*path, "--help"])
    assert r.exit_code == 0, r.output
    return r.output


def _flat(text: str) -> str:
    return " ".join(text.split())


def _bare(text: str) -> str:
    """``text`` without white space (help wraps lines after hyphens too)."""
    return "".join(text.split())


def _paths() -> list[tuple[str, ...]]:
    """Every command and group of the CLI, as the words that reach it."""
    found: list[tuple[str, ...]] = [()]

    def walk(cmd, path: tuple[str, ...]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            found.append((*path, name))
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


def _sections(text: str) -> dict[str, list[str]]:
    """``Title:`` -> the command names listed under it."""
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = line[:-1]
            out[current] = []
        elif current is not None and re.match(r"  \S", line):
            out[current].append(line.split()[0])
    return out


def test_top_level_commands_in_sections() -> None:
    got = _sections(_help())
    want = {title: list(names) for title, names in SECTIONS}
    assert [t for t in got if t in want] == list(want)  # in the sections' order
    for title, names in want.items():
        assert got[title] == names
    assert "Other commands" not in got  # every command has its section


def test_run_lists_measures_by_family_with_whole_descriptions() -> None:
    text = _help("run")
    got = _sections(text)
    declared = declarations()
    titles = [f"Measures: {f}" for f in FAMILIES]
    assert [t for t in got if t.startswith("Measures: ")] == titles
    for family, title in zip(FAMILIES, titles, strict=True):
        names = sorted(n for n, d in declared.items() if d.family == family)
        assert got[title] == names, family
    assert "…" not in text
    group = typer.main.get_command(app).commands["run"]
    for name in declared:
        line = first_paragraph(group.commands[name].help)
        assert line and _bare(line) in _bare(text), name


def test_every_builtin_measure_has_a_known_family() -> None:
    for name, d in declarations().items():
        assert d.family in FAMILIES, (name, d.family)


def test_weat_and_seat_help_list_the_builtin_tests(monkeypatch, tmp_path) -> None:
    from genderscope.datasets import registry_fetch

    def no_fetch(*a, **k):
        raise AssertionError("help fetched a data set")

    monkeypatch.setattr(registry_fetch, "fetch", no_fetch)
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path))
    weat = _flat(_help("run", "weat"))
    assert all(re.search(rf"\bweat{k}\b", weat) for k in range(1, 11))
    assert "sent-weat1" not in weat and "genderscope data fetch seat" in weat
    assert "weat6b" in _flat(_help("run", "ripa"))
    seat = _flat(_help("run", "seat"))
    assert "sent-weat6" in seat and "weat10" in seat


@pytest.mark.parametrize("path", _paths(), ids=lambda p: " ".join(p) or "genderscope")
def test_no_help_names_the_developer_data_folder(path: tuple[str, ...]) -> None:
    text = _help(*path)
    assert not STALE.search(text), STALE.search(text).group()


def test_no_docstring_names_the_developer_data_folder() -> None:
    bad = [f"{p.relative_to(SRC)}:{k}" for p in SRC.rglob("*.py")
           for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if STALE.search(line)]
    assert not bad


def test_option_bounds_are_written_as_numbers() -> None:
    """``--resamples`` said "at most 1e+06"; the docs' tables and the error say 1,000,000."""
    text = _flat(_help("run", "genderbench"))
    assert "[at least 100, at most 1,000,000]" in text and "1e+06" not in text
    assert "[at least 0, at most 1]" in text  # --top-p


@pytest.mark.parametrize("path, says", [
    (("debias", "cds"), "--limit <int> Use the first N documents [default: every document]"),
    (("debias", "cds"), "Stop after N steps [default: when the epochs end]"),
    (("debias", "inlp"), "of the corpus [default: every document]"),
    (("debias", "sentence-debias"), "sentence pairs [default: every pair]"),
    (("run", "seat"), "[default: cpu for --encoder, the best available for --model]"),
    (("run", "bias-amplification"), "cpu, cuda or mps [default: best available]"),
])
def test_options_without_a_value_say_what_they_default_to(path: tuple[str, ...],
                                                          says: str) -> None:
    """Options whose default is "not given" said nothing of what that means."""
    assert says in _flat(_help(*path))


def test_python_dash_m_genderscope_is_the_cli() -> None:
    """``python -m genderscope`` runs the same command line (there was no __main__)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "genderscope", "run", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "crows-pairs" in done.stdout
