"""Word sets of an association test or a query looked up in word vectors, and the
resampling helpers the embedding metrics share.

Roles follow WEAT (Caliskan et al. 2017): X, Y are the target sets (``targ1``,
``targ2``: e.g. male and female names), A, B the attribute sets (``attr1``, ``attr2``:
e.g. career and family words). A :class:`~genderscope.datasets.query.Query` with any
number of sets (WEFE's "n" templates: MAC, RNSB) has roles ``T1..Tn`` (target sets) and
``A1..Am`` (attribute sets), in the query's order. Vectors are used as stored (not
normalised), as WEFE does by default; each metric says where it takes cosines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.query import Query
from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.errors import DataError
from genderscope.measures.weat import DEFAULT_MAX_OOV, ROLES, _check_roles, _check_sets
from genderscope.results import LazyResult, Result
from genderscope.stats import CI

DEFAULT_RESAMPLES = 10_000
ATTRS = ("A", "B")  # the attribute roles a metric reports one value for


def _roles_and_sets(test: AssociationTest | Query
                    ) -> tuple[list[str], list[str], list[WordSet]]:
    """(target roles, attribute roles, the sets in role order) of a test or query (a
    query's roles: ``T1..Tn``, ``A1..Am``)."""
    if isinstance(test, Query):
        return ([f"T{i + 1}" for i in range(len(test.targets))],
                [f"A{i + 1}" for i in range(len(test.attributes))],
                [*test.targets, *test.attributes])
    return list(ROLES[:2]), list(ROLES[2:]), list(test.sets())


@dataclass
class LookedUp:
    """The in-vocabulary words of each role, their vocabulary keys and float64 rows, of
    a 2 x 2 test (roles X, Y, A, B) or a query (``T1..Tn``, ``A1..Am``)."""

    test: AssociationTest | Query
    words: dict[str, list[str]]
    keys: dict[str, list[str]]
    missing: dict[str, list[str]]
    emb: dict[str, np.ndarray]
    model: dict[str, object]
    targets: list[str] = field(init=False)
    """The target roles, in order (X, Y; or T1..Tn)."""
    attributes: list[str] = field(init=False)
    """The attribute roles, in order (A, B; or A1..Am)."""

    def __post_init__(self) -> None:
        self.targets, self.attributes, sets = _roles_and_sets(self.test)
        self._categories = {r: ws.category
                            for r, ws in zip(self.roles, sets, strict=True)}

    @property
    def roles(self) -> list[str]:
        return [*self.targets, *self.attributes]

    def categories(self) -> dict[str, str]:
        """Role -> category name (one dict, built once: item rows read it per word)."""
        return self._categories

    def base_summary(self) -> dict[str, Any]:
        """Test name, categories (a query's template too), set sizes and OOV counts."""
        template = ({"template": list(self.test.template)} if isinstance(self.test, Query)
                    else {})
        return {"test": self.test.name, "categories": dict(self._categories), **template,
                "sizes": {r: len(self.words[r]) for r in self.roles},
                "n_oov": {r: len(self.missing[r]) for r in self.roles}}

    def oov_table(self) -> pd.DataFrame:
        return pd.DataFrame([{"set": r, "text": w} for r in self.roles
                             for w in self.missing[r]], columns=["set", "text"])

    def metadata(self, params: dict[str, Any], seed: int) -> dict[str, Any]:
        t = self.test
        data = ({"test": t.name, "path": t.path, "file_sha256": t.sha256}
                if isinstance(t, Query) else t.data_meta())
        return {"model": self.model, "params": params, "data": data, "seed": seed}

    def result(self, method: str, summary: dict[str, Any],
               rows: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]],
               params: dict[str, Any], seed: int,
               tables: dict[str, dict[str, Any]] | None = None) -> Result:
        """The metric's Result; its item table (``rows``, or a function making them),
        the further ``tables`` (column dicts) and the OOV table are built as DataFrames
        when first read."""
        extra = dict(tables or {})

        def build() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
            built = {name: pd.DataFrame(cols) for name, cols in extra.items()}
            items = rows() if callable(rows) else rows
            return pd.DataFrame(items), {**built, "oov": self.oov_table()}

        return LazyResult(method, summary, self.metadata(params, seed), build,
                          [*extra, "oov"])


