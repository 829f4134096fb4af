"""SQLite store: the score cache and the results of runs (schema, versions and
refusals: docs/store.md).

One file (default ``~/.cache/genderscope/store.sqlite``; override with the
``GENDERSCOPE_STORE`` environment variable or ``--store``). WAL mode, so a
reader never blocks the writer. Every write is its own transaction: a killed
run loses at most the batch in flight, and the next run finds every earlier
batch in the cache. Opening a store of an older version upgrades it in place
(:func:`migrate`); a file that is not a genderscope store is refused before anything
is written to it; ``Store(path, readonly=True)`` never creates, migrates or writes.

The code is split along these seams: :mod:`~genderscope.store.schema` (tables, versions,
migrations, refusal checks), :mod:`~genderscope.store.cache` (the score cache) and
:mod:`~genderscope.store.runs` (recorded runs); this module opens the file and re-exports
the names other modules use.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from genderscope.errors import GenderscopeError
from genderscope.store.cache import ScoreCache
from genderscope.store.runs import RunRecords
from genderscope.store.schema import (
    APPLICATION_ID,
    COLUMNS,
    ENV_VAR,
    MIGRATIONS,
    SCHEMA_VERSION,
    V1_TABLES,
    default_store_path,
    identify,
    migrate,
    retry,
    schema_version,
    transaction,
    wal,
)

__all__ = ["APPLICATION_ID", "COLUMNS", "ENV_VAR", "MIGRATIONS", "SCHEMA_VERSION", "ScoreCache",
           "Store", "default_store_path", "migrate"]


class Store(RunRecords):
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
                is_store = identify(con, self.path)
                break
            except sqlite3.OperationalError:
                con.close()
                if "immutable" in query:
                    raise
        if not is_store:
            con.close()
            raise GenderscopeError(f"{self.path} is an empty file, not a genderscope store")
        try:
            self.schema_version = schema_version(con, self.path)
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
            retry(lambda: identify(con, self.path))  # refuse a foreign file, writing nothing
            if not memory:
                retry(lambda: wal(con))
            con.execute("PRAGMA synchronous=NORMAL")
            retry(lambda: self._initialise(con))
            version = schema_version(con, self.path)
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
        with transaction(con):
            if not identify(con, self.path):
                for statement in V1_TABLES:
                    con.execute(statement)
                con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', '1')")
            if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                con.execute(f"PRAGMA application_id={APPLICATION_ID}")

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

