"""SQLite store: the score cache and the results of runs.

One file (default ``~/.cache/genderscope/store.sqlite``; override with the
``GENDERSCOPE_STORE`` environment variable or ``--store``). WAL mode, so a
reader never blocks the writer. Every write is its own transaction: a killed
run loses at most the batch in flight, and the next run finds every earlier
batch in the cache.

Schema (version 2; full description in docs/store.md):

- ``scores(model, namespace, key, value)``: one cached number (REAL) or
  float64 array (BLOB) per model
  fingerprint, query family (``namespace``) and query key (a stable string).
- ``runs(run_id, model, method, params, version, created, summary, metadata,
  cache_key)``; ``cache_key`` (v2) identifies a reusable run (model identity,
  measure, parameters, data hashes), NULL for runs recorded without one.
- ``run_items(run_id, items)``: the item table of a run as Parquet bytes.
- ``run_tables(run_id, name, data)`` (v2): the further named tables of a run
  (``Result.tables``) as Parquet bytes.
- ``meta(key, value)``: holds ``schema_version``.

Opening a store of an older version upgrades it in place (:func:`migrate`,
one transaction per step); a newer version is refused, and so is a file whose
columns disagree with its version. A store carries ``PRAGMA application_id``
:data:`APPLICATION_ID`; any other SQLite file is refused before anything is
written to it. ``Store(path, readonly=True)`` (``runs list/show/export``) never
creates, migrates or writes. Creation is one ``BEGIN IMMEDIATE`` transaction,
so processes opening a new store at once do not collide.

Over 400 lines because schema, migrations, the refusal checks and the cache/run
accessors share one connection and one set of invariants; split them only together.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope import __version__
from genderscope.errors import GenderscopeError
from genderscope.results import Result, StoredResult, to_json

if TYPE_CHECKING:  # imported where used: reading a stored summary needs neither
    import numpy as np
    import pandas as pd

SCHEMA_VERSION = 2
ENV_VAR = "GENDERSCOPE_STORE"

APPLICATION_ID = 0x47645363
"""``PRAGMA application_id`` of a genderscope store (the bytes ``GdSc``)."""

_V1_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS scores (
    model TEXT NOT NULL, namespace TEXT NOT NULL, key TEXT NOT NULL, value REAL NOT NULL,
    PRIMARY KEY (model, namespace, key)
) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, model TEXT NOT NULL, method TEXT NOT NULL,
    params TEXT NOT NULL, version TEXT NOT NULL, created REAL NOT NULL,
    summary TEXT NOT NULL, metadata TEXT NOT NULL
)""",
    "CREATE TABLE IF NOT EXISTS run_items (run_id TEXT PRIMARY KEY, items BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS runs_by_model ON runs (model, method)",
)

_V2_TABLES = """CREATE TABLE IF NOT EXISTS run_tables (
    run_id TEXT NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (run_id, name))"""

COLUMNS = {
    1: {"meta": {"key", "value"}, "scores": {"model", "namespace", "key", "value"},
        "runs": {"run_id", "model", "method", "params", "version", "created", "summary",
                 "metadata"},
        "run_items": {"run_id", "items"}},
    2: {"runs": {"cache_key"}, "run_tables": {"run_id", "name", "data"}},
}
"""``COLUMNS[v]``: the tables and columns that schema version ``v`` adds."""


def _v1_to_v2(con: sqlite3.Connection) -> None:
    """v2: ``runs.cache_key`` (reusable runs) and ``run_tables`` (Result.tables)."""
    cols = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
    if "cache_key" not in cols:
        con.execute("ALTER TABLE runs ADD COLUMN cache_key TEXT")
    con.execute("CREATE INDEX IF NOT EXISTS runs_by_cache_key ON runs (cache_key)")
    con.execute(_V2_TABLES)  # not executescript: it would commit mid-step


