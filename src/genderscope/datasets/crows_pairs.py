"""CrowS-Pairs (Nangia et al. 2020, EMNLP) loader.

``crows_pairs_anonymized.csv``: comma-separated, quoted, one pair per record
with columns ``sent_more`` (the more stereotypical sentence), ``sent_less`` (the
less stereotypical one), ``stereo_antistereo`` and ``bias_type``. The direction
says which sentence is about the historically disadvantaged group: ``stereo``:
``sent_more`` demonstrates a stereotype about it; ``antistereo``: ``sent_less``
violates a stereotype about it (and ``sent_more``, about the contrasting
advantaged group, is still the more stereotypical statement). Data README and
the reference ``metric.py`` (``read_data`` puts the disadvantaged-group
sentence first, then counts ``sent_more`` winning in both directions).

The data contain offensive statements: error messages name the file, line and
column, never the sentence.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from genderscope.errors import DataError, where

REQUIRED = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
DIRECTIONS = ("stereo", "antistereo")
FILE = "crows_pairs_anonymized.csv"


@dataclass(frozen=True)
class CrowsPair:
    pair_id: int
    sent_more: str
    sent_less: str
    direction: str  # "stereo" | "antistereo"
    bias_type: str
    path: str
    line: int
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("path",)  # where from: not keyed (engine/keys.py)


def load_crows_pairs(path: str | Path) -> list[CrowsPair]:
    """All pairs of the CSV (a folder holding ``crows_pairs_anonymized.csv`` also works)."""
    p = Path(path)
    if p.is_dir():
        p = p / FILE
    if not p.is_file():
        raise DataError(f"CrowS-Pairs file not found: {p}")
    pairs: list[CrowsPair] = []
    start = 1  # line where the record being read starts
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise DataError(f"{where(p, 1)}: missing column(s) {', '.join(missing)} "
                                f"(found: {', '.join(h for h in header if h) or 'none'})")
            start = reader.line_num + 1
            for k, row in enumerate(reader):
                line = start
                start = reader.line_num + 1
                if None in row or any(row.get(c) is None for c in REQUIRED):
                    raise DataError(f"{where(p, line)}: expected {len(header)} fields")
                for col in ("sent_more", "sent_less", "bias_type"):
                    if not row[col].strip():
                        raise DataError(f"{where(p, line, col)}: empty value")
                if row["sent_more"].strip() == row["sent_less"].strip():  # no minimal pair
                    raise DataError(f"{where(p, line)}: sent_more and sent_less are identical; "
                                    "a pair must differ in at least one word")
                direction = row["stereo_antistereo"].strip()
                if direction not in DIRECTIONS:
                    raise DataError(f"{where(p, line, 'stereo_antistereo')}: expected 'stereo' "
                                    f"or 'antistereo', got {direction[:20]!r}")
                pairs.append(CrowsPair(k, row["sent_more"].strip(), row["sent_less"].strip(),
                                       direction, row["bias_type"].strip(), str(p), line))
    except UnicodeDecodeError as exc:
        raise DataError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise DataError(f"{where(p, start)}: malformed CSV ({exc})") from None
    if not pairs:
        raise DataError(f"{p}: no pairs")
    return pairs
