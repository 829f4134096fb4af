"""StereoSet intrasentence (Nadeem, Bethke & Reddy 2021, ACL) loader.

Two formats are read:

- the canonical ``dev.json``: ``{"data": {"intrasentence": [{"id", "target",
  "bias_type", "context", "sentences": [{"sentence", "gold_label"}, ...]}]}}``;
- the flattened copy in ``stereoset_dev_flat.json``:
  ``{"stereotype": [...], "anti-stereotype": [...], "unrelated": [...]}``, three
  lists aligned by index, each entry ``{context, sentence, bias_type, label,
  id, target}``. Intrasentence items are those whose ``context`` holds
  ``BLANK``; intersentence items are skipped.

Errors (malformed JSON, missing keys, lists that are not aligned) raise
:class:`~genderscope.errors.DataError` with the file and the item index or the
JSON line/column; sentences are never printed (the data contain offensive
stereotypes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from genderscope.errors import DataError, where
from genderscope.files import read_text

LABELS = ("stereotype", "anti-stereotype", "unrelated")
FLAT_FILE = "stereoset_dev_flat.json"
BLANK = "BLANK"


@dataclass(frozen=True)
class StereoSetItem:
    item_id: str
    target: str
    bias_type: str
    context: str  # with "BLANK"
    stereotype: str
    anti_stereotype: str
    unrelated: str
    path: str
    index: int
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("path",)  # where from: not keyed (engine/keys.py)

    def sentences(self) -> tuple[str, str, str]:
        return self.stereotype, self.anti_stereotype, self.unrelated


def _need(obj: Any, keys: tuple[str, ...], p: Path, what: str) -> None:
    if not isinstance(obj, dict):
        raise DataError(f"{p}: {what} is not a JSON object")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise DataError(f"{p}: {what} lacks key(s) {', '.join(missing)}")


def load_stereoset(path: str | Path, *, bias_types: tuple[str, ...] | None = None
                   ) -> list[StereoSetItem]:
    """Intrasentence items (a folder holding ``stereoset_dev_flat.json`` also works)."""
    p = Path(path)
    if p.is_dir():
        cand = [p / FLAT_FILE, p / "dev.json", p / "test.json"]
        p = next((c for c in cand if c.is_file()), cand[0])
    try:
        data = json.loads(read_text(p, "StereoSet file"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{where(p, exc.lineno)}: invalid JSON at column {exc.colno} "
                        f"({exc.msg})") from None
    if isinstance(data, dict) and "data" in data:
        items = _canonical(data, p)
    elif isinstance(data, dict) and all(k in data for k in LABELS):
        items = _flat(data, p)
    else:
        raise DataError(f"{p}: unrecognised StereoSet format (expected the canonical "
                        "{'data': {'intrasentence': [...]}} or the flattened "
                        "{'stereotype', 'anti-stereotype', 'unrelated'} lists)")
    if bias_types:
        items = [it for it in items if it.bias_type in bias_types]
    if not items:
        raise DataError(f"{p}: no intrasentence items")
    return items


def _flat(data: dict[str, Any], p: Path) -> list[StereoSetItem]:
    lists = [data[k] for k in LABELS]
    if not all(isinstance(x, list) for x in lists):
        raise DataError(f"{p}: 'stereotype', 'anti-stereotype', 'unrelated' must be lists")
    n = len(lists[0])
    if any(len(x) != n for x in lists):
        raise DataError(f"{p}: lists are not aligned (lengths "
                        f"{', '.join(str(len(x)) for x in lists)})")
    keys = ("context", "sentence", "bias_type", "id", "target")
    items = []
    for i in range(n):
        entries = [x[i] for x in lists]
        for lab, e in zip(LABELS, entries, strict=True):
            _need(e, keys, p, f"item {i} of '{lab}'")
        if len({e["id"] for e in entries}) != 1 or len({e["context"] for e in entries}) != 1:
            raise DataError(f"{p}: item {i} differs in id or context between the three lists")
        ctx = entries[0]["context"]
        if BLANK not in ctx:
            continue  # intersentence
        items.append(StereoSetItem(str(entries[0]["id"]), str(entries[0]["target"]),
                                   str(entries[0]["bias_type"]), ctx,
                                   *(str(e["sentence"]) for e in entries), path=str(p), index=i))
    return items


def _canonical(data: dict[str, Any], p: Path) -> list[StereoSetItem]:
    intra = data["data"].get("intrasentence") if isinstance(data["data"], dict) else None
    if not isinstance(intra, list):
        raise DataError(f"{p}: 'data.intrasentence' is missing or not a list")
    items = []
    for i, ex in enumerate(intra):
        _need(ex, ("id", "target", "bias_type", "context", "sentences"), p,
              f"intrasentence item {i}")
        by_label: dict[str, str] = {}
        for s in ex["sentences"]:
            _need(s, ("sentence", "gold_label"), p, f"a sentence of intrasentence item {i}")
            by_label[s["gold_label"]] = s["sentence"]
        missing = [lab for lab in LABELS if lab not in by_label]
        if missing:
            raise DataError(f"{p}: intrasentence item {i} lacks {', '.join(missing)} sentence(s)")
        items.append(StereoSetItem(str(ex["id"]), str(ex["target"]), str(ex["bias_type"]),
                                   str(ex["context"]), *(by_label[lab] for lab in LABELS),
                                   path=str(p), index=i))
    return items
