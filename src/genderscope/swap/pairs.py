"""Gender word-pair lists: loading, validation and the two swap directions.

A list is a tab-separated file with lines ``male<TAB>female[<TAB>direction]``
(``direction`` is ``both`` (default), ``m2f`` or ``f2m``); ``#`` starts a
comment. Words are matched case-insensitively; multi-word entries are words
separated by single spaces.

A word may be mapped to only one counterpart per direction. The one
exception is the set :data:`RESOLVED` (``her`` -> his/him, ``his`` -> her/hers),
which the swapper resolves by part of speech. Any other word mapped two ways
is a conflict and raises :class:`~genderscope.errors.DataError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from genderscope.errors import DataError, where
from genderscope.files import read_text

DIRECTIONS = ("both", "m2f", "f2m")
RESOLVED: dict[str, frozenset[str]] = {
    "her": frozenset({"his", "him"}),   # female -> male
    "his": frozenset({"her", "hers"}),  # male -> female
}
"""Words allowed two counterparts; the swapper picks one from context."""

DEFAULT_LIST = "swap_pairs_en.tsv"


@dataclass
class PairList:
    """Both directions of a word-pair list.

    ``m2f[w]`` / ``f2m[w]``: the counterpart set of lower-cased word ``w``
    (one word, except for the words in :data:`RESOLVED`).
    """

    m2f: dict[str, set[str]] = field(default_factory=dict)
    f2m: dict[str, set[str]] = field(default_factory=dict)
    source: str = "<pairs>"
    entries: list[tuple[str, str, str, str]] = field(default_factory=list)

    def counterparts(self, word: str) -> set[str]:
        """All counterparts of ``word`` (lower case), in either direction."""
        w = word.lower()
        return self.m2f.get(w, set()) | self.f2m.get(w, set())

    def gender_of(self, word: str) -> str | None:
        """``"m"``, ``"f"`` or None for a word not in the list."""
        w = word.lower()
        return "m" if w in self.m2f else "f" if w in self.f2m else None

    def add(self, male: str, female: str, direction: str = "both",
            *, origin: str = "<pairs>") -> None:
        """Add one pair; raises DataError on a conflict."""
        male, female = _norm(male), _norm(female)
        if not male or not female:
            raise DataError(f"empty word in pair at {origin}")
        if direction not in DIRECTIONS:
            raise DataError(f"unknown direction {direction!r} at {origin}; "
                            f"use one of {', '.join(DIRECTIONS)}")
        if male == female:
            raise DataError(f"word {male!r} is paired with itself at {origin}")
        self.entries.append((male, female, direction, origin))
        if direction in ("both", "m2f"):
            _put(self.m2f, male, female, origin)
        if direction in ("both", "f2m"):
            _put(self.f2m, female, male, origin)
        clash = (set(self.m2f) & set(self.f2m))
        if clash:
            w = sorted(clash)[0]
            raise DataError(f"word {w!r} is listed as both male and female at {origin}")

    def merged(self, other: PairList) -> PairList:
        """A new list with ``other``'s pairs added (conflicts raise DataError)."""
        out = PairList(source=f"{self.source}+{other.source}")
        for male, female, direction, origin in [*self.entries, *other.entries]:
            out.add(male, female, direction, origin=origin)
        return out

    def __len__(self) -> int:
        return len(set(self.m2f) | set(self.f2m))


def _norm(word: str) -> str:
    return " ".join(word.strip().lower().split())


def _put(table: dict[str, set[str]], key: str, value: str, origin: str) -> None:
    have = table.setdefault(key, set())
    if value in have:
        return
    if have and key not in RESOLVED:
        raise DataError(f"word {key!r} is mapped two ways ({sorted(have)[0]!r} and "
                        f"{value!r}) at {origin}")
    if key in RESOLVED and value not in RESOLVED[key]:
        raise DataError(f"word {key!r} may only map to {sorted(RESOLVED[key])}, "
                        f"not {value!r}, at {origin}")
    have.add(value)


def parse_pairs(lines: Iterable[str], source: str = "<pairs>") -> PairList:
    """Parse the TSV lines of a pair list (see module docstring)."""
    out = PairList(source=source)
    for n, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].rstrip("\n")
        if not line.strip():
            continue
        cols = [c.strip() for c in line.split("\t")]
        if len(cols) not in (2, 3):
            raise DataError(f"expected 'male<TAB>female[<TAB>direction]' at "
                            f"{where(source, n)}, got {len(cols)} column(s)")
        out.add(cols[0], cols[1], cols[2] if len(cols) == 3 else "both",
                origin=where(source, n))
    return out


def load_pairs(path: str | Path | None = None) -> PairList:
    """Load a pair list from ``path``, or the packaged English list when None."""
    if path is None:
        text = resources.files("genderscope.resources").joinpath(DEFAULT_LIST).read_text(
            encoding="utf-8")
        return parse_pairs(text.splitlines(), source=DEFAULT_LIST)
    p = Path(path)
    pairs = parse_pairs(read_text(p, "word-pair list").splitlines(), source=str(p))
    if not len(pairs):
        raise DataError(f"word-pair list {p} has no pairs")
    return pairs
