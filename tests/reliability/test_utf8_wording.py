"""A name that is not valid UTF-8 (a str holding surrogate escapes, as ``os.fsdecode``
gives a file name in another encoding) is refused by one function,
:func:`genderscope.checks.utf8_text`, in one wording, wherever it is given: a path
argument, an output file or folder, and any argument or option of a public function."""

from __future__ import annotations

from typing import Any

import pytest

import genderscope as gs
from genderscope.checks import path_arg, utf8_text
from genderscope.errors import GenderscopeError
from genderscope.outputs import check_output_file

BAD = "caf\udce9"


def _message(call: Any) -> str:
    with pytest.raises(GenderscopeError) as err:
        call()
    return str(err.value)


@pytest.mark.parametrize(("name", "call"), [
    ("model", lambda: path_arg(BAD, "model")),
    ("--out", lambda: check_output_file(BAD, "--out")),
    ("gs.run: out", lambda: gs.run("weat", "vec.txt", test="wt.json", out=BAD)),
    ("gs.run: test", lambda: gs.run("weat", "vec.txt", test=BAD)),
    ("gs.load_model: model", lambda: gs.load_model(BAD)),
])
def test_one_refusal_in_one_wording(name: str, call: Any) -> None:
    said = _message(call)
    assert said == _message(lambda: utf8_text(BAD, name)), said
    assert said.startswith(f"{name} 'caf\\udce9' is not valid UTF-8") and "\n" not in said


def test_valid_text_passes() -> None:
    utf8_text("café", "model")  # any valid UTF-8, accents included
    assert path_arg("café.txt", "model").name == "café.txt"
