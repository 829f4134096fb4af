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


def test_byte_order_mark_and_bad_bytes(tmp_path: Path) -> None:
    """A file saved with a UTF-8 byte-order mark reads as without one; a file that is not
    UTF-8 is one line naming the file and the byte."""
    line = "1 [The developer] argued with the designer because [she] did not like the design.\n"
    plain, bom, latin = (tmp_path / n for n in ("plain.txt", "bom.txt", "latin.txt"))
    plain.write_text(line, encoding="utf-8")
    bom.write_text(line, encoding="utf-8-sig")
    latin.write_bytes("1 [The café owner] thanked [her].\n".encode("latin-1"))
    args = {"lang": "en", "condition": "pro", "wb_type": 1, "split": "dev", "numbered": True}
    first, again = read_file(plain, **args)[0], read_file(bom, **args)[0]
    assert (again.text, again.occupation) == (first.text, first.occupation)
    with pytest.raises(DataError, match=r"latin\.txt: WinoBias file is not UTF-8 text "
                                        r"\(invalid continuation byte at byte 10\)"):
        read_file(latin, **args)
