"""Clear messages for malformed WinoBias / DaWinoBias files."""

from __future__ import annotations

from pathlib import Path

import pytest

from genderscope.datasets.winobias import GENDA_FILES, load_dawinobias, read_file
from genderscope.errors import DataError


def test_line_without_bracketed_occupation(tmp_path: Path) -> None:
    f = tmp_path / "pro_stereotyped_type1.txt.dev"
    f.write_text("1 The nurse helped the patient because she was kind.\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"no occupation in square brackets .*\[The nurse\]"):
        read_file(f, lang="en", condition="pro", wb_type=1, split="dev", numbered=True)


def test_dawinobias_file_shorter_than_the_split(tmp_path: Path) -> None:
    line = "[Sygeplejersken] hjalp patienten, fordi [hun] var venlig.\n"
    for cond in ("pro", "anti"):
        (tmp_path / GENDA_FILES[cond]).write_text(line * 10, encoding="utf-8")
    assert len(load_dawinobias(tmp_path, split="dev")) == 20
    with pytest.raises(DataError, match=r"shorter than expected: 10 lines, but the test split "
                                        r"starts at line 343"):
        load_dawinobias(tmp_path, split="test")
