"""Writing a command's outputs safely: paths checked before any work, files never replaced
unless asked, and a run's folder written all or nothing."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from genderscope.errors import GenderscopeError


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_output_file(path: str | Path, option: str, *, overwrite: bool = True,
                      suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse, before any work, an output file that cannot be written: a folder, a path
    under a file, a wrong suffix, or (unless ``overwrite``) a file that already exists."""
    p = Path(path)
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


def check_output_folder(path: str | Path, option: str = "--out") -> Path:
    """Refuse, before any work, an output folder that is a file or lies under a file."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise GenderscopeError(f"{option} {p} is a file, not a folder")
    base = _nearest_existing(p)
    if not base.is_dir():
        raise GenderscopeError(f"{option} {p}: {base} is a file, not a folder")
    return p


def save_with_figures(result: Any, folder: str | Path,
                      figures: dict[Path, Callable[[Path], Any]]) -> Path:
    """Save ``result`` to ``folder`` and draw each figure, all or nothing.

    ``figures`` maps a destination path to ``draw(path)``; ``draw`` is first given the
    same file name in a scratch folder (it may write several files there, e.g.
    ``.png`` and ``.svg`` of one base name), so a figure that fails leaves no item
    table, summary or figure behind. Then the result is saved and the drawn files are
    moved next to their destination.
    """
    with tempfile.TemporaryDirectory(prefix="genderscope-") as scratch:
        drawn: list[tuple[Path, Path]] = []
        for i, (dest, draw) in enumerate(figures.items()):
            tmp = Path(scratch) / str(i)
            tmp.mkdir()
            draw(tmp / Path(dest).name)
            drawn.append((tmp, Path(dest).parent))
        out = result.save(folder)
        for tmp, dest_dir in drawn:
            for f in sorted(tmp.iterdir()):
                try:
                    dest_dir.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(f), str(dest_dir / f.name))
                except OSError as exc:
                    raise GenderscopeError(f"cannot write figure {dest_dir / f.name}: "
                                           f"{exc.strerror or exc}") from None
    return out
