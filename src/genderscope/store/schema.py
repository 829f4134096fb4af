"""The store's schema: tables, versions, migrations and the checks that refuse a file.

``COLUMNS[v]`` lists what schema version ``v`` adds; ``MIGRATIONS[v]`` upgrades v -> v+1,
one transaction per step (:func:`migrate`). ``identify`` refuses another application's
SQLite file before anything is written to it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from genderscope.errors import GenderscopeError
from genderscope.outputs import STORE_ENV as ENV_VAR  # noqa: F401 (store.ENV_VAR)
from genderscope.outputs import store_location

SCHEMA_VERSION = 2

APPLICATION_ID = 0x47645363
"""``PRAGMA application_id`` of a genderscope store (the bytes ``GdSc``)."""

V1_TABLES = (
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
        with transaction(con, wait=True):
            row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            current = int(row[0])
            if current == version:
                MIGRATIONS[version](con)
                con.execute("UPDATE meta SET value=? WHERE key='schema_version'",
                            (str(version + 1),))
                current = version + 1
        version = current
    return version


@contextmanager
def transaction(con: sqlite3.Connection, *, wait: bool = False) -> Iterator[None]:
    """One ``BEGIN IMMEDIATE`` transaction: committed when the block ends, rolled back when
    it raises (``wait``: the BEGIN retried while another process holds the file)."""
    begin = partial(con.execute, "BEGIN IMMEDIATE")
    retry(begin) if wait else begin()
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def retry(action: Any, seconds: float = 30.0) -> Any:
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


def identify(con: sqlite3.Connection, path: Path) -> bool:
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


def schema_version(con: sqlite3.Connection, path: Path) -> int:
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
    """``$GENDERSCOPE_STORE`` if set, else ``~/.cache/genderscope/store.sqlite``
    (:func:`genderscope.outputs.store_location` of no store)."""
    return store_location()


def wal(con: sqlite3.Connection) -> None:
    """Switch to WAL; SQLite answers with the old mode (no error) while another process
    holds the file, so that counts as busy."""
    mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise sqlite3.OperationalError("database is busy (journal mode not switched)")

