"""Runs: a finished Result recorded (summary, metadata, item table, further tables),
found again by its reuse key, listed and rebuilt lazily. A recorded run is never
rewritten: what a later command computes over several runs (a family's adjusted p) is
that command's output, not the runs'."""

from __future__ import annotations

import io
import json
import sqlite3
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope import __version__
from genderscope.errors import GenderscopeError
from genderscope.results import LazyResult, Result, to_json
from genderscope.store.cache import ScoreCache
from genderscope.store.schema import transaction

if TYPE_CHECKING:  # imported where used: reading a stored summary needs no pandas
    import pandas as pd


class RunRecords(ScoreCache):
    """The ``runs``, ``run_items`` and ``run_tables`` accessors (and the score cache's,
    which :meth:`record_job` writes in the same transaction)."""

    path: Path
    readonly: bool
    schema_version: int

    def record_run(self, result: Result, *, dedupe: bool = False) -> str:
        """Store a finished run (summary, metadata, item table, further tables); returns
        its id. ``result.metadata["cache_key"]``, when set, makes it findable by
        :meth:`find_run`. ``dedupe``: when a run with the same ``cache_key`` is already
        stored (e.g. an identical command running at the same time finished first),
        store nothing and return that run's id; the check and the insert are one
        transaction, so concurrent identical runs record one row."""
        try:
            with transaction(self._con):
                return self._insert_run(result, dedupe)
        except sqlite3.DatabaseError as exc:  # a full disk, a damaged page: rolled back
            raise GenderscopeError(f"cannot record the run in the store {self.path}: {exc} "
                                   "(nothing stored before was changed)") from None

    def record_job(self, results: Sequence[Result],
                   entries: Sequence[tuple[str, str, str, Any]] = ()) -> list[str | None]:
        """Record the runs and new score-cache rows ``(model, namespace, key, value)`` of
        one finished job (e.g. a sweep's worker) in ONE transaction: all of it is stored,
        or (on any error) none. Values are stored as given (REAL, BLOB or TEXT).

        A run whose ``cache_key`` is already stored is not stored again (its id is
        returned instead), so a job delivered twice is recorded once."""
        with transaction(self._con):
            self._con.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                                  [tuple(e) for e in entries])
            return [self._insert_run(result, True) for result in results]

    def _insert_run(self, result: Result, dedupe: bool) -> str:
        """The inserts of :meth:`record_run`, inside the caller's transaction (``dedupe``:
        the id of a stored run with the same ``cache_key`` instead, inserting nothing)."""
        key = result.metadata.get("cache_key") if dedupe else None
        found = self.find_run(key) if key else None
        if found is not None:
            return found
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        meta = result.metadata
        import pandas as pd

        tables = {name: _parquet(t) for name, t in result.tables.items()
                  if isinstance(t, pd.DataFrame)}
        self._con.execute(
            "INSERT INTO runs (run_id, model, method, params, version, created, summary, "
            "metadata, cache_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, str(meta.get("model", {}).get("fingerprint", "")
                         if isinstance(meta.get("model"), dict) else meta.get("model", "")),
             result.method, to_json(meta.get("params", {})), __version__, time.time(),
             to_json(result.summary), to_json(meta), meta.get("cache_key")))
        self._con.execute("INSERT INTO run_items VALUES (?, ?)",
                          (run_id, _parquet(result.items)))
        self._con.executemany("INSERT INTO run_tables VALUES (?, ?, ?)",
                              [(run_id, n, b) for n, b in tables.items()])
        return run_id

    def find_run(self, cache_key: str) -> str | None:
        """Id of the newest run recorded with this ``cache_key``, or None."""
        row = self._con.execute("SELECT run_id FROM runs WHERE cache_key=? "
                                "ORDER BY created DESC LIMIT 1", (cache_key,)).fetchone()
        return row[0] if row else None

    def list_runs(self, method: str | None = None, model: str | None = None
                  ) -> list[dict[str, Any]]:
        """Runs, oldest first; ``model`` matches a substring of the fingerprint."""
        sql = "SELECT run_id, model, method, params, version, created FROM runs"
        where: list[str] = []
        args: list[Any] = []
        if method:
            where.append("method=?")
            args.append(method)
        if model:
            where.append("instr(model, ?) > 0")
            args.append(model)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._con.execute(sql + " ORDER BY created", tuple(args)).fetchall()
        cols = ["run_id", "model", "method", "params", "version", "created"]
        return [dict(zip(cols, r, strict=True)) for r in rows]

    def load_run(self, run_id: str) -> Result:
        """Rebuild a stored run as a Result (unique prefixes of the id are accepted; an
        empty one, a prefix of every id, is not)."""
        if not run_id.strip():
            raise GenderscopeError("run id is empty; give a run id or a unique prefix of one "
                                   "(genderscope runs list shows them)")
        rows = self._con.execute(  # a plain prefix: no LIKE, so "%" and "_" match themselves
            "SELECT run_id, method, summary, metadata FROM runs "
            "WHERE substr(run_id, 1, length(?)) = ?", (run_id, run_id)).fetchall()
        if not rows:
            raise GenderscopeError(f"no run {run_id!r} in store {self.path}")
        if len(rows) > 1:
            raise GenderscopeError(f"run id prefix {run_id!r} is ambiguous in store {self.path}")
        rid, method, summary, metadata = rows[0]
        blob = self._con.execute("SELECT items FROM run_items WHERE run_id=?", (rid,)).fetchone()
        items_blob: bytes | None = blob[0] if blob else None
        table_blobs: list[tuple[str, bytes]] = [] if self.schema_version < 2 else list(
            self._con.execute(  # (a v1 store opened read-only has no run_tables)
                "SELECT name, data FROM run_tables WHERE run_id=? ORDER BY name", (rid,)))

        def decode() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
            import pandas as pd

            try:
                items = pd.read_parquet(io.BytesIO(items_blob)) if items_blob else \
                    pd.DataFrame()
                return items, {name: pd.read_parquet(io.BytesIO(data))
                               for name, data in table_blobs}
            except Exception as exc:  # noqa: BLE001 - pyarrow's errors: damaged bytes
                raise self._damaged(rid, "item table", exc) from None

        try:
            meta, summ = json.loads(metadata), json.loads(summary)
        except (TypeError, ValueError) as exc:
            raise self._damaged(rid, "summary", exc) from None
        if not isinstance(meta, dict) or not isinstance(summ, dict):
            raise self._damaged(rid, "summary", ValueError("not a JSON object"))
        meta["run_id"] = rid
        return LazyResult(method, summ, meta, decode, [name for name, _ in table_blobs])

    def _damaged(self, run_id: str, what: str, exc: BaseException) -> GenderscopeError:
        first = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
        return GenderscopeError(f"store {self.path}: the {what} of run {run_id} is damaged "
                                f"({type(exc).__name__}: {first}); rerun it, or remove it "
                                "from the store")


def _parquet(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()

