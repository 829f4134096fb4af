"""The one output rule of every command that writes (issue 24).

1. Check everything first: a path is refused before any work when it is a symbolic link
   (dangling or not), a device or other special file, the current folder or one of its
   ancestors, an input or a folder holding an input, a folder where a file is wanted (or
   the reverse), or lies under a file.
2. Write into a fresh temporary sibling made by :func:`tempfile.mkstemp` /
   :func:`tempfile.mkdtemp` in the destination's folder (``O_EXCL``: never a fixed name,
   never following a planted link), then rename it into place.
3. ``overwrite`` replaces only what genderscope created: a regular file, or a folder
   holding the :data:`MARKER` file genderscope writes into every folder it fills.
4. A failure (a full disk) leaves the old output as it was and no temporary file.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from genderscope.checks import shown_option, utf8_text
from genderscope.errors import ArgumentError, GenderscopeError

MARKER = ".genderscope-output"
"""File genderscope writes into each output folder it fills: JSON naming the files it
wrote. A folder without it is the user's, and is never replaced."""

PathLike = str | os.PathLike[str]


def _nearest_existing(path: Path) -> Path:
    p = path
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def _as_path(path: Any, option: str) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentError(f"{option} must be a path (str or os.PathLike), got "
                        f"{type(path).__name__}")
    p = Path(path)
    if not str(p).strip():
        raise GenderscopeError(f"{option}: empty path")
    utf8_text(str(p), option)
    return p


def check_not_unsafe(path: PathLike, option: str, inputs: Iterable[Any] = ()) -> Path:
    """Refuse a destination that must never be written or replaced: a symbolic link, a
    device or other special file, the current folder or an ancestor of it, and an input
    (or a folder holding one). ``inputs``: paths the command reads (non-paths ignored).
    ``option`` names the destination (a flag is named as the caller does:
    :func:`~genderscope.checks.shown_option`)."""
    option = shown_option(option)
    p = _as_path(path, option)
    if p.is_symlink():
        raise GenderscopeError(f"{option} {p} is a symbolic link; give a plain path "
                               "(genderscope never writes through links)")
    if p.exists():
        mode = p.stat().st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise GenderscopeError(f"{option} {p} is a device or special file, not a "
                                   "regular file or folder")
    full = Path(os.path.abspath(p))
    real = Path(os.path.realpath(p))
    cwd = Path(os.getcwd())
    for target in {full, real}:
        if target == cwd or target in cwd.parents:
            raise GenderscopeError(f"{option} {p} is the current folder or one of its "
                                   "ancestors; give a new folder")
    check_not_input(p, option, inputs)
    return p


def check_not_input(path: Path, option: str, inputs: Iterable[Any]) -> None:
    """Refuse a destination that is, or is a folder holding, one of ``inputs`` (what the
    command reads: :func:`command_inputs`), links resolved."""
    real = Path(os.path.realpath(path))
    for item in inputs:
        if not isinstance(item, (str, os.PathLike)) or not str(item):
            continue
        src = Path(os.path.realpath(item))
        if not os.path.lexists(item):
            continue
        if real == src or real in src.parents:
            raise GenderscopeError(f"{option} {path} is or holds the input {item}; write the "
                                   "output elsewhere")


STORE_ENV = "GENDERSCOPE_STORE"
"""The store's environment variable (``genderscope.store.schema.ENV_VAR`` is this one:
this layer sits below the store, which reads the variable through :func:`store_location`)."""


STORE_SIDECARS = ("-wal", "-shm", "-journal")
"""SQLite's files beside a store in use (its write-ahead log, shared memory, rollback
journal): parts of the store, never an output."""


def store_location(store: Any = None) -> Path:
    """Where a command's results store is: a ``Store``'s ``path``, a given path, else
    ``$GENDERSCOPE_STORE`` or ``~/.cache/genderscope/store.sqlite`` (as
    ``genderscope.store.default_store_path``)."""
    given = getattr(store, "path", store)
    if isinstance(given, (str, os.PathLike)) and str(given):
        return Path(given)
    env = os.environ.get(STORE_ENV)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "genderscope" / "store.sqlite"


def _spec_paths(spec: str | os.PathLike[str]) -> list[str | os.PathLike[str]]:
    """The files a model SPEC names: the spec itself (a folder, a vector or GGUF file), or
    the file of a classifier SPEC ``file.py:name`` / ``model.joblib`` (never a Hub id or an
    ``openai:`` endpoint, which name no local file)."""
    text = os.fspath(spec)
    found: list[str | os.PathLike[str]] = [spec]
    if ":" in text and not os.path.lexists(text):
        head = text.rsplit(":", 1)[0]
        if head and os.path.lexists(head):
            found.append(head)
    return found


