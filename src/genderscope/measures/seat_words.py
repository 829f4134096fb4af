"""Which source word each SEAT sentence was made from.

SEAT (May et al. 2019, Sec. 2) turns each word of a WEAT set into several
"semantically bleached" sentences ("This is John.", "John is here.", ...). The test
files keep only the sentences, so the word each one came from is recovered here:
template tokens are the articles and those that occur in sentences of at least two of
the test's four sets ("this", "is", "person", "."); what a sentence has left, lowercased and with
a plural ending undone ("Careers" -> "career", "symphonies" -> "symphony"), is its
source word. A sentence with nothing left is its own unit, so plain word lists (WEAT)
map every entry to itself.

The source word is the unit of independence of a SEAT test: the sentences of one
word share that word's association, so a test or bootstrap over sentences counts the
same word 8 times (issue 22: false-positive rate 0.48 two-sided).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

ARTICLES = frozenset({"a", "an", "the"})
"""Template tokens even where only one set uses them ("This is an equation.")."""
_TOKEN = re.compile(r"\w[\w'-]*|[^\w\s]")


def _norm(token: str) -> str:
    t = token.lower()
    if len(t) > 4 and t.endswith("ies"):
        return t[:-3] + "y"
    if len(t) > 3 and t.endswith("s") and not t.endswith(("ss", "us", "is")):
        return t[:-1]
    return t


def source_words(sets: Sequence[Sequence[str]]) -> list[list[str]]:
    """For each set, one label per entry: its source word, else the entry itself."""
    toks = [[[_norm(t) for t in _TOKEN.findall(e)] for e in entries] for entries in sets]
    seen_in: dict[str, set[int]] = {}
    for k, entries in enumerate(toks):
        for tokens in entries:
            for t in tokens:
                seen_in.setdefault(t, set()).add(k)
    out = []
    for entries, raw in zip(toks, sets, strict=True):
        labels = []
        for tokens, entry in zip(entries, raw, strict=True):
            own = [t for t in tokens if len(seen_in[t]) == 1 and t not in ARTICLES
                   and re.match(r"\w", t)]
            labels.append(" ".join(own) if own else entry)
        out.append(labels)
    return out
