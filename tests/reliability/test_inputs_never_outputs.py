"""Inputs are never outputs, in every command (issue 37, item 1): every command that
writes, with ``--out`` (or ``--plot``, or the data cache) pointed at each thing it reads
(model folder, vectors, test file, classifier code, texts, corpus, compared run folders,
sweep file, the results store) or at a folder holding it, ``--overwrite`` or not: exit 2,
one ``error:`` line, and every file's SHA-256 unchanged (tests/bad_inputs_issue37.py's
``INPUTS``; ``outputs.command_inputs`` decides what a command reads)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from bad_inputs import make_workspace, run_case  # noqa: E402
from bad_inputs_issue37 import INPUTS  # noqa: E402

WRITERS = {"run weat", "run counterfactual", "attack", "run bias-amplification", "report",
           "runs export", "compare", "sweep", "debias hard", "debias multiclass-hard",
           "debias double-hard", "debias hsr", "debias ran", "debias inlp",
           "debias sentence-debias", "debias self-debias", "debias dropout"}
"""Every kind of command that writes (``debias cds``' inputs: tests/bad_inputs_issue24.py;
``data fetch``: below)."""


def _command(args: tuple[str, ...]) -> str:
    return " ".join(args[:2]) if args[0] in ("run", "runs", "debias") else args[0]


def _refused(monkeypatch: pytest.MonkeyPatch, argv: list[str], needle: str) -> None:
    """The command line ``argv`` (``sys.argv``, the program name first) exits 2 with one
    line holding ``needle``."""
    import contextlib
    import io

    from genderscope.cli.app import main

    monkeypatch.setattr("sys.argv", argv)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
            pytest.raises(SystemExit) as exc:
        main()
    text = err.getvalue().strip()
    assert exc.value.code == 2 and needle in text, text
    assert len(text.splitlines()) == 1


def test_every_command_that_writes_is_covered() -> None:
    assert {_command(c.args) for c in INPUTS} == WRITERS


@pytest.mark.parametrize("case", INPUTS, ids=[c.what for c in INPUTS])
def test_out_never_an_input(case, tiny_bert_dir: Path, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    outcome = run_case(case, root, tiny_bert_dir)  # snapshot: every file's SHA-256
    lines = outcome.stderr.splitlines()
    assert outcome.code == 2, outcome.stderr
    assert lines and lines[-1].startswith("error: ") and case.expect in lines[-1], \
        outcome.stderr
    assert sum(x.startswith("error") for x in lines) == 1 and "Traceback" not in outcome.stderr
    assert outcome.changed == [], outcome.changed


def test_data_fetch_never_writes_over_the_store(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The data cache folder a fetch writes into may not hold the results store."""

    from genderscope.store import Store

    folder = tmp_path / "cache" / "data" / "kurita"
    folder.mkdir(parents=True)
    store = folder / "store.sqlite"
    Store(store).close()
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GENDERSCOPE_STORE", str(store))
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", "http://127.0.0.1:9")
    monkeypatch.setenv("GENDERSCOPE_DATA_RETRIES", "0")
    _refused(monkeypatch, ["genderscope", "data", "fetch", "kurita"],
             "is or holds the input")
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in folder.iterdir()) == ["store.sqlite"]


@pytest.mark.parametrize("sidecar", ["-wal", "-shm"])
def test_runs_export_never_replaces_the_store_in_use(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     sidecar: str) -> None:
    """While another process writes the store, its write-ahead log and shared memory
    are part of it: ``runs export --out STORE-wal --format json --overwrite`` is refused
    in one line and leaves them as they were."""
    import sqlite3

    from genderscope.store import Store

    store = tmp_path / "s.sqlite"
    Store(store).close()
    other = sqlite3.connect(store)  # another process's handle, mid-session
    try:
        other.execute("PRAGMA journal_mode=WAL")
        other.execute("CREATE TABLE other_writer (x)")
        other.execute("INSERT INTO other_writer VALUES (1)")
        other.commit()
        part = tmp_path / f"s.sqlite{sidecar}"
        before = hashlib.sha256(part.read_bytes()).hexdigest()
        _refused(monkeypatch, ["genderscope", "runs", "export", "--store", str(store),
                                         "--out", str(part), "--format", "json",
                                         "--overwrite"],
                 "is or holds the input")
        assert hashlib.sha256(part.read_bytes()).hexdigest() == before
    finally:
        other.close()


@pytest.mark.parametrize(("args", "out"), [
    (["--test", "tests/wt.json"], "tests"),  # the folder holding a --test file
    (["--tests-dir", "tests", "--test", "wt"], "tests"),  # --tests-dir itself
    (["--test", "wt.json", "--store", "sub/s.sqlite"], "sub"),  # the folder holding the store
], ids=["test-file", "tests-dir", "store"])
def test_run_many_never_writes_into_its_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               args: list[str], out: str) -> None:
    """``run-many --out`` is refused in one line, before any work, where it holds a test
    file, is ``--tests-dir`` or holds the store (it checked the vectors and queries only)."""
    import shutil

    from genderscope.store import Store

    root = make_workspace(tmp_path / "ws")
    (root / "tests").mkdir()
    shutil.copy(root / "wt.json", root / "tests" / "wt.json")
    (root / "sub").mkdir()
    Store(root / "sub" / "s.sqlite").close()
    monkeypatch.chdir(root)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest()
              for p in (root / out).iterdir()}
    _refused(monkeypatch, ["genderscope", "run-many", "--vectors", "vec.txt", *args,
                                     "--metric", "weat", "--resamples", "100", "--out", out],
             "is or holds the input")
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (root / out).iterdir()} == before


def test_plot_never_writes_through_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """``gs.plot(result, path)`` checks ``path`` as every output: a link (here to the
    results store, which the figure overwrote), a folder or a name without a figure's
    suffix is refused in one line, and a good path is written whole."""
    import os

    import genderscope as gs
    from genderscope.errors import GenderscopeError

    root = make_workspace(tmp_path / "ws")
    monkeypatch.chdir(root)
    monkeypatch.setenv("GENDERSCOPE_STORE", str(root / "s.sqlite"))
    result = gs.run("weat", "vec.txt", test="wt.json")
    before = hashlib.sha256((root / "s.sqlite").read_bytes()).hexdigest()
    os.symlink("s.sqlite", "figure.png")
    for path, expect in (("figure.png", "symbolic link"), ("afolder.png", "is a folder"),
                         ("wt.json", ".png, .svg or .pdf")):
        with pytest.raises(GenderscopeError, match=expect) as err:
            gs.plot(result, path)
        assert "\n" not in str(err.value)
    assert hashlib.sha256((root / "s.sqlite").read_bytes()).hexdigest() == before
    gs.plot(result, "good.svg")
    assert (root / "good.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")


@pytest.mark.parametrize("flag", ["--target", "--ignore"])
def test_vector_debias_out_never_holds_its_word_lists(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      flag: str) -> None:
    """``debias hsr --target/--ignore LIST --out FOLDER-HOLDING-LIST``: refused in one line
    (the word lists were read but not counted among the inputs)."""


    root = make_workspace(tmp_path / "ws")
    (root / "lists").mkdir()
    (root / "lists" / "words.txt").write_text("doctor\nnurse\n", encoding="utf-8")
    monkeypatch.chdir(root)
    _refused(monkeypatch, ["genderscope", "debias", "hsr", "--vectors", "vec.txt",
                                     flag, "lists/words.txt", "--out", "lists",
                                     "--no-evaluate"],
             "is or holds the input lists/words.txt")
    assert sorted(p.name for p in (root / "lists").iterdir()) == ["words.txt"]
