"""One letter-case rule for the gender swapper and the analogy attack."""

from __future__ import annotations

import pytest

from genderscope.attack import text as attack_text
from genderscope.casing import match_case
from genderscope.swap import swapper


def test_swap_and_attack_share_one_match_case() -> None:
    assert attack_text.match_case is swapper.match_case is match_case


@pytest.mark.parametrize(("template", "word", "want"), [
    ("he", "she", "she"), ("He", "she", "She"), ("HE", "she", "SHE"),
    ("I", "we", "We"), ("McDonald", "smith", "Smith"), ("", "x", "x")])
def test_match_case(template: str, word: str, want: str) -> None:
    assert match_case(template, word) == want
