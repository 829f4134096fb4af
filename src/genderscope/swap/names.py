"""First-name swapping with frequency matching (Maudslay et al. 2019, "It's All in the
Name", EMNLP, Sec. 3.2).

Each male first name is paired with a female name of similar frequency, from the 1990 US
Census lists the ``names`` package ships (``dist.male.first`` / ``dist.female.first``,
read at run time). A name is gendered only if one sex holds at least ``majority`` (0.9)
of its frequency; names rarer than ``min_freq`` percent (0.005), common capitalised words
(:data:`COMMON_WORDS`) and names the word-pair list covers are left out. Both sides are
sorted by frequency (ties by a seeded shuffle) and paired by rank, the minimum-cost 1-D
matching; the larger side's surplus maps one way to the nearest frequency.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from genderscope.errors import DataError, where
from genderscope.swap.pairs import PairList

COMMON_WORDS: frozenset[str] = frozenset(
    """
in my many soon so see an else less will may can van le les la de del january february
march april may june july august september october november december monday tuesday
wednesday thursday friday saturday sunday season summer winter autumn hope joy faith
grace love mark art grant earl guy major young page long lane miles dawn chance chase
cliff dale glen heath king prince duke baron price carter cook clay hunter mason
christian angel god golden royal ward wade son buck chip sky star storm sun santa german
roman irish french english america american france china india paris lincoln washington
jackson madison austin houston virginia georgia carolina dakota florida victoria london
sterling
""".split()  # noqa: SIM905
)
"""Names that are also common words or place names: never treated as names."""


@dataclass
class NameMap:
    """Deterministic first-name swaps (lower-case keys and values)."""

    m2f: dict[str, str] = field(default_factory=dict)
    f2m: dict[str, str] = field(default_factory=dict)
    neutral: set[str] = field(default_factory=set)
    source: str = "<names>"
    seed: int = 0

    def swap(self, name: str) -> str | None:
        """The counterpart of ``name`` (any case) in lower case, or None."""
        w = name.lower()
        return self.m2f.get(w) or self.f2m.get(w)

    gender_of = PairList.gender_of  # the same look-up in the same two maps

    def is_name(self, word: str) -> bool:
        w = word.lower()
        return w in self.m2f or w in self.f2m or w in self.neutral

    def __len__(self) -> int:
        return len(self.m2f) + len(self.f2m)


def _read_census(text: str, source: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 2:
            raise DataError(f"expected 'NAME FREQUENCY ...' at {where(source, n)}")
        try:
            out[parts[0].lower()] = float(parts[1])
        except ValueError:
            raise DataError(f"frequency {parts[1]!r} is not a number at "
                            f"{where(source, n)}") from None
    return out


def census_frequencies() -> tuple[dict[str, float], dict[str, float]]:
    """(male, female) first-name frequencies (percent) from the ``names`` package."""
    try:
        pkg = resources.files("names")
        male = pkg.joinpath("dist.male.first").read_text(encoding="utf-8")
        female = pkg.joinpath("dist.female.first").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise DataError("first-name lists not found: install the 'names' package "
                        f"(pip install names) or pass a name list ({exc})") from None
    return _read_census(male, "names/dist.male.first"), _read_census(female,
                                                                       "names/dist.female.first")


def build_name_map(male: dict[str, float], female: dict[str, float], *, seed: int = 0,
                   majority: float = 0.9, min_freq: float = 0.005, exclude: Iterable[str] = (),
                   source: str = "<names>") -> NameMap:
    """Frequency-matched name pairs (see module docstring)."""
    excluded = {w.lower() for w in exclude} | COMMON_WORDS
    m_only: dict[str, float] = {}
    f_only: dict[str, float] = {}
    neutral: set[str] = set()
    for name in set(male) | set(female):
        if name in excluded:
            continue
        fm, ff = male.get(name, 0.0), female.get(name, 0.0)
        total = fm + ff
        if total < min_freq:
            continue
        if fm / total >= majority:
            m_only[name] = fm
        elif ff / total >= majority:
            f_only[name] = ff
        else:
            neutral.add(name)
    rng = np.random.default_rng(seed)

    def ranked(freqs: dict[str, float]) -> list[str]:
        names = sorted(freqs)
        tiebreak = rng.permutation(len(names))
        order = sorted(range(len(names)), key=lambda i: (-freqs[names[i]], tiebreak[i]))
        return [names[i] for i in order]

    ms, fs = ranked(m_only), ranked(f_only)
    out = NameMap(neutral=neutral, source=source, seed=seed)
    k = min(len(ms), len(fs))
    for a, b in zip(ms[:k], fs[:k], strict=True):
        out.m2f[a] = b
        out.f2m[b] = a
    _nearest(ms[k:], m_only, fs[:k], f_only, out.m2f)
    _nearest(fs[k:], f_only, ms[:k], m_only, out.f2m)
    return out


def _nearest(rest: list[str], rest_freq: dict[str, float], pool: list[str],
             pool_freq: dict[str, float], into: dict[str, str]) -> None:
    """Map each name in ``rest`` to the ``pool`` name of nearest frequency."""
    if not rest or not pool:
        return
    asc = sorted(pool, key=lambda n: pool_freq[n])
    keys = [pool_freq[n] for n in asc]
    for name in rest:
        f = rest_freq[name]
        i = bisect.bisect_left(keys, f)
        cands = [j for j in (i - 1, i) if 0 <= j < len(asc)]
        j = min(cands, key=lambda j: (abs(keys[j] - f), -j))
        into[name] = asc[j]


def default_name_map(seed: int = 0, exclude: Iterable[str] = ()) -> NameMap:
    """The census-based name map (``names`` package)."""
    male, female = census_frequencies()
    return build_name_map(male, female, seed=seed, exclude=exclude,
                          source="US Census 1990 first names (names package)")
