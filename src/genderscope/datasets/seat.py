"""WEAT / SEAT test files (May et al. 2019, ``sent-bias`` ``tests/*.jsonl``).

Each file is one JSON object with four word (or sentence) sets::

    {"targ1": {"category": "MaleNames", "examples": ["John", ...]},
     "targ2": {...}, "attr1": {...}, "attr2": {...}}

``targ1``/``targ2`` are the target sets X and Y, ``attr1``/``attr2`` the
attribute sets A and B of Caliskan et al. (2017).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from genderscope.datasets.locations import find_benchmark
from genderscope.errors import DataError, near_names
from genderscope.files import read_json
from genderscope.results import file_sha256

KEYS = ("targ1", "targ2", "attr1", "attr2")
SEAT_DIR_ENV = "GENDERSCOPE_SEAT_DIR"


@dataclass(frozen=True)
class WordSet:
    """A named set of words or sentences."""

    category: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class AssociationTest:
    """Targets X, Y and attributes A, B of one WEAT/SEAT test."""

    name: str
    targ1: WordSet
    targ2: WordSet
    attr1: WordSet
    attr2: WordSet
    path: str = ""
    sha256: str = ""
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("path",)  # where from: not keyed (engine/keys.py)

    def sets(self) -> tuple[WordSet, WordSet, WordSet, WordSet]:
        return (self.targ1, self.targ2, self.attr1, self.attr2)

    def data_meta(self) -> dict[str, Any]:
        from genderscope.datasets.registry import provenance

        return {"test": self.name, "path": self.path, "file_sha256": self.sha256,
                "datasets": provenance({self.path: self.sha256})}


def load_test(path: str | Path) -> AssociationTest:
    """Read one test file; :class:`DataError` names the file and the missing key."""
    p = Path(path)
    raw = read_json(p, "test file")
    if not isinstance(raw, dict):
        raise DataError(f"{p}: a test file must hold one JSON object with keys "
                        f"{', '.join(KEYS)}")
    sets = []
    for key in KEYS:
        if key not in raw:
            raise DataError(f"{p}: missing key {key!r} (a test needs {', '.join(KEYS)})")
        entry = raw[key]
        if not isinstance(entry, dict) or "examples" not in entry:
            raise DataError(f"{p}: key {key!r} has no 'examples' list")
        examples = entry["examples"]
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            raise DataError(f"{p}: {key}.examples must be a list of strings")
        examples = [e.strip() for e in examples if e.strip()]
        if not examples:
            raise DataError(f"{p}: {key}.examples is empty")
        sets.append(WordSet(str(entry.get("category", key)), tuple(examples)))
    for (i, j), what in (((0, 1), "target sets X and Y"), ((2, 3), "attribute sets A and B")):
        if set(sets[i].examples) == set(sets[j].examples):  # d and p would mean nothing
            raise DataError(f"{p}: the {what} ({KEYS[i]}, {KEYS[j]}) are identical; a test "
                            "needs two different sets")
    name = p.name.removesuffix(".jsonl").removesuffix(".json")
    return AssociationTest(name, *sets, path=str(p), sha256=file_sha256(p))


def default_tests_dir() -> Path | None:
    """``$GENDERSCOPE_SEAT_DIR``, else ``seat/tests`` in the benchmark data folder
    (:mod:`genderscope.datasets.locations`), else None."""
    env = os.environ.get(SEAT_DIR_ENV)
    if env:
        return Path(env)
    try:
        return find_benchmark(str(Path("seat") / "tests"))
    except DataError:
        return None


def resolve_test(spec: str, tests_dir: str | Path | None = None) -> AssociationTest:
    """A test by file path, or by name (``weat6``) inside ``tests_dir``."""
    p = Path(spec)
    if p.is_file():
        return load_test(p)
    folder = Path(tests_dir) if tests_dir is not None else default_tests_dir()
    if folder is None and (p.suffix or len(p.parts) > 1):  # a path that is not there
        raise DataError(f"test {spec!r} is not a file; pass --tests-dir or set "
                        f"{SEAT_DIR_ENV} to the folder holding <name>.jsonl")
    if folder is None:  # a name, and the seat set is missing: its one-line error says
        folder = find_benchmark(str(Path("seat") / "tests"))  # how to fetch it
    for suffix in (".jsonl", ".json", ""):
        cand = folder / f"{spec}{suffix}"
        if cand.is_file():
            return load_test(cand)
    if not folder.is_dir():
        raise DataError(f"test folder {folder} does not exist (looking for {spec!r})")
    known = list_tests(folder)
    if not known:
        raise DataError(f"no test named {spec!r}: {folder} holds no <name>.jsonl tests")
    near = near_names(spec, known)  # "weat66", "sent_weat6", "WEAT6"
    if near:
        raise DataError(f"no test named {spec!r} in {folder}; did you mean "
                        f"{' or '.join(near)}?")
    raise DataError(f"no test named {spec!r} in {folder} (e.g. {', '.join(known[:8])})")


def _natural(name: str) -> list[object]:
    """Sort key of natural order (weat2 < weat10)."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def list_tests(folder: str | Path, pattern: str = "*.jsonl") -> list[str]:
    """Test names in ``folder`` matching ``pattern``, in natural order (weat2 < weat10)."""
    names = [p.name.removesuffix(".jsonl").removesuffix(".json")
             for p in Path(folder).glob(pattern)]
    return sorted(names, key=_natural)


def registered_tests() -> list[str]:
    """The names of the tests in the registry's ``seat`` data set (``tests/<name>.jsonl``),
    in natural order: read from the registry, so nothing is fetched."""
    from genderscope.datasets import registry

    files = [f.path for f in registry.get("seat").files]
    names = [Path(p).name.removesuffix(".jsonl") for p in files
             if p.startswith("tests/") and p.endswith(".jsonl")]
    return sorted(names, key=_natural)
