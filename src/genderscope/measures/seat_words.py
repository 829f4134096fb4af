"""Which source word each SEAT sentence was made from (docs/measures/weat.md).

SEAT (May et al. 2019, Sec. 2) turns each WEAT word into several "semantically bleached"
sentences; the test files keep only the sentences. Each sentence is split as template +
filler (up to ``MAX_FILLER`` tokens, no leading article) over the test's four sets; the
split kept has the template with the most distinct fillers and the filler in the most
distinct templates (the larger minimum of the two counts), ties to the filler whose
tokens occur in fewer sets, then the shorter. Fillers compare lowercased and singular,
tokens in three or more sets dropped. A sentence no split explains is its own unit, as
is every entry of a word-level test. The source word is the unit of independence of a
SEAT test (the sentences of one word share its association).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

ARTICLES = frozenset({"a", "an", "the"})
IRREGULAR = {"women": "woman", "men": "man", "children": "child", "people": "person"}
MAX_FILLER = 4
PHRASE_TOKENS = 3
"""Entries of at most this many tokens are words or phrases, not template sentences."""
_TOKEN = re.compile(r"\w[\w'-]*|[^\w\s]")


def _norm(token: str) -> str:
    t = token.lower()
    if t in IRREGULAR:
        return IRREGULAR[t]
    if len(t) > 4 and t.endswith("ies"):
        return t[:-3] + "y"
    if len(t) > 5 and t.endswith(("sses", "uses", "xes", "ches", "shes")):
        return t[:-2]
    if len(t) > 3 and t.endswith("s") and not t.endswith(("ss", "us", "is")):
        return t[:-1]
    return t


def _splits(tokens: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(template, normalised filler tokens) for every admissible filler span."""
    low = [t.lower() for t in tokens]
    out = []
    for a in range(len(low)):
        for b in range(a + 1, min(len(low), a + MAX_FILLER) + 1):
            span = low[a:b]
            if span[0] in ARTICLES or not (re.match(r"\w", span[0]) and re.match(r"\w",
                                                                                  span[-1])):
                continue
            template = " ".join(["a" if t == "an" else t for t in low[:a]] + ["{}"] + low[b:])
            out.append((template, tuple(_norm(t) for t in span)))
    return out


def source_words(sets: Sequence[Sequence[str]]) -> list[list[str]]:
    """For each set, one label per entry: its source word, else the entry itself."""
    tokens = [[_TOKEN.findall(e) for e in entries] for entries in sets]
    if all(len(t) <= PHRASE_TOKENS for entries in tokens for t in entries):
        return [list(entries) for entries in sets]
    splits = [[_splits(t) for t in entries] for entries in tokens]
    fillers_of: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    templates_of: dict[tuple[str, ...], set[str]] = defaultdict(set)
    sets_of: dict[str, set[int]] = defaultdict(set)
    for k, entries in enumerate(splits):
        for sp in entries:
            for template, filler in sp:
                fillers_of[template].add(filler)
                templates_of[filler].add(template)
                for t in filler:
                    sets_of[t].add(k)
    out = []
    for entries, raw in zip(splits, sets, strict=True):
        labels = []
        for sp, entry in zip(entries, raw, strict=True):
            best: tuple[str, ...] | None = None
            key: tuple[int, int, int] | None = None
            for template, filler in sp:
                score = min(len(fillers_of[template]), len(templates_of[filler]))
                cand = (score, -max(len(sets_of[t]) for t in filler), -len(filler))
                if score >= 2 and (key is None or cand > key):
                    best, key = filler, cand
            if best is None:
                labels.append(entry)
                continue
            own = [t for t in best if len(sets_of[t]) < 3] or list(best)
            labels.append(" ".join(own))
        out.append(labels)
    return out
