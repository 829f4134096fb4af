"""The store never harms other files: foreign SQLite files refused before any write,
read-only commands never create or migrate, damaged stores refused up front, and
concurrent creation of a new store is race-free."""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from old_store import V1_SCHEMA
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.errors import GenderscopeError
from genderscope.results import Result
from genderscope.store import APPLICATION_ID, SCHEMA_VERSION, Store


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _result() -> Result:
    return Result("probe", {"x": 1.0}, pd.DataFrame({"a": [1]}),
                  {"model": {"fingerprint": "sha256:f"}, "params": {}})


def _foreign(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("INSERT INTO notes VALUES ('mine')")
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("args", [["runs", "list"], ["runs", "show", "x"],
                                  ["runs", "export", "--out", "e.csv"]])
def test_foreign_sqlite_file_untouched_by_cli(tmp_path: Path, monkeypatch, args) -> None:
    monkeypatch.chdir(tmp_path)
    other = _foreign(tmp_path / "other_app.sqlite")
    before = _sha(other)
    r = CliRunner().invoke(app, [*args, "--store", str(other)])
    assert r.exit_code != 0 and "not a genderscope store" in str(r.exception)
    assert _sha(other) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other_app.sqlite"]


def test_foreign_sqlite_file_refused_by_writers(tmp_path: Path) -> None:
    other = _foreign(tmp_path / "other_app.sqlite")
    before = _sha(other)
    with pytest.raises(GenderscopeError, match="not a genderscope store"):
        Store(other)
    con = sqlite3.connect(other)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["notes"]
    con.close()
    assert _sha(other) == before
    app_only = tmp_path / "app.sqlite"  # no tables, but another application's id
    con = sqlite3.connect(app_only)
    con.execute("PRAGMA application_id=1234")
    con.commit()
    con.close()
    with pytest.raises(GenderscopeError, match="application id 0x4d2"):
        Store(app_only)
    notdb = tmp_path / "notes.txt"
    notdb.write_text("just text, long enough to have a header " * 10)
    with pytest.raises(GenderscopeError, match="cannot open store"):
        Store(notdb)


def test_new_store_has_application_id(tmp_path: Path) -> None:
    Store(tmp_path / "s.sqlite").close()
    con = sqlite3.connect(tmp_path / "s.sqlite")
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()


def test_readonly_commands_never_create(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["runs", "list"], ["runs", "show", "x"], ["runs", "export", "--out", "e.csv"]):
        r = CliRunner().invoke(app, [*args, "--store", "typo/folder/store.sqlite"])
        assert r.exit_code != 0 and "no store at" in str(r.exception)
    assert list(tmp_path.iterdir()) == []


def test_writer_does_not_create_folders_of_an_explicit_path(tmp_path: Path) -> None:
    with pytest.raises(GenderscopeError, match="does not exist"):
        Store(tmp_path / "typo" / "store.sqlite")
    assert list(tmp_path.iterdir()) == []


def _v1_store(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(V1_SCHEMA + """
    INSERT INTO runs VALUES ('r1', 'fp', 'probe', '{}', '0.0.1', 1.0, '{"x": 1}', '{}');
    """)
    con.commit()
    con.close()


def test_readonly_open_never_migrates(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _v1_store(path)
    before = _sha(path)
    s = Store(path, readonly=True)
    assert s.schema_version == 1 and s.load_run("r1").summary == {"x": 1}
    assert s.list_runs()[0]["run_id"] == "r1"
    s.close()
    assert _sha(path) == before
    assert Store(path).schema_version == SCHEMA_VERSION  # a writer upgrades it


def _read_only_runner(folder: Path) -> list[str] | None:
    """A command prefix under which ``folder`` is read-only even for root (a private
    read-only bind mount), or None when that cannot be arranged here."""
    if sys.platform == "win32":
        return None
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "-m", "true"], capture_output=True).returncode != 0:
        return None
    return ["unshare", "-m", "sh", "-c", f'mount --bind "{folder}" "{folder}" && '
            f'mount -o remount,ro,bind "{folder}" && exec "$@"', "sh"]


def test_store_on_read_only_media_can_be_listed_and_shown(tmp_path: Path) -> None:
    folder = tmp_path / "media"
    folder.mkdir()
    s = Store(folder / "s.sqlite")
    rid = s.record_run(_result())
    s.close()
    prefix = _read_only_runner(folder)
    if prefix is None:
        pytest.skip("cannot make a read-only folder here")
    (folder / "s.sqlite").chmod(stat.S_IRUSR)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    main = [sys.executable, "-c", "from genderscope.cli.app import main; main()"]
    try:
        r = subprocess.run([*prefix, *main, "runs", "list", "--json", "--store",
                            str(folder / "s.sqlite")], capture_output=True, text=True)
        assert r.returncode == 0 and rid in r.stdout, r.stderr
        r = subprocess.run([*prefix, *main, "runs", "show", rid[:10], "--store",
                            str(folder / "s.sqlite")], capture_output=True, text=True)
        assert r.returncode == 0 and "probe" in r.stdout, r.stderr
        assert sorted(p.name for p in folder.iterdir()) == ["s.sqlite"]
    finally:
        folder.chmod(stat.S_IRWXU)


def test_run_id_prefix_is_not_a_pattern(store: Store) -> None:
    store.record_run(_result())
    for pattern in ("%", "_", "2%", "____"):
        with pytest.raises(GenderscopeError, match="no run"):
            store.load_run(pattern)


@pytest.mark.parametrize(("sql", "match"), [
    ("UPDATE meta SET value='two' WHERE key='schema_version'", "'two'.*not an integer"),
    ("DELETE FROM meta", "None.*not an integer"),
    ("UPDATE meta SET value='0' WHERE key='schema_version'", "not a version"),
    ("DROP TABLE run_tables", "says schema version 2 but has no table run_tables"),
    ("ALTER TABLE runs DROP COLUMN cache_key", "no column runs.cache_key"),
])
def test_damaged_store_refused_on_open(tmp_path: Path, sql: str, match: str) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    con = sqlite3.connect(path)
    con.execute("DROP INDEX IF EXISTS runs_by_cache_key")
    con.execute(sql)
    con.commit()
    con.close()
    before = _sha(path)
    for readonly in (False, True):
        with pytest.raises(GenderscopeError, match=match):
            Store(path, readonly=readonly)
    assert _sha(path) == before


# -- concurrent creation ----------------------------------------------------------------------
class _Jittery(sqlite3.Connection):
    """A connection that pauses up to 5 ms before each statement, as a loaded machine would:
    it widens the gaps between statements where concurrent creators can collide."""

    def execute(self, *args):  # type: ignore[override]
        time.sleep(random.random() * 0.005)
        return super().execute(*args)


def _open_and_write(path: str, barrier, errors) -> None:
    random.seed(os.getpid())
    real_connect = sqlite3.connect
    sqlite3.connect = lambda *a, **k: real_connect(*a, factory=_Jittery, **k)  # type: ignore
    barrier.wait()
    try:
        s = Store(path)
        s.put_scores("m", "ns", {f"k{os.getpid()}": 1.0})
        s.close()
    except Exception as exc:  # reported to the parent, which fails the test
        errors.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.slow
def test_concurrent_creation_is_race_free(tmp_path: Path) -> None:
    """6 processes open the same brand-new store at the same instant, 8 times over."""
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    n_procs, n_trials = 6, 8
    errors = ctx.Queue()
    for trial in range(n_trials):
        path = str(tmp_path / f"s{trial}.sqlite")
        barrier = ctx.Barrier(n_procs)
        procs = [ctx.Process(target=_open_and_write, args=(path, barrier, errors))
                 for _ in range(n_procs)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert all(p.exitcode == 0 for p in procs)
        con = sqlite3.connect(path)
        assert con.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == n_procs
        assert con.execute("SELECT value FROM meta").fetchall() == [(str(SCHEMA_VERSION),)]
        con.close()
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []
