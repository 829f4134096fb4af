"""Letter case shared by the gender swapper and the analogy attack, and the look-up
forms of a word list's entries in a vocabulary (the embedding measures' ``case``,
``strip_accents`` and ``preprocessor`` options)."""

from __future__ import annotations

from collections.abc import Callable

from genderscope.errors import GenderscopeError


def match_case(template: str, word: str) -> str:
    """``word`` in the case pattern of ``template``: UPPER (two letters or more),
    Title (first letter upper) or as given."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


CASES = ("fallback", "exact", "lower")
"""How a word list's entry is looked up in a vocabulary: ``fallback`` (genderscope's
default: the word as written, else its lower case), ``exact`` (as written only: WEFE's
default, ``preprocessors=[{}]``) or ``lower`` (its lower case only: WEFE's
``[{"lowercase": True}]``)."""

ACCENTS = ("none", "unicode", "ascii")
"""Accent stripping before look-up: none; ``unicode`` (NFKD decomposition, combining
marks dropped); ``ascii`` (NFKD, then every non-ASCII character dropped). WEFE's
``strip_accents`` True/"unicode" and "ascii" (scikit-learn's functions of those names)."""


def strip_accents(word: str, how: str = "unicode") -> str:
    """``word`` without its accents (:data:`ACCENTS`): ``"Élise"`` -> ``"Elise"``."""
    import unicodedata

    if how == "none" or word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    if how == "ascii":
        return decomposed.encode("ascii", "ignore").decode("ascii")
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def lookup_forms(word: str, *, case: str = "fallback", accents: str = "none",
                 preprocessor: Callable[[str], str] | None = None) -> list[str]:
    """The forms of ``word`` to try in a vocabulary, in order (the first one present is
    used): ``preprocessor`` (a Python callable) first, then accent stripping
    (:data:`ACCENTS`), then the case rule (:data:`CASES`). WEFE 1.0.1 equivalents:
    ``exact`` is ``preprocessors=[p]``, ``lower`` is ``[{**p, "lowercase": True}]`` and
    ``fallback`` is ``[p, {**p, "lowercase": True}]``, strategy "first", where ``p`` holds
    the accent option (or the callable, which in WEFE replaces the other options)."""
    if preprocessor is not None:
        word = preprocessor(word)
        if not isinstance(word, str):
            raise GenderscopeError(f"the preprocessor returned {type(word).__name__}, "
                                   "not a str")
    word = strip_accents(word, accents)
    if case == "exact":
        return [word]
    if case == "lower":
        return [word.lower()]
    return [word] if word.lower() == word else [word, word.lower()]
