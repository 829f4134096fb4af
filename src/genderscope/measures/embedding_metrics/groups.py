"""The word sets of a :class:`~genderscope.datasets.query.Query` with any number of
target groups (WEFE's "n" templates: MAC, RNSB) looked up in word vectors.

The rules are those of :func:`._sets.look_up` for a 2 x 2 test: each word through
``vectors.key_for`` (so a look-up wrapper's case and accent rules apply), the first
spelling of a vocabulary entry kept, a set that loses every word or more than
``max_oov`` of them refused, an all-zero vector refused. Roles are ``T1..Tn`` (target
sets) and ``A1..Am`` (attribute sets), in the query's order; each role's category is
its set's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.query import Query
from genderscope.errors import DataError
from genderscope.results import LazyResult, Result


def target_roles(query: Query) -> list[str]:
    return [f"T{i + 1}" for i in range(len(query.targets))]


def attribute_roles(query: Query) -> list[str]:
    return [f"A{i + 1}" for i in range(len(query.attributes))]


@dataclass
class Groups:
    """The in-vocabulary words, vocabulary keys and float64 rows of each role."""

    query: Query
    words: dict[str, list[str]]
    keys: dict[str, list[str]]
    missing: dict[str, list[str]]
    emb: dict[str, np.ndarray]
    model: dict[str, object]

    @property
    def targets(self) -> list[str]:
        return target_roles(self.query)

    @property
    def attributes(self) -> list[str]:
        return attribute_roles(self.query)

    def categories(self) -> dict[str, str]:
        sets = [*self.query.targets, *self.query.attributes]
        return {r: s.category for r, s in zip([*self.targets, *self.attributes], sets,
                                              strict=True)}

    def base_summary(self) -> dict[str, Any]:
        roles = [*self.targets, *self.attributes]
        return {"test": self.query.name, "categories": self.categories(),
                "template": list(self.query.template),
                "sizes": {r: len(self.words[r]) for r in roles},
                "n_oov": {r: len(self.missing[r]) for r in roles}}

    def result(self, method: str, summary: dict[str, Any],
               rows: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]],
               params: dict[str, Any], seed: int) -> Result:
        """The metric's Result (items and the OOV table built when first read)."""
        def build() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
            oov = pd.DataFrame([{"set": r, "text": w} for r in self.missing
                                for w in self.missing[r]], columns=["set", "text"])
            return pd.DataFrame(rows() if callable(rows) else rows), {"oov": oov}

        q = self.query
        data = {"test": q.name, "path": q.path, "file_sha256": q.sha256}
        meta = {"model": self.model, "params": params, "data": data, "seed": seed}
        return LazyResult(method, summary, meta, build, ["oov"])


def look_up_groups(vectors: Any, query: Query, *, max_oov: float,
                   case_fallback: bool = True) -> Groups:
    """Each set's in-vocabulary words, keys and rows (module docstring)."""
    roles = [*target_roles(query), *attribute_roles(query)]
    sets = [*query.targets, *query.attributes]
    words: dict[str, list[str]] = {}
    keys: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    emb: dict[str, np.ndarray] = {}
    for role, ws in zip(roles, sets, strict=True):
        kept, ks, lost = words[role], keys[role], missing[role] = [], [], []
        seen: set[str] = set()
        for w in ws.examples:
            k = vectors.key_for(w, case_fallback=case_fallback)
            if k is None:
                lost.append(w)
            elif k not in seen:  # two spellings of one vocabulary entry count once
                seen.add(k)
                kept.append(w)
                ks.append(k)
        if not kept:
            raise DataError(f"{query.name}: every word of set {role} ({ws.category}) is out "
                            f"of vocabulary: {', '.join(lost[:10])}")
        if len(lost) / len(ws.examples) > max_oov:
            raise DataError(f"{query.name}: {len(lost)} of {len(ws.examples)} words of set "
                            f"{role} ({ws.category}) are out of vocabulary (> {max_oov:.0%} "
                            f"allowed; raise --max-oov to accept): {', '.join(lost[:10])}")
        rows = np.asarray(vectors.vectors(ks), dtype=np.float64)
        zero = ~rows.any(axis=1)
        if zero.any():
            raise DataError(f"{query.name}: the vector of {ks[int(np.flatnonzero(zero)[0])]!r} "
                            f"(set {role}) is all zeros; its direction and cosine are "
                            "undefined")
        emb[role] = rows
    return Groups(query, words, keys, missing, emb, vectors.describe())
