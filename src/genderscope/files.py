"""Reading the files a user names: one-line errors that name the file and say what is
wrong (missing, a folder, not UTF-8, not JSON), and a UTF-8 byte-order mark removed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from genderscope.errors import DataError, where

BOM = "\ufeff"


def existing_file(path: str | Path, what: str = "file") -> Path:
    """``path`` if it is a file; a folder or a missing path is a :class:`DataError`."""
    p = Path(path)
    if p.is_dir():
        raise DataError(f"{what} {p} is a folder, not a file")
    if not p.exists():
        raise DataError(f"{what} not found: {p}")
    return p


def not_utf8(path: str | Path, exc: UnicodeDecodeError, what: str = "file") -> DataError:
    """The error for a file that is not UTF-8 text (names the file and the byte)."""
    return DataError(f"{path}: {what} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                     "save it as UTF-8")


def read_text(path: str | Path, what: str = "file") -> str:
    """The whole file as text: UTF-8 (a leading byte-order mark dropped), else a one-line
    :class:`DataError` naming the file."""
    p = existing_file(path, what)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read {what} {p}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        raise not_utf8(p, exc, what) from None


def read_json(path: str | Path, what: str = "file") -> Any:
    """The file's JSON value (:func:`read_text`); invalid JSON is a one-line
    :class:`DataError` naming the file and line."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{where(path, exc.lineno)}: invalid JSON: {exc.msg}") from None
