"""WinoBias (Zhao et al. 2018) and DaWinoBias (Koppelgaard & Brødbæk 2021) loaders.

One sentence per line; square brackets mark the occupation mention and the
pronoun(s) that corefer with it::

    1 [The developer] argued with the designer because [he] did not like the design.

English files (``{pro,anti}_stereotyped_type{1,2}.txt.{dev,test}``) start each
line with a running number; Danish files (GenDa Lens
``DaWinoBias_{pro,anti}_stereotyped_evalda.txt``, or the original
``da_{pro,anti}_stereotyped_type1_{dev,test}.txt``) do not.

Each line becomes one :class:`WinoItem`. The *target* is the first bracketed
span that is a pronoun of the language (:mod:`genderscope.datasets.pronouns`);
its template has ``{target}`` in its place and the brackets removed. A few
published lines deviate; the loader handles them explicitly:

- a line whose pronoun is not bracketed (one DaWinoBias line) gets its pronoun
  located by the pronoun list when exactly one listed pronoun occurs after the
  occupation (``repaired=True``); otherwise it is an error;
- lines with more than one bracketed pronoun (about 1 % of WinoBias) keep
  ``n_pronouns > 1`` so a measure can exclude them (the other pronoun would
  reveal the gender).

Malformed input (unbalanced or nested brackets, no bracketed mention, no
pronoun, a missing running number in an English file) raises
:class:`~genderscope.errors.DataError` naming ``file:line``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from genderscope.datasets.pronouns import PronounSet, load_pronouns
from genderscope.errors import DataError, where
from genderscope.files import read_text

CONDITIONS = ("pro", "anti")
SPLITS = ("dev", "test")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_NUMBER = re.compile(r"^\s*(\d+)\s+(.*)$")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class WinoItem:
    """One WinoBias sentence with its coreferent pronoun replaced by ``{target}``."""

    item_id: str
    lang: str
    condition: str  # "pro" | "anti"
    wb_type: int  # WinoBias type 1 or 2
    split: str  # "dev" | "test" | "all"
    text: str  # the sentence without brackets
    template: str  # text with the target pronoun replaced by "{target}"
    pronoun: str  # the target pronoun as written
    gender: str  # "male" | "female"
    occupation: str  # the first bracketed mention
    n_pronouns: int  # bracketed pronouns in the line (target included)
    repaired: bool
    path: str
    line: int
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("path",)  # where from: not keyed (engine/keys.py)

    @property
    def capitalized(self) -> bool:
        return self.pronoun[:1].isupper()


def parse_line(raw: str, *, pronouns: PronounSet, path: str | Path, line: int, numbered: bool,
               condition: str, wb_type: int, split: str) -> WinoItem:
    """Parse one bracketed WinoBias line (see the module docstring)."""
    loc = where(path, line)
    body = raw.strip()
    if numbered:
        m = _NUMBER.match(body)
        if not m:
            raise DataError(f"{loc}: expected '<number> <sentence>' (WinoBias lines start with a "
                            "running number)")
        body = m.group(2)
    opens, closes = body.count("["), body.count("]")
    depth = 0
    for ch in body:
        depth += (ch == "[") - (ch == "]")
        if depth < 0 or depth > 1:
            break
    if opens != closes or depth != 0:
        raise DataError(f"{loc}: unbalanced or nested square brackets ({opens} '[' vs "
                        f"{closes} ']')")
    spans = list(_BRACKET.finditer(body))
    if not spans:
        raise DataError(f"{loc}: no occupation in square brackets (a WinoBias line marks the "
                        "occupation and its pronoun, e.g. '[The nurse] ... because [she] ...')")
    # Plain text and the character span of each bracketed mention in it.
    text_parts: list[str] = []
    mentions: list[tuple[int, int, str]] = []
    pos = 0
    for m in spans:
        text_parts.append(body[pos:m.start()])
        start = sum(len(p) for p in text_parts)
        text_parts.append(m.group(1))
        mentions.append((start, start + len(m.group(1)), m.group(1).strip()))
        pos = m.end()
    text_parts.append(body[pos:])
    text = "".join(text_parts)
    occupation = mentions[0][2]
    pron = [(s, e, w) for s, e, w in mentions[1:] if pronouns.of(w) is not None]
    repaired = False
    if not pron:
        occ_end = mentions[0][1]
        found = [(occ_end + m.start(), occ_end + m.end(), m.group(0))
                 for m in _WORD.finditer(text[occ_end:]) if pronouns.of(m.group(0))]
        if len(found) != 1:
            raise DataError(f"{loc}: no bracketed pronoun of language {pronouns.lang!r} "
                            f"({len(found)} unbracketed pronouns after the occupation)")
        pron, repaired = found, True
    start, end, word = pron[0]
    # Keep the exact surface (the bracket may hold spaces around the word).
    inner = text[start:end]
    lead = len(inner) - len(inner.lstrip())
    start, end = start + lead, start + lead + len(word)
    template = text[:start] + "{target}" + text[end:]
    if template.count("{target}") != 1 or "{" in template.replace("{target}", ""):
        raise DataError(f"{loc}: sentence contains curly braces; cannot build a template")
    gender = pronouns.of(word)
    assert gender is not None
    return WinoItem(item_id="", lang=pronouns.lang, condition=condition, wb_type=wb_type,
                    split=split, text=text, template=template, pronoun=word, gender=gender,
                    occupation=occupation, n_pronouns=len(pron), repaired=repaired,
                    path=str(path), line=line)


def read_file(path: str | Path, *, lang: str, condition: str, wb_type: int, split: str,
              numbered: bool, first_line: int = 1, last_line: int | None = None
              ) -> list[WinoItem]:
    """All items of one file (optionally lines ``first_line..last_line``, 1-based)."""
    p = Path(path)
    lines = read_text(p, "WinoBias file").splitlines()
    if condition not in CONDITIONS:
        raise DataError(f"unknown WinoBias condition {condition!r} (pro, anti)")
    pronouns = load_pronouns(lang)
    if first_line > len(lines):
        raise DataError(f"{p} is shorter than expected: {len(lines)} lines, but the {split} "
                        f"split starts at line {first_line} (a GenDa Lens DaWinoBias file holds "
                        f"dev + test, {GENDA_DEV_LINES} + 332 lines)")
    items: list[WinoItem] = []
    for no, raw in enumerate(lines, start=1):
        if no < first_line or (last_line is not None and no > last_line) or not raw.strip():
            continue
        it = parse_line(raw, pronouns=pronouns, path=p, line=no, numbered=numbered,
                        condition=condition, wb_type=wb_type, split=split)
        items.append(replace(it, item_id=f"{lang}-t{wb_type}-{split}-{condition}-{no}"))
    if not items:
        raise DataError(f"{p}: no sentences")
    return items


def _splits(split: str) -> tuple[str, ...]:
    if split == "all":
        return SPLITS
    if split not in SPLITS:
        raise DataError(f"unknown split {split!r} (dev, test, all)")
    return (split,)


def load_winobias(folder: str | Path, *, split: str = "test",
                  types: tuple[int, ...] = (1, 2)) -> list[WinoItem]:
    """English WinoBias items from ``folder`` (the WinoBias ``data`` folder)."""
    d = Path(folder)
    items: list[WinoItem] = []
    if len(set(types)) != len(types):  # each item would be counted twice
        raise DataError(f"--types lists a WinoBias type twice ({types}); give 1, 2 or 1,2")
    for t in types:
        if t not in (1, 2):
            raise DataError(f"unknown WinoBias type {t!r} (1, 2)")
        for s in _splits(split):
            for cond in CONDITIONS:
                items += read_file(d / f"{cond}_stereotyped_type{t}.txt.{s}", lang="en",
                                   condition=cond, wb_type=t, split=s, numbered=True)
    return items


GENDA_FILES = {c: f"DaWinoBias_{c}_stereotyped_evalda.txt" for c in CONDITIONS}
GENDA_DEV_LINES = 342  # GenDa Lens files = original dev (342 lines) + test (332 lines)


def load_dawinobias(folder: str | Path, *, split: str = "all") -> list[WinoItem]:
    """Danish DaWinoBias items.

    ``folder`` is either the GenDa Lens data folder (``DaWinoBias_*_evalda.txt``:
    dev + test concatenated, 674 lines per condition; ``dev`` = lines 1-342,
    ``test`` = lines 343-674, as the original split) or the original
    DaWinoBias folder (``da_{pro,anti}_stereotyped_type1_{dev,test}.txt``).
    """
    d = Path(folder)
    items: list[WinoItem] = []
    if (d / GENDA_FILES["pro"]).is_file():
        ranges = {"dev": (1, GENDA_DEV_LINES), "test": (GENDA_DEV_LINES + 1, None)}
        for s in _splits(split):
            first, last = ranges[s]
            for cond in CONDITIONS:
                items += read_file(d / GENDA_FILES[cond], lang="da", condition=cond, wb_type=1,
                                   split=s, numbered=False, first_line=first, last_line=last)
        return items
    if (d / "da_pro_stereotyped_type1_dev.txt").is_file():
        for s in _splits(split):
            for cond in CONDITIONS:
                items += read_file(d / f"da_{cond}_stereotyped_type1_{s}.txt", lang="da",
                                   condition=cond, wb_type=1, split=s, numbered=False)
        return items
    raise DataError(f"{d}: no DaWinoBias files (expected {GENDA_FILES['pro']} or "
                    "da_pro_stereotyped_type1_dev.txt)")
