"""Errors a user can cause. The CLI prints them as one line and exits with code 2."""

from __future__ import annotations


class GenderscopeError(Exception):
    """A problem with the user's input (file, word list, model path, option).

    The message must say what is wrong and where (file, line, column, option),
    on one line, without a traceback.
    """


class DataError(GenderscopeError):
    """A data file is missing, malformed or inconsistent."""


class ModelLoadError(GenderscopeError):
    """A model cannot be loaded or is unsuitable (e.g. its LM head is missing)."""


def where(path: object, line: int | None = None, column: str | None = None) -> str:
    """Format a location as ``path:line (column 'c')`` for error messages."""
    out = str(path)
    if line is not None:
        out += f":{line}"
    if column is not None:
        out += f" (column {column!r})"
    return out
