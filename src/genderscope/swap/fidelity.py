"""Fidelity of the swapper against a published swapped corpus (Bartl et al.'s flipped GAP).

Texts are split into tokens (word runs or single punctuation marks); documents whose
original, reference and our version have as many tokens are compared position by
position, the rest counted and left out. Each position that either side changed is put
in a category by the original word: ``her``, ``pronoun``, ``gendered word`` (our pair
list, or a lower-case word the reference changed), ``name`` (capitalised) or ``other``.
Per category: ``ref_changed``, ``ours_changed``, ``both_changed``, ``exact`` and
``agreement`` = exact / either changed; for names read ``change_agreement`` (both changed
/ either changed), as the replacement name is arbitrary.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from genderscope.errors import DataError
from genderscope.swap.swapper import GenderSwapper

_TOKEN = re.compile(r"\w+|[^\w\s]")
PRONOUNS = frozenset({"he", "she", "him", "his", "hers", "himself", "herself"})
CATEGORIES = ("pronoun", "her", "gendered word", "name", "other")
GAP_SPLITS = ("gap-development.tsv", "gap-test.tsv", "gap-validation.tsv")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@dataclass
class Fidelity:
    """Per-category agreement table, examples of disagreements, and document counts."""

    table: pd.DataFrame
    examples: pd.DataFrame
    n_docs: int
    n_compared: int
    token_agreement: float
    patterns: pd.DataFrame | None = None

    def category(self, name: str) -> dict[str, float]:
        return self.table.set_index("category").loc[name].to_dict()


def _category(orig: str, ref_changed: bool, swapper: GenderSwapper) -> str:
    low = orig.lower()
    if low == "her":
        return "her"
    if low in PRONOUNS:
        return "pronoun"
    if swapper.pairs.gender_of(low) is not None or (ref_changed and orig.islower()):
        return "gendered word"
    if orig[:1].isupper():
        return "name"
    return "other"


def compare_swaps(originals: Iterable[tuple[str, str]], references: dict[str, str],
                  swapper: GenderSwapper, max_examples: int = 40) -> Fidelity:
    """Compare ``swapper`` on (id, text) pairs with reference swapped texts by id."""
    counts = {c: dict.fromkeys(("ref_changed", "ours_changed", "both_changed",
                                "either_changed", "exact"), 0) for c in CATEGORIES}
    examples: list[dict[str, str]] = []
    patterns: Counter[tuple[str, str, str, str]] = Counter()
    n_docs = n_compared = n_tok = n_same = 0
    for doc_id, text in originals:
        ref = references.get(doc_id)
        if ref is None:
            continue
        n_docs += 1
        o, r, s = tokens(text), tokens(ref), tokens(swapper.swap(text).text)
        if not (len(o) == len(r) == len(s)):
            continue
        n_compared += 1
        for a, b, c in zip(o, r, s, strict=True):
            n_tok += 1
            n_same += b == c
            rc, oc = a != b, a != c
            if not (rc or oc):
                continue
            cat = _category(a, rc, swapper)
            row = counts[cat]
            row["ref_changed"] += rc
            row["ours_changed"] += oc
            row["both_changed"] += rc and oc
            row["either_changed"] += 1
            row["exact"] += b == c
            if b != c and cat != "name":
                patterns[(cat, a.lower(), b.lower(), c.lower())] += 1
            if b != c and cat != "name" and len(examples) < max_examples:
                examples.append({"id": doc_id, "category": cat, "original": a,
                                 "reference": b, "ours": c})
    rows = []
    for cat in CATEGORIES:
        row = counts[cat]
        either = row["either_changed"]
        rows.append({"category": cat, **row,
                     "agreement": row["exact"] / either if either else float("nan"),
                     "change_agreement": row["both_changed"] / either if either
                     else float("nan")})
    pat = pd.DataFrame([(*k, v) for k, v in patterns.most_common()],
                       columns=["category", "original", "reference", "ours", "count"])
    return Fidelity(pd.DataFrame(rows), pd.DataFrame(examples), n_docs, n_compared,
                    n_same / n_tok if n_tok else float("nan"), pat)


def _read_tsv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, sep="\t", quoting=3, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None


def gap_fidelity(data_dir: str | Path, swapper: GenderSwapper | None = None,
                 limit: int | None = None) -> Fidelity:
    """Swap GAP (all splits) and compare with ``gap-flipped-bartl/gap_flipped.tsv``."""
    root = Path(data_dir)
    flipped = _read_tsv(root / "gap-flipped-bartl" / "gap_flipped.tsv")
    for col in ("ID", "Text"):
        if col not in flipped.columns:
            raise DataError(f"column {col!r} missing in {root / 'gap-flipped-bartl'}")
    refs = dict(zip(flipped["ID"], flipped["Text"], strict=True))
    originals: list[tuple[str, str]] = []
    for split in GAP_SPLITS:
        df = _read_tsv(root / "gap" / split)
        originals += list(zip(df["ID"], df["Text"], strict=True))
    if limit is not None:
        originals = originals[:limit]
    return compare_swaps(originals, refs, swapper or GenderSwapper())