def command_inputs(*, models: Iterable[Any] = (), options: Mapping[str, Any] | None = None,
                   paths: Iterable[Any] = (), store: Any = None,
                   uses_store: bool = True) -> list[str | os.PathLike[str]]:
    """Everything a command reads, which no output may be or hold (issue 37), whatever
    ``--overwrite`` says: each model, vector file, encoder and classifier named in
    ``models`` (a classifier SPEC's file too), every existing path among ``options``'
    values (data files, ``--texts``, ``--corpus``, ``--query``, test files; lists
    included), the further ``paths`` (a sweep file, compared result folders), and the
    results store (``store``, else ``$GENDERSCOPE_STORE`` or the default; with its
    :data:`STORE_SIDECARS` while they exist) when the command ``uses_store``. Objects
    that are not paths (loaded adapters) are skipped."""
    found: list[str | os.PathLike[str]] = []

    def add(value: Any) -> None:
        if isinstance(value, (str, os.PathLike)) and str(value):
            found.extend(_spec_paths(value))
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                add(v)

    for model in models:
        add(model)
    for value in (options or {}).values():
        add(value)
    for value in paths:
        add(value)
    if uses_store:
        db = store_location(store)
        found.extend([db, *(db.with_name(db.name + s) for s in STORE_SIDECARS)])
    return [p for p in found if _exists(p)]


def _exists(path: Any) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):  # a name with a NUL byte, or not encodable
        return False


def check_output_file(path: PathLike, option: str, *, overwrite: bool = True,
                      suffixes: tuple[str, ...] = (), inputs: Iterable[Any] = ()) -> Path:
    """Refuse, before any work, an output file that cannot be written: a folder, a path
    under a file, a wrong suffix, a link, a device, an input, or (unless ``overwrite``) a
    file that already exists."""
    option = shown_option(option)
    p = check_not_unsafe(path, option, inputs)
    if suffixes and p.suffix.lower() not in suffixes:
        names = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 \
            else suffixes[0]
        raise GenderscopeError(f"{option} {p}: use a {names} file name")
    if p.is_dir():
        raise GenderscopeError(f"{option} {p} is a folder; give a file name")
    if p.exists() and not overwrite:
        raise GenderscopeError(f"{option} {p} already exists; pass --overwrite to replace it")
    base = _nearest_existing(p.parent)
    if not base.is_dir():
        raise GenderscopeError(f"{option} {p}: {base} is a file, not a folder")
    return p


def written_by_genderscope(folder: Path) -> list[str] | None:
    """Names of the files genderscope wrote into ``folder`` (its :data:`MARKER`), or None
    when the folder is not genderscope's."""
    m = folder / MARKER
    if m.is_symlink() or not m.is_file():
        return None
    try:
        names = json.loads(m.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def check_output_folder(path: PathLike, option: str = "--out", *,
                        inputs: Iterable[Any] = (), files: Iterable[str] = ()) -> Path:
    """Refuse, before any work, an output folder that is a file, lies under a file, is a
    link, the current folder, an input or holds one, or already holds one of ``files``
    that genderscope did not write there."""
    option = shown_option(option)
    p = check_not_unsafe(path, option, inputs)
    if p.exists() and not p.is_dir():
        raise GenderscopeError(f"{option} {p} is a file, not a folder")
    base = _nearest_existing(p)
    if not base.is_dir():
        raise GenderscopeError(f"{option} {p}: {base} is a file, not a folder")
    if p.is_dir():
        ours = set(written_by_genderscope(p) or ())
        for name in files:
            f = p / name
            if os.path.lexists(f) and (name not in ours or f.is_symlink() or not f.is_file()):
                raise GenderscopeError(f"{option} {p} already holds {name}, which genderscope "
                                       "did not write; choose another folder")
    return p


def _umask_mode(mode: int = 0o666) -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mode & ~mask


def _fail(dest: Path, exc: OSError) -> GenderscopeError:
    return GenderscopeError(f"cannot write {dest}: {exc.strerror or exc}")


def write_file(path: PathLike, write: Callable[[Path], Any]) -> Path:
    """Write one file all or nothing: ``write(tmp)`` fills a fresh ``mkstemp`` sibling,
    which is then renamed onto ``path`` (a link at ``path`` is replaced, never followed).
    On failure nothing is left behind and an existing ``path`` is unchanged."""
    return write_files({Path(path): write})[Path(path)]


def write_files(writers: Mapping[Path, Callable[[Path], Any]]) -> dict[Path, Path]:
    """Write several files all or nothing (each as :func:`write_file`): every file is
    first written beside its destination, and only when all succeeded are they renamed
    into place. An :class:`OSError` becomes a one-line :class:`GenderscopeError`."""
    temps: dict[Path, Path] = {}
    try:
        for dest, write in writers.items():
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.",
                                        suffix=".tmp")
            os.close(fd)
            temps[dest] = Path(name)
            os.chmod(name, _umask_mode())
            try:
                write(Path(name))
            except OSError as exc:
                raise _fail(dest, exc) from None
        for dest, tmp in temps.items():
            os.replace(tmp, dest)
    except OSError as exc:
        raise _fail(next(iter(writers)), exc) from None
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return {dest: dest for dest in writers}