MIGRATIONS = {1: _v1_to_v2}
"""``MIGRATIONS[v]`` upgrades a store from schema version ``v`` to ``v + 1``."""


def migrate(con: sqlite3.Connection, version: int) -> int:
    """Upgrade an open store from ``version`` to :data:`SCHEMA_VERSION`, one step per
    transaction (a failed step leaves the store at the previous version); returns the
    new version. A step another process has already done is skipped."""
    while version < SCHEMA_VERSION:
        _retry(lambda: con.execute("BEGIN IMMEDIATE"))
        try:
            row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            current = int(row[0])
            if current == version:
                MIGRATIONS[version](con)
                con.execute("UPDATE meta SET value=? WHERE key='schema_version'",
                            (str(version + 1),))
                current = version + 1
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
        version = current
    return version


def _retry(action: Any, seconds: float = 30.0) -> Any:
    """Run ``action()``, retrying while SQLite says the file is locked or busy (another
    process is creating or migrating the same store)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _objects(con: sqlite3.Connection) -> dict[str, set[str]]:
    """Tables of the open file and their columns (indexes, views and triggers as names
    without columns)."""
    out: dict[str, set[str]] = {}
    for kind, name in con.execute("SELECT type, name FROM sqlite_master"):
        if name.startswith("sqlite_"):
            continue
        out[name] = ({r[0] for r in con.execute("SELECT name FROM pragma_table_info(?)",
                                                (name,))} if kind == "table" else set())
    return out


def _identify(con: sqlite3.Connection, path: Path) -> bool:
    """True for a genderscope store, False for an empty file; anything else (another
    application's SQLite file) is refused before anything is written to it."""
    app_id = con.execute("PRAGMA application_id").fetchone()[0]
    objects = _objects(con)
    if app_id == APPLICATION_ID:
        return True
    if app_id == 0 and not objects:
        return False
    if app_id == 0 and set(COLUMNS[1]) <= set(objects):  # written before application_id
        return True
    what = (f"application id {app_id:#x}" if app_id else
            f"it holds {', '.join(sorted(objects)[:4])}{' ...' if len(objects) > 4 else ''}")
    raise GenderscopeError(f"{path} is a SQLite file but not a genderscope store ({what}); "
                           "refusing to touch it: choose another --store")


def _schema_version(con: sqlite3.Connection, path: Path) -> int:
    """``meta.schema_version``, checked against this genderscope and the file's columns."""
    rows = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchall()
    raw = rows[0][0] if rows else None
    try:
        version = int(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise GenderscopeError(f"store {path}: schema_version {raw!r} in its meta table is "
                               "not an integer; the store is damaged (use another --store)"
                               ) from None
    if version > SCHEMA_VERSION:
        raise GenderscopeError(
            f"store {path} has schema version {version}, newer than this genderscope "
            f"supports ({SCHEMA_VERSION}); upgrade genderscope")
    if version < 1:
        raise GenderscopeError(f"store {path}: schema_version {raw!r} is not a version; the "
                               "store is damaged (use another --store)")
    objects = _objects(con)
    for v in range(1, version + 1):
        for table, cols in COLUMNS[v].items():
            missing = sorted(cols - objects.get(table, set()))
            if table not in objects or missing:
                what = f"table {table}" if table not in objects else \
                    f"column {table}.{missing[0]}"
                raise GenderscopeError(f"store {path} says schema version {version} but has no "
                                       f"{what}; the store is damaged (use another --store)")
    return version


def default_store_path() -> Path:
    """``$GENDERSCOPE_STORE`` if set, else ``~/.cache/genderscope/store.sqlite``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "genderscope" / "store.sqlite"


def _wal(con: sqlite3.Connection) -> None:
    """Switch to WAL; SQLite answers with the old mode (no error) while another process
    holds the file, so that counts as busy."""
    mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise sqlite3.OperationalError("database is busy (journal mode not switched)")


class Store:
    """Score cache and run results in one SQLite file."""

    def __init__(self, path: str | Path | None = None, *, readonly: bool = False) -> None:
        """Open (or, unless ``readonly``, create) the store at ``path``.

        A file that is not a genderscope store is refused before anything is written.
        ``readonly`` never creates, migrates or writes (also on read-only media); it
        refuses a missing file. Creating a store makes its folder only for the default
        location (``~/.cache/genderscope``): a path given explicitly must be in an
        existing folder, so a mistyped ``--store`` is not created silently.
        """
        explicit = path is not None or bool(os.environ.get(ENV_VAR))
        self.path = Path(path) if path is not None else default_store_path()
        self.readonly = readonly
        try:
            if readonly:
                self._con = self._open_readonly()
            else:
                self._con = self._open_writable(make_folder=not explicit)
        except sqlite3.DatabaseError as exc:
            raise GenderscopeError(f"cannot open store {self.path}: {exc}") from None

    def _open_readonly(self) -> sqlite3.Connection:
        if not self.path.exists():
            raise GenderscopeError(f"no store at {self.path} (nothing has been recorded there; "
                                   f"check --store or ${ENV_VAR})")
        if not self.path.is_file():
            raise GenderscopeError(f"store path {self.path} is not a file")
        uri = self.path.resolve().as_uri()
        # query_only on a read-write handle: SQLite tidies the -wal/-shm files away on close
        # (a mode=ro handle would leave them); then mode=ro, then immutable (read-only media)
        for query in ("?mode=rw", "?mode=ro", "?mode=ro&immutable=1"):
            con = sqlite3.connect(uri + query, uri=True, timeout=30.0, isolation_level=None)
            try:
                con.execute("PRAGMA query_only=1")
                is_store = _identify(con, self.path)
                break
            except sqlite3.OperationalError:
                con.close()
                if "immutable" in query:
                    raise
        if not is_store:
            con.close()
            raise GenderscopeError(f"{self.path} is an empty file, not a genderscope store")
        try:
            self.schema_version = _schema_version(con, self.path)
        except BaseException:
            con.close()
            raise
        return con

    def _open_writable(self, make_folder: bool) -> sqlite3.Connection:
        memory = str(self.path) == ":memory:"
        if not memory:
            if self.path.exists() and not self.path.is_file():
                raise GenderscopeError(f"store path {self.path} is not a file")
            folder = self.path.parent
            if not folder.is_dir():
                if not make_folder:
                    raise GenderscopeError(f"folder {folder} of store {self.path} does not "
                                           "exist; create it first (or check the path)")
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise GenderscopeError(
                        f"cannot create store folder {folder}: {exc}") from None
        con = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        try:
            _retry(lambda: _identify(con, self.path))  # refuse a foreign file, writing nothing
            if not memory:
                _retry(lambda: _wal(con))
            con.execute("PRAGMA synchronous=NORMAL")
            _retry(lambda: self._initialise(con))
            version = _schema_version(con, self.path)
            try:
                self.schema_version = migrate(con, version)
            except sqlite3.DatabaseError as exc:
                raise GenderscopeError(f"cannot upgrade store {self.path} from schema version "
                                       f"{version}: {exc}") from None
        except BaseException:
            con.close()
            raise
        return con

    def _initialise(self, con: sqlite3.Connection) -> None:
        """In one transaction: create the v1 tables of a new store (and mark any store with
        the application id). Concurrent creators wait for each other."""
        con.execute("BEGIN IMMEDIATE")
        try:
            is_store = _identify(con, self.path)
            if not is_store:
                for statement in _V1_TABLES:
                    con.execute(statement)
                con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', '1')")
            if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                con.execute(f"PRAGMA application_id={APPLICATION_ID}")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    def close(self) -> None:
        self._con.close()

    # -- score cache -------------------------------------------------------
    def get_scores(self, model: str, namespace: str, keys: Sequence[str]) -> dict[str, float]:
        """Cached values for those of ``keys`` that are present."""
        found: dict[str, float] = {}
        chunk = 500
        for i in range(0, len(keys), chunk):
            part = list(keys[i:i + chunk])
            marks = ",".join("?" * len(part))
            rows = self._con.execute(
                f"SELECT key, value FROM scores WHERE model=? AND namespace=? AND key IN ({marks})",
                [model, namespace, *part])
            found.update(rows.fetchall())
        return found

    def put_scores(self, model: str, namespace: str, values: Mapping[str, float]) -> None:
        """Insert or replace cached values, in one transaction."""
        with self._transaction():
            self._con.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                [(model, namespace, k, float(v)) for k, v in values.items()])

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

        with self._transaction():
            self._con.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                [(model, namespace, k, np.asarray(v, dtype="<f8").tobytes())
                 for k, v in values.items()])

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
        with self._transaction():
            self._con.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                                  [(model, namespace, k, str(v)) for k, v in values.items()])

    def count_scores(self, model: str | None = None) -> int:
        """Cached numbers and arrays (texts from :meth:`put_texts` not counted)."""
        if model is None:
            return self._con.execute("SELECT COUNT(*) FROM scores "
                                     "WHERE typeof(value) != 'text'").fetchone()[0]
        return self._con.execute("SELECT COUNT(*) FROM scores WHERE model=? AND "
                                 "typeof(value) != 'text'", (model,)).fetchone()[0]

    # -- runs --------------------------------------------------------------
    def record_run(self, result: Result, *, dedupe: bool = False) -> str:
        """Store a finished run (summary, metadata, item table, further tables); returns
        its id. ``result.metadata["cache_key"]``, when set, makes it findable by
        :meth:`find_run`. ``dedupe``: when a run with the same ``cache_key`` is already
        stored (e.g. an identical command running at the same time finished first),
        store nothing and return that run's id; the check and the insert are one
        transaction, so concurrent identical runs record one row."""
        try:
            with self._transaction():
                key = result.metadata.get("cache_key") if dedupe else None
                found = self.find_run(key) if key else None
                return found if found is not None else self._insert_run(result)
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
        ids: list[str | None] = []
        with self._transaction():
            self._con.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)",
                                  [tuple(e) for e in entries])
            for result in results:
                key = result.metadata.get("cache_key")
                found = self.find_run(key) if key else None
                ids.append(found if found is not None else self._insert_run(result))
        return ids

    def _insert_run(self, result: Result) -> str:
        """The inserts of :meth:`record_run`, inside the caller's transaction."""
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

    def update_summary(self, run_id: str, summary: Mapping[str, Any]) -> None:
        """Replace the stored summary of run ``run_id`` (exact id), e.g. when the tests
        run together were adjusted as one family after each was recorded, so the record
        says what ``summary.json`` says."""
        if self.readonly:
            raise GenderscopeError(f"store {self.path} is open read-only")
        with self._transaction():
            cur = self._con.execute("UPDATE runs SET summary=? WHERE run_id=?",
                                    (to_json(summary), run_id))
            if cur.rowcount != 1:
                raise GenderscopeError(f"no run {run_id!r} in store {self.path}")

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
        """Rebuild a stored run as a Result (unique prefixes of the id are accepted)."""
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
        return StoredResult(method, summ, meta, decode, [name for name, _ in table_blobs])

    def _damaged(self, run_id: str, what: str, exc: BaseException) -> GenderscopeError:
        first = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
        return GenderscopeError(f"store {self.path}: the {what} of run {run_id} is damaged "
                                f"({type(exc).__name__}: {first}); rerun it, or remove it "
                                "from the store")

    def _transaction(self) -> _Tx:
        return _Tx(self._con)


def _parquet(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


class _Tx:
    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def __enter__(self) -> None:
        self.con.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.con.execute("ROLLBACK" if exc_type else "COMMIT")
