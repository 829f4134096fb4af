"""Gendered pronoun lists shipped with genderscope (``resources/pronouns``,
``resources/abc_pronouns``), one tab-separated file per language."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from genderscope.errors import GenderscopeError, where

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
PRONOUN_DIR = "pronouns"
ABC_PRONOUN_DIR = "abc_pronouns"


def _read(folder: str, lang: str, what: str) -> list[tuple[int, list[str]]]:
    langs = sorted(p.stem for p in (RESOURCES / folder).glob("*.tsv"))
    if lang not in langs:
        raise GenderscopeError(f"no {what} list for language {lang!r} "
                               f"(available: {', '.join(langs)})")
    res = RESOURCES / folder / f"{lang}.tsv"
    rows: list[tuple[int, list[str]]] = []
    for no, line in enumerate(res.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        rows.append((no, line.split("\t")))
    if not rows:
        raise GenderscopeError(f"{what} list {folder}/{lang}.tsv is empty")
    return rows


@dataclass(frozen=True)
class PronounSet:
    """Gendered pronoun forms of one language: ``form -> "male" | "female"``."""

    lang: str
    gender: dict[str, str]
    case: dict[str, str]

    @property
    def forms(self) -> list[str]:
        return list(self.gender)

    def of(self, word: str) -> str | None:
        """Gender of ``word`` (case-insensitive), or None when it is not a listed pronoun."""
        return self.gender.get(word.lower())


@cache
def load_pronouns(lang: str) -> PronounSet:
    """The gendered third-person pronouns of ``lang`` (``en``, ``da``)."""
    gender: dict[str, str] = {}
    case: dict[str, str] = {}
    for no, cols in _read(PRONOUN_DIR, lang, "pronoun"):
        if len(cols) < 2 or cols[1] not in ("male", "female"):
            raise GenderscopeError(f"{where(f'{PRONOUN_DIR}/{lang}.tsv', no)}: expected "
                                   "'form<TAB>male|female<TAB>case'")
        gender[cols[0].lower()] = cols[1]
        case[cols[0].lower()] = cols[2] if len(cols) > 2 else ""
    return PronounSet(lang, gender, case)


@dataclass(frozen=True)
class AbcPronouns:
    """ABC possessives of one language: ``form -> "reflexive" | "male" | "female"``."""

    lang: str
    role: dict[str, str]
    substring: bool  # match forms as substrings (languages written without spaces)

    def forms(self, role: str) -> list[str]:
        return [f for f, r in self.role.items() if r == role]


@cache
def load_abc_pronouns(lang: str) -> AbcPronouns:
    """The reflexive and anti-reflexive possessives of ``lang`` (da, sv, ru, zh)."""
    role: dict[str, str] = {}
    for no, cols in _read(ABC_PRONOUN_DIR, lang, "ABC pronoun"):
        if len(cols) != 2 or cols[1] not in ("reflexive", "male", "female"):
            raise GenderscopeError(f"{where(f'{ABC_PRONOUN_DIR}/{lang}.tsv', no)}: expected "
                                   "'form<TAB>reflexive|male|female'")
        role[cols[0].lower()] = cols[1]
    return AbcPronouns(lang, role, substring=lang in ("zh", "ja"))