def write_text(path: PathLike, text: str) -> Path:
    """:func:`write_file` of a UTF-8 text."""
    return write_file(path, lambda p: p.write_text(text, encoding="utf-8"))


def mark_folder(folder: Path, names: Iterable[str]) -> None:
    """Record in ``folder``'s :data:`MARKER` that genderscope wrote ``names`` there."""
    known = set(written_by_genderscope(folder) or ()) | set(names)
    write_text(folder / MARKER, json.dumps({"written_by": "genderscope",
                                            "files": sorted(known)}, indent=1) + "\n")


def save_result(result: Any, folder: PathLike) -> Path:
    """Write ``result``'s ``summary.json``, ``items.csv`` and one CSV per further table
    into ``folder``, all or nothing, and mark them as genderscope's."""
    out = check_output_folder(folder, "--out", files=result_files(result))
    writers: dict[Path, Callable[[Path], Any]] = {
        out / "summary.json": lambda p: p.write_text(result.summary_json() + "\n",
                                                     encoding="utf-8"),
        out / "items.csv": lambda p: result.items.to_csv(p, index=False)}
    for name, table in result.tables.items():
        writers[out / f"{name}.csv"] = lambda p, t=table: t.to_csv(p, index=False)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _fail(out, exc) from None
    write_files(writers)
    mark_folder(out, [p.name for p in writers])
    return out


def result_files(result: Any) -> list[str]:
    """File names :func:`save_result` writes for ``result``."""
    names = getattr(result, "table_names", None)
    if names is None:
        names = list(result.tables)
    return ["summary.json", "items.csv", *(f"{n}.csv" for n in names)]


def new_folder_beside(dest: Path) -> Path:
    """A fresh empty folder (``mkdtemp``) beside ``dest``, to fill and then
    :func:`publish_folder`."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))


def publish_folder(tmp: Path, dest: Path) -> Path:
    """Put the filled folder ``tmp`` at ``dest``: an existing ``dest`` (which the caller
    checked is genderscope's) is first renamed aside, then removed once ``tmp`` is in
    place."""
    aside = None
    if dest.exists():
        aside = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}.old."))
        os.replace(dest, aside / "x")
    try:
        os.replace(tmp, dest)
    except OSError:
        if aside is not None:
            os.replace(aside / "x", dest)
            shutil.rmtree(aside, ignore_errors=True)
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
    return dest


def save_with_figures(result: Any, folder: PathLike,
                      figures: dict[Path, Callable[[Path], Any]]) -> Path:
    """Save ``result`` to ``folder`` and draw each figure, all or nothing.

    ``figures`` maps a destination path to ``draw(path)``; ``draw`` is first given the
    same file name in a scratch folder (it may write several files there, e.g.
    ``.png`` and ``.svg`` of one base name), so a figure that fails leaves no item
    table, summary or figure behind. Then the result is saved and the drawn files are
    moved next to their destination (each renamed into place from a fresh sibling).
    """
    check_output_folder(folder, "--out", files=result_files(result))
    with tempfile.TemporaryDirectory(prefix="genderscope-") as scratch:
        drawn: list[tuple[Path, Path]] = []
        for i, (dest, draw) in enumerate(figures.items()):
            tmp = Path(scratch) / str(i)
            tmp.mkdir()
            draw(tmp / Path(dest).name)
            drawn.append((tmp, Path(dest).parent))
        out = save_result(result, folder)
        for tmp, dest_dir in drawn:
            moves = {dest_dir / f.name: (lambda p, src=f: shutil.copyfile(src, p))
                     for f in sorted(tmp.iterdir())}
            write_files(moves)
            if dest_dir.resolve() == Path(out).resolve():
                mark_folder(Path(out), [p.name for p in moves])
    return out
