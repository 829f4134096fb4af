"""Counterfactual gender swapping of a text (word pairs + first names).

:class:`GenderSwapper` replaces every gendered word of a pair list by its
counterpart (both directions at once: "he" -> "she" and "she" -> "he") and,
optionally, every gendered first name by a frequency-matched name of the other
gender (Maudslay et al. 2019). Whole words only ("manager" and "Herbert" stay),
case is kept ("He" -> "She", "HIS" -> "HER"), punctuation and spacing are
untouched, multi-word entries match across single spaces. "her"/"his" are
resolved by part of speech (:mod:`genderscope.swap.pos`).

Surnames: a listed first name directly after another capitalised name-like
word ("Phoebe Thomas") is taken as a surname and left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from genderscope.casing import match_case
from genderscope.swap.names import NameMap, default_name_map
from genderscope.swap.pairs import PairList, load_pairs
from genderscope.swap.pos import Tagger, make_tagger

_WORD = r"[^\W\d_]+"


@dataclass(frozen=True)
class SwapResult:
    """A swapped text, the number of swaps, and (original, replacement) pairs."""

    text: str
    n_swaps: int
    swapped_words: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class GenderedWord:
    """A gendered word found in a text: ``gender`` is "m" or "f"; ``kind`` "word"/"name"."""

    word: str
    gender: str
    start: int
    end: int
    kind: str


class GenderSwapper:
    """Swap gendered words (and optionally first names) in a text.

    Args:
        pairs: a :class:`PairList`, a path to a TSV list, or None for the
            packaged English list.
        extra_pairs: further lists merged into ``pairs`` (conflicts raise
            :class:`~genderscope.errors.DataError`).
        names: swap first names: True (census name map, seeded), False, or a
            :class:`NameMap`.
        seed: seed of the name matching's tie-breaks.
        tagger: "auto" (spaCy if installed, else heuristic), "heuristic",
            "spacy", or a tagger object.
    """

    def __init__(self, pairs: PairList | str | Path | None = None, *,
                 extra_pairs: list[PairList | str | Path] | None = None,
                 names: bool | NameMap = True, seed: int = 0,
                 tagger: str | Tagger = "auto") -> None:
        plist = pairs if isinstance(pairs, PairList) else load_pairs(pairs)
        for extra in extra_pairs or []:
            plist = plist.merged(extra if isinstance(extra, PairList) else load_pairs(extra))
        self.pairs = plist
        if names is True:
            single = {w for w in set(plist.m2f) | set(plist.f2m) if " " not in w}
            self.names: NameMap | None = default_name_map(seed=seed, exclude=single)
        elif names is False:
            self.names = None
        else:
            self.names = names
        self.tagger: Tagger = make_tagger(tagger) if isinstance(tagger, str) else tagger
        multi = sorted((w for w in set(plist.m2f) | set(plist.f2m) if " " in w),
                       key=len, reverse=True)
        alts = [r"\s+".join(re.escape(p) for p in w.split()) for w in multi]
        multi_re = "|".join(alts)
        pattern = (rf"(?<!\w)(?P<multi>{multi_re})(?!\w)|" if multi_re else "") + \
            rf"(?<!\w)(?<!\w')(?P<word>{_WORD})"
        self._re = re.compile(pattern, re.IGNORECASE)

    def describe(self) -> dict[str, object]:
        return {"pairs": self.pairs.source, "n_pairs": len(self.pairs),
                "names": self.names.source if self.names else None,
                "name_seed": self.names.seed if self.names else None,
                "tagger": self.tagger.name}

    # -- finding -------------------------------------------------------------
    def _classify(self, m: re.Match[str], prev_name_end: int) -> tuple[str, str] | None:
        """(gender, kind) of a matched token, or None if it is not gendered."""
        tok = m.group(0)
        key = " ".join(tok.lower().split())
        g = self.pairs.gender_of(key)
        if g is not None:
            return g, "word"
        if self.names is None or not tok[:1].isupper():
            return None
        if not (tok.istitle() or tok.isupper()):
            return None
        if prev_name_end >= 0 and m.string[prev_name_end:m.start()] == " ":
            return None  # surname position: "Phoebe Thomas"
        g = self.names.gender_of(key)
        return (g, "name") if g is not None else None

    def _tokens(self, text: str):
        prev_name_end = -1
        for m in self._re.finditer(text):
            tok = m.group(0)
            cls = self._classify(m, prev_name_end)
            if self.names is not None and tok[:1].isupper() and (
                    (cls is not None and cls[1] == "name") or self.names.is_name(tok)):
                prev_name_end = m.end()
            elif tok[:1].isupper() and prev_name_end >= 0 and \
                    text[prev_name_end:m.start()] == " ":
                prev_name_end = m.end()  # chain of capitalised words ("Mary Ann Smith")
            else:
                prev_name_end = -1
            yield m, cls

    def gendered_words(self, text: str) -> list[GenderedWord]:
        """Gendered words and names in ``text``, in order."""
        return [GenderedWord(m.group(0), cls[0], m.start(), m.end(), cls[1])
                for m, cls in self._tokens(text) if cls is not None]

    def direction(self, text: str) -> str:
        """"m2f" if the text has only male terms, "f2m" if only female, "mixed" or "none"."""
        genders = Counter(w.gender for w in self.gendered_words(text))
        if genders["m"] and genders["f"]:
            return "mixed"
        if genders["m"]:
            return "m2f"
        if genders["f"]:
            return "f2m"
        return "none"

    # -- swapping ------------------------------------------------------------
    def _replacement(self, text: str, m: re.Match[str], gender: str, kind: str) -> str:
        tok = m.group(0)
        key = " ".join(tok.lower().split())
        if kind == "name":
            assert self.names is not None
            new = self.names.swap(key) or key
            return match_case(tok, new) if tok.isupper() else new.capitalize()
        table = self.pairs.m2f if gender == "m" else self.pairs.f2m
        options = table[key]
        if len(options) == 1:
            new = next(iter(options))
        elif key == "her":
            new = "his" if self.tagger.her_is_possessive(text, m.start(), m.end()) else "him"
        elif key == "his":
            new = "her" if self.tagger.his_is_determiner(text, m.start(), m.end()) else "hers"
        else:  # pragma: no cover - PairList forbids other ambiguities
            new = sorted(options)[0]
        return match_case(tok, new)

    def swap(self, text: str) -> SwapResult:
        """Swap every gendered word and name of ``text`` to the other gender."""
        out: list[str] = []
        swapped: list[tuple[str, str]] = []
        last = 0
        for m, cls in self._tokens(text):
            if cls is None:
                continue
            new = self._replacement(text, m, *cls)
            out.append(text[last:m.start()])
            out.append(new)
            last = m.end()
            if new != m.group(0):
                swapped.append((m.group(0), new))
        out.append(text[last:])
        return SwapResult("".join(out), len(swapped), swapped)

    def __call__(self, text: str) -> str:
        return self.swap(text).text
