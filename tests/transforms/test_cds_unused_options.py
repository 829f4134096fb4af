"""``genderscope debias cds`` and ``gs.debias``: an option the chosen mode or unit does not
read is refused (one line, exit code 2 on the command line, nothing written) instead of
being ignored: ``--prob`` is read by ``--mode cds`` only (cda and all swap every document,
none swaps none), ``--names/--no-names`` and ``--pairs`` by every mode but none, and
``--language`` (the sentence splitter's) by ``--unit sentence`` only. Not given, each
takes its default where it is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_main import run_main

import genderscope as gs
from genderscope.api_debias import check_used
from genderscope.errors import GenderscopeError

CASES: list[tuple[dict[str, Any], tuple[str, ...], str]] = [
    ({"mode": "all", "prob": 0.3}, ("--mode", "all", "--prob", "0.3"), "--prob"),
    ({"mode": "cda", "prob": 0.5}, ("--mode", "cda", "--prob", "0.5"), "--prob"),
    ({"mode": "none", "prob": 0.2}, ("--mode", "none", "--prob", "0.2"), "--prob"),
    ({"mode": "none", "names": False}, ("--mode", "none", "--no-names"), "--names"),
    ({"mode": "none", "pairs": ["pairs.tsv"]}, ("--mode", "none", "--pairs", "pairs.tsv"),
     "--pairs"),
    ({"unit": "passage", "language": "danish"}, ("--unit", "passage", "--language", "danish"),
     "--language"),
]
IDS = [" ".join(c[1]) for c in CASES]


def _workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "corpus.txt").write_text("He is a doctor.\nShe is a nurse.\n")
    (tmp_path / "pairs.tsv").write_text("lord\tlady\n")


@pytest.mark.parametrize(("options", "flags", "named"), CASES, ids=IDS)
def test_the_api_refuses_an_unused_option(options: dict[str, Any], flags: tuple[str, ...],
                                          named: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _workspace(tmp_path, monkeypatch)
    with pytest.raises(GenderscopeError, match="is not used") as caught:
        gs.debias("missing-model", "corpus.txt", "ft", **options)
    said = str(caught.value)  # the API names keywords, not flags
    assert said.startswith(f"{named.lstrip('-')} is not used") and "--" not in said, said
    assert "\n" not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "pairs.tsv"]


@pytest.mark.parametrize(("options", "flags", "named"), CASES, ids=IDS)
def test_the_command_refuses_an_unused_option(options: dict[str, Any],
                                              flags: tuple[str, ...], named: str,
                                              tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _workspace(tmp_path, monkeypatch)
    code, err, _ = run_main("debias", "cds", "--model", "missing-model", "--corpus",
                            "corpus.txt", "--out", "ft", "--no-progress", *flags)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"error: {named}") and "is not used" in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "pairs.tsv"]


@pytest.mark.parametrize(("mode", "unit", "given"), [
    ("cds", "sentence", {"prob": 0.5, "names": True, "pairs": ["p.tsv"], "language": "en"}),
    ("cda", "sentence", {"names": False, "pairs": ["p.tsv"]}),
    ("all", "passage", {"names": True}),
    ("none", "passage", {"prob": None, "names": None, "pairs": (), "language": None}),
    ("none", "sentence", {"pairs": [], "language": "danish"}),
])
def test_an_option_its_mode_reads_or_one_not_given_passes(mode: str, unit: str,
                                                          given: dict[str, Any]) -> None:
    check_used(mode, unit, **given)


def test_the_api_takes_none_as_not_given(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """None (each option's default) passes the API's argument checks and this one: the
    call gets as far as reading the corpus."""
    _workspace(tmp_path, monkeypatch)
    with pytest.raises(GenderscopeError, match="missing.txt"):
        gs.debias("missing-model", "missing.txt", "ft", mode="none", unit="passage",
                  prob=None, names=None, language=None, pairs=[])
