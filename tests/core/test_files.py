"""Reading the files a user names (genderscope.files): one-line DataErrors naming the file."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from genderscope.datasets.corpus import load_corpus
from genderscope.datasets.query import load_query
from genderscope.datasets.seat import load_test
from genderscope.datasets.texts import load_texts
from genderscope.errors import DataError
from genderscope.files import read_json
from genderscope.swap.pairs import load_pairs
from genderscope.vector_debias.lists import read_word_list


def test_read_json_value_and_errors(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text('\ufeff{"a": [1, 2]}', encoding="utf-8")  # a byte-order mark is dropped
    bad.write_text('{\n  "a": [1, 2\n}\n', encoding="utf-8")
    assert read_json(good) == {"a": [1, 2]}
    with pytest.raises(DataError, match=r"bad\.json:3: invalid JSON: "):
        read_json(bad)
    with pytest.raises(DataError, match=r"^query file not found: .*missing\.json$"):
        read_json(tmp_path / "missing.json", "query file")


@pytest.mark.parametrize(("load", "name", "text", "byte"), [
    *((f, "latin.json", '["caf\xe9"]', 5) for f in (load_query, load_test, read_word_list)),
    *((f, "latin.txt", "caf\xe9\tcafe\n", 3) for f in (load_texts, load_corpus, load_pairs))])
def test_loaders_name_a_file_that_is_not_utf8(tmp_path: Path, load: Callable[[Path], object],
                                              name: str, text: str, byte: int) -> None:
    f = tmp_path / name
    f.write_bytes(text.encode("latin-1"))
    with pytest.raises(DataError, match=rf"{re.escape(name)}: .* is not UTF-8 text "
                                        rf"\(.* at byte {byte}\)"):
        load(f)
