"""The score cache: one cached number, float64 array or JSON text per (model fingerprint,
query family, query key), written one transaction per batch."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from genderscope.errors import GenderscopeError
from genderscope.store.schema import transaction

if TYPE_CHECKING:  # imported where used: a cached number needs no numpy
    import numpy as np


class ScoreCache:
    """The ``scores`` table's accessors; :class:`~genderscope.store.Store` mixes them in."""

    _con: sqlite3.Connection
    path: Path

    @contextmanager
    def _readable(self, doing: str) -> Iterator[None]:
        """Turn SQLite's errors (a damaged page, a full disk) into one line, as the CLI
        prints them, so a Python caller gets a :class:`GenderscopeError` too; a failed
        write is rolled back, so nothing stored before is changed."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise GenderscopeError(
                f"the results store {self.path} cannot be {doing} ({first}); nothing stored "
                "before was changed. Point --store elsewhere, or move the damaged file "
                "away") from None

    def get_scores(self, model: str, namespace: str, keys: Sequence[str]) -> dict[str, float]:
        """Cached values for those of ``keys`` that are present."""
        found: dict[str, float] = {}
        chunk = 500
        with self._readable("read"):
            for i in range(0, len(keys), chunk):
                part = list(keys[i:i + chunk])
                marks = ",".join("?" * len(part))
                rows = self._con.execute(
                    "SELECT key, value FROM scores WHERE model=? AND namespace=? "
                    f"AND key IN ({marks})", [model, namespace, *part])
                found.update(rows.fetchall())
        return found

    def put_scores(self, model: str, namespace: str, values: Mapping[str, float]) -> None:
        """Insert or replace cached values, in one transaction."""
        self._put(model, namespace, {k: float(v) for k, v in values.items()})

    def get_arrays(self, model: str, namespace: str,
                   keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached float64 arrays (stored as little-endian bytes) for present ``keys``."""
        import numpy as np

        raw = self.get_scores(model, namespace, keys)
        return {k: np.frombuffer(v, dtype="<f8").copy() if isinstance(v, bytes)
                else np.array([v], dtype=np.float64) for k, v in raw.items()}

    def put_arrays(self, model: str, namespace: str, values: Mapping[str, np.ndarray]) -> None:
        """Insert or replace cached arrays, in one transaction."""
        import numpy as np

        self._put(model, namespace, {k: np.asarray(v, dtype="<f8").tobytes()
                                     for k, v in values.items()})

    def get_texts(self, model: str, namespace: str, keys: Sequence[str]) -> dict[str, str]:
        """Cached JSON texts (word pieces, adapter memos) for present ``keys``."""
        return {k: v for k, v in self.get_scores(model, namespace, keys).items()
                if isinstance(v, str)}

    def put_texts(self, model: str, namespace: str, values: Mapping[str, str]) -> None:
        """Insert or replace cached JSON texts (a JSON list or object: never read as a
        number by the column's REAL affinity), in one transaction."""
        bad = [k for k, v in values.items() if not str(v).startswith(("[", "{"))]
        if bad:
            raise ValueError(f"put_texts takes JSON lists or objects; {bad[0]!r} is not one")
        self._put(model, namespace, {k: str(v) for k, v in values.items()})

    def count_scores(self, model: str | None = None) -> int:
        """Cached numbers and arrays (texts from :meth:`put_texts` not counted)."""
        return self._con.execute("SELECT COUNT(*) FROM scores WHERE (? IS NULL OR model=?) "
                                 "AND typeof(value) != 'text'", (model, model)).fetchone()[0]

    def _put(self, model: str, namespace: str, values: Mapping[str, object]) -> None:
        """Insert or replace ``values`` in one transaction."""
        with self._write():
            self._con.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                                  [(model, namespace, k, v) for k, v in values.items()])

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction whose SQLite errors become one line (see _readable)."""
        with self._readable("written"), transaction(self._con):
            yield
