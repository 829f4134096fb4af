"""Letter case shared by the gender swapper and the analogy attack."""

from __future__ import annotations


def match_case(template: str, word: str) -> str:
    """``word`` in the case pattern of ``template``: UPPER (two letters or more),
    Title (first letter upper) or as given."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
