"""A query: named target sets and named attribute sets, as WEFE's ``Query`` (Badilla,
Bravo-Marquez & Pérez 2020, "WEFE: The Word Embeddings Fairness Evaluation Framework",
IJCAI, Sec. 3), built in Python or read from a JSON or YAML file::

    name: gender-career                      # optional; WEFE's "T1 and T2 wrt A1" otherwise
    targets:                                 # name -> words, in order
      Male terms: [he, him, his, man]
      Female terms: [she, her, hers, woman]
    attributes:
      Career: [executive, management, salary]
      Family: [home, parents, children]

(``targets``/``attributes`` may also be lists of ``{name, words}``.) A metric takes a
query whose shape (target sets, attribute sets) its template allows (:data:`TEMPLATES`,
"n": any number from its minimum): WEAT 2 x 2, RIPA/RND/ECT 2 x 1 or 2 x 2 (genderscope
reports each attribute set, as WEFE's sub-queries do), MAC n x n, RNSB n x 2. A 2 x 2
(or 2 x 1) query runs as a WEAT/SEAT test (:meth:`Query.as_test`); MAC and RNSB take
any other shape as the query itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.errors import DataError, GenderscopeError
from genderscope.files import read_json, read_text
from genderscope.results import file_sha256

TEMPLATES: dict[str, tuple[tuple[int, int | None], tuple[int, int | None]]] = {
    "weat": ((2, 2), (2, 2)),
    "seat": ((2, 2), (2, 2)),
    "ripa": ((2, 2), (1, 2)),
    "rnd": ((2, 2), (1, 2)),
    "ect": ((2, 2), (1, 2)),
    "mac": ((1, None), (1, None)),
    "rnsb": ((2, None), (2, 2)),
}
"""Metric -> ((fewest, most target sets), (fewest, most attribute sets)); None: any
number (WEFE 1.0.1's ``metric_template`` "n"). RIPA, RND and ECT take WEFE's one
attribute set or two (each reported, as WEFE's ``generate_subqueries`` splits them)."""
MULTI = ("mac", "rnsb")
"""The metrics that take a query beyond 2 x 2 as a :class:`Query` (n target groups)."""


@dataclass(frozen=True)
class Query:
    """Named target sets and attribute sets (WEFE's ``Query``)."""

    targets: tuple[WordSet, ...]
    attributes: tuple[WordSet, ...]
    name: str = ""
    path: str = ""
    sha256: str = ""
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("path",)  # where from: not keyed (engine/keys.py)

    def __post_init__(self) -> None:
        where = self.path or "query"
        if not all(isinstance(s, WordSet) for s in (*self.targets, *self.attributes)):
            raise GenderscopeError("Query(...) takes WordSets; from word lists (WEFE's "
                                   "Query(target_sets, attribute_sets, target_sets_names, "
                                   "attribute_sets_names)) use gs.Query.from_sets({'Male': "
                                   "[...], 'Female': [...]}, {'Career': [...], ...})")
        if not self.targets or not self.attributes:
            raise DataError(f"{where}: a query needs at least one target set and one "
                            "attribute set")
        for kind, sets in (("target", self.targets), ("attribute", self.attributes)):
            names = [s.category for s in sets]
            if len(set(names)) != len(names):
                raise DataError(f"{where}: two {kind} sets share the name "
                                f"{next(n for n in names if names.count(n) > 1)!r}")
            for s in sets:
                if not s.examples:
                    raise DataError(f"{where}: {kind} set {s.category!r} is empty")
        if not self.name:
            object.__setattr__(self, "name", wefe_name(self))

    @property
    def template(self) -> tuple[int, int]:
        """(number of target sets, number of attribute sets), WEFE's ``template``."""
        return len(self.targets), len(self.attributes)

    @classmethod
    def from_sets(cls, targets: Mapping[str, Sequence[str]] | Sequence[Sequence[str]],
                  attributes: Mapping[str, Sequence[str]] | Sequence[Sequence[str]],
                  name: str = "") -> Query:
        """A query from ``{set name: words}`` (or lists of words, named "Target set i" /
        "Attribute set i" as WEFE names them)."""
        return cls(_word_sets(targets, "Target set", "targets"),
                   _word_sets(attributes, "Attribute set", "attributes"), name)

    def as_test(self) -> AssociationTest:
        """This 2 x 2 (or 2 x 1) query as a WEAT/SEAT test: X, Y the target sets, A, B the
        attribute sets (a single attribute set is used as both A and B: the two reported
        values are then one)."""
        if self.template[0] != 2 or self.template[1] not in (1, 2):
            raise GenderscopeError(f"query {self.name!r} has {self.template[0]} target and "
                                   f"{self.template[1]} attribute sets; a test needs 2 x 2")
        a = self.attributes
        return AssociationTest(self.name, self.targets[0], self.targets[1], a[0], a[-1],
                               path=self.path, sha256=self.sha256)


def wefe_name(query: Query) -> str:
    """WEFE's query name: "T1, T2 and T3 wrt A1 and A2"."""
    def join(names: list[str]) -> str:
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    return (f"{join([s.category for s in query.targets])} wrt "
            f"{join([s.category for s in query.attributes])}")


def _word_sets(sets: Any, default: str, key: str) -> tuple[WordSet, ...]:
    if isinstance(sets, Mapping):
        items = list(sets.items())
    elif isinstance(sets, Sequence) and not isinstance(sets, str):
        items = []
        for i, s in enumerate(sets):
            if isinstance(s, Mapping):  # {name, words}
                if "words" not in s:
                    raise DataError(f"{key}[{i}] has no 'words' list")
                items.append((s.get("name", f"{default} {i}"), s["words"]))
            elif isinstance(s, WordSet):
                items.append((s.category, s.examples))
            else:
                items.append((f"{default} {i}", s))
    else:
        raise DataError(f"{key} must map set names to word lists")
    out = []
    for name, words in items:
        if isinstance(words, str) or not isinstance(words, Sequence) or not all(
                isinstance(w, str) for w in words):
            raise DataError(f"{key} {name!r} must be a list of words")
        kept = tuple(w.strip() for w in words if w.strip())
        out.append(WordSet(str(name), kept))
    return tuple(out)


def is_query_file(path: str | Path) -> bool:
    """True for a YAML file, or a JSON file holding an object with a ``targets`` key."""
    p = Path(path)
    if not p.is_file():
        return False
    if p.suffix.lower() in (".yaml", ".yml"):
        return True
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(raw, dict) and "targets" in raw


def load_query(path: str | Path) -> Query:
    """Read a query file (module docstring); a mistake is one :class:`DataError` line."""
    p = Path(path)
    if p.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            raw = yaml.safe_load(read_text(p, "query file"))
        except yaml.YAMLError as exc:
            raise DataError(f"{p}: invalid YAML: {str(exc).splitlines()[0]}") from None
    else:
        raw = read_json(p, "query file")
    if not isinstance(raw, dict) or "targets" not in raw or "attributes" not in raw:
        raise DataError(f"{p}: a query file holds one object with keys 'targets' and "
                        "'attributes' (and an optional 'name')")
    unknown = set(raw) - {"name", "targets", "attributes"}
    if unknown:
        raise DataError(f"{p}: unknown key {sorted(unknown)[0]!r} (a query has name, "
                        "targets, attributes)")
    try:
        q = Query.from_sets(raw["targets"], raw["attributes"], str(raw.get("name") or ""))
    except DataError as exc:  # named by the file, not also as "query"
        raise DataError(f"{p}: {str(exc).removeprefix('query: ')}") from None
    return replace(q, path=str(p), sha256=file_sha256(p))  # q.name: given, else WEFE's


def for_metric(query: Query, metric: str) -> Query | AssociationTest:
    """What ``metric`` runs on for this query: a WEAT/SEAT test for a 2 x 2 (or 2 x 1)
    query, the query itself for MAC/RNSB's other shapes; a shape the metric's template
    does not allow is one :class:`GenderscopeError` line."""
    (t_lo, t_hi), (a_lo, a_hi) = TEMPLATES.get(metric, TEMPLATES["weat"])
    t, a = query.template

    def span(lo: int, hi: int | None) -> str:
        return str(lo) if lo == hi else f"{lo} to {hi}" if hi else f"{lo} or more"

    if not (t_lo <= t and (t_hi is None or t <= t_hi)
            and a_lo <= a and (a_hi is None or a <= a_hi)):
        raise GenderscopeError(f"{metric} takes {span(t_lo, t_hi)} target and "
                               f"{span(a_lo, a_hi)} attribute sets; query {query.name!r} "
                               f"has {t} and {a}")
    if t == 2 and (a == 2 or (a == 1 and metric not in MULTI)):
        return query.as_test()
    return query
