"""The two kinds of bad-input case (tests/bad_inputs.py, tests/bad_inputs_issue24.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One command line (paths relative to the workspace; ``{model}`` = a tiny BERT
    folder), the issue item it checks, and a fragment the error line must hold."""

    item: str
    what: str
    args: tuple[str, ...]
    expect: str
    cache_may_grow: bool = False
    """The model loaded before the input was refused: its memo in the store (a cache) may
    be new; every other file stays as it was."""


@dataclass(frozen=True)
class ApiCase:
    """One Python API call (``call``: an expression evaluated in the workspace with ``gs``
    = genderscope, ``Result``, ``pd`` and ``MODEL`` = the tiny BERT folder) that must raise
    ``GenderscopeError``, ``TypeError`` or ``ValueError`` holding ``expect``, before any
    work."""

    item: str
    what: str
    call: str
    expect: str
