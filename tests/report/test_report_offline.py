"""A report offline (issue 41, item 2): before anything runs it says which data sets it
reads and which it must fetch; a measure whose set cannot be fetched is marked "needs
data" (not "failed"); everything else runs; the fetch command is printed once; exit 3
(complete but for the data it could not fetch; 1 stays "a measure failed")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from genderscope.datasets.locations import available_here, needed_sets
from genderscope.reporting import runner
from genderscope.reporting.data_check import check_data
from genderscope.reporting.registry import Context


@pytest.fixture()
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """No data folder, an empty fetch cache, and a mirror nobody listens at."""
    env = {"GENDERSCOPE_CACHE": str(tmp_path / "cache"),
           "GENDERSCOPE_STORE": str(tmp_path / "store.sqlite"),
           "GENDERSCOPE_DATA_MIRROR": "http://127.0.0.1:9", "GENDERSCOPE_DATA_RETRIES": "0"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("GENDERSCOPE_DATA", raising=False)
    return env


def test_needed_sets_are_learnt_without_reading_them(offline: dict[str, str]) -> None:
    from genderscope.datasets.locations import find_benchmark

    assert needed_sets(lambda: find_benchmark("seat/tests")) == ["seat"]
    assert not available_here("seat")  # nothing was fetched to learn it
    assert available_here("crows-pairs")  # packaged


def test_check_names_the_sets_to_fetch(offline: dict[str, str]) -> None:
    check = check_data([runner.vectors_subject("glove-6b-50d")],
                       Context(lang="en", quick=True), ["weat", "ripa"])
    assert check.needs == {"seat": ["weat", "ripa"]}
    assert check.missing == ["seat"]
    assert check.runs == 2
    assert check.line() == "data: none here; to fetch: seat (for ripa, weat)"


def test_offline_report_says_it_once_and_exits_3(offline: dict[str, str],
                                                 tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "report",
         "--vectors", "glove-6b-50d", "--measure", "weat", "--measure", "ripa",
         "--measure", "rnd", "--quick", "--no-progress", "--out", str(out)],
        capture_output=True, text=True, timeout=600, env={**os.environ, **offline})
    text = proc.stdout + proc.stderr
    assert proc.returncode == 3, text
    assert "to fetch: seat" in text.split("glove-6b-50d: weat")[0]  # said before the runs
    assert text.count("genderscope data fetch seat") == 1, text
    for name in ("weat", "ripa", "rnd"):
        assert f"glove-6b-50d: {name} needs data: the seat data set could not be " in text
    assert "failed" not in text
    assert "needs data" in out.read_text(encoding="utf-8")