def look_up(vectors: Any, test: AssociationTest | Query, *,
            max_oov: float = DEFAULT_MAX_OOV, case_fallback: bool = True) -> LookedUp:
    """Each set's in-vocabulary words (first occurrence kept, order kept), each word
    through ``vectors.key_for`` (so a look-up wrapper's case and accent rules apply; two
    spellings of one vocabulary entry count once). A set that loses every word, or more
    than ``max_oov`` of them, and a word whose vector is all zeros, are a
    :class:`DataError`; a 2 x 2 test also needs 3 scored targets in X and Y together."""
    targets, attributes, sets = _roles_and_sets(test)
    roles: Sequence[str] = [*targets, *attributes]
    words: dict[str, list[str]] = {}
    keys: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    index = getattr(vectors, "index", None)
    for role, ws in zip(roles, sets, strict=True):
        if index is None:
            found = [vectors.key_for(w, case_fallback=case_fallback) for w in ws.examples]
        else:  # WordVectors.key_for, inlined with the index read once
            found = [w if w in index else low if case_fallback and (low := w.lower()) in index
                     else None for w in ws.examples]
        if None not in found and len(set(found)) == len(found):  # the usual case
            words[role], keys[role], missing[role] = list(ws.examples), found, []
            continue
        kept, ks, lost = words[role], keys[role], missing[role] = [], [], []
        seen: set[str] = set()
        for w, k in zip(ws.examples, found, strict=True):
            if k is None:
                lost.append(w)
            elif k not in seen:  # two spellings of one vocabulary entry count once
                seen.add(k)
                kept.append(w)
                ks.append(k)
    if isinstance(test, Query):
        _check_roles(test.name, roles, sets, words, missing, max_oov)
    else:
        _check_sets(test, words, missing, max_oov)
    # one gather of every set's rows, then split; vectors.vectors names a NaN row
    every = [k for r in roles for k in keys[r]]
    if index is None:
        rows = np.asarray(vectors.vectors(every), dtype=np.float64)
    else:  # np.asarray: no memmap wrapper
        rows = np.asarray(vectors.matrix, dtype=None)[[index[k] for k in every]]
        rows = rows.astype(np.float64, copy=False)
        if not np.isfinite(rows).all():
            vectors.vectors(every)  # raises, naming the words
    zero = ~rows.any(axis=1)
    if zero.any():  # no direction, no cosine: refused as WEAT refuses it, by name
        i = int(np.flatnonzero(zero)[0])
        role = roles[int(np.searchsorted(np.cumsum([len(keys[r]) for r in roles]), i,
                                         side="right"))]
        raise DataError(f"{test.name}: the vector of {every[i]!r} (set {role}) is all zeros; "
                        "its direction and cosine are undefined")
    emb, lo = {}, 0
    for r in roles:
        emb[r] = rows[lo:lo + len(keys[r])]
        lo += len(keys[r])
    return LookedUp(test, words, keys, missing, emb, vectors.describe())


def unit_rows(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm; an all-zero row is a :class:`DataError`."""
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    if np.any(norms == 0):
        raise DataError("a word has an all-zero vector; cosine is undefined")
    return m / norms


def resample_counts(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """(n_resamples, n) multiplicities of a bootstrap resample of n units each."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)


def percentile_ci(estimate: float, draws: np.ndarray, *, n: int, unit: str,
                  confidence: float = 0.95, method: str = "percentile bootstrap") -> CI:
    """Percentile interval of bootstrap ``draws`` (non-finite draws dropped)."""
    d = draws[np.isfinite(draws)] if draws.size >= 2 else draws  # none: the estimate alone
    if d.size < 2:
        return CI(estimate, float("nan"), float("nan"), confidence, n, method, unit)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(d, [alpha, 1 - alpha])
    return CI(float(estimate), float(lo), float(hi), confidence, n, method, unit)


def ci_fields(estimate: float, draws: np.ndarray, *, n: int, unit: str) -> dict[str, Any]:
    """``percentile_ci(...).as_dict()``; with no draws (an estimate-only call) the same
    dict is written out directly, without the frozen dataclass round trip."""
    if draws.size:
        return percentile_ci(estimate, draws, n=n, unit=unit).as_dict()
    return {"estimate": estimate, "ci_low": float("nan"), "ci_high": float("nan"),
            "confidence": 0.95, "n": n, "method": "percentile bootstrap", "ci_unit": unit}
