"""Options and helpers shared by commands."""

from __future__ import annotations

from pathlib import Path

import typer

from genderscope.cli.fit import FittingConsole
from genderscope.results import Result
from genderscope.store import Store

console = FittingConsole(stderr=False)  # a table too wide for the terminal: one block per row
err_console = FittingConsole(stderr=True)

STORE_OPTION = typer.Option(None, "--store", envvar="GENDERSCOPE_STORE",
                            help="SQLite store for cached scores and results "
                                 "[default: ~/.cache/genderscope/store.sqlite].")
OUT_OPTION = typer.Option(None, "--out", help="Folder for items.csv and summary.json "
                                              "[default: ./genderscope-results/<method>].")
DEVICE_OPTION = typer.Option(None, "--device", help="cpu, cuda or mps [default: best available].")
DTYPE_OPTION = typer.Option("float32", "--dtype", help="float32, float16 or bfloat16.")
JSON_OPTION = typer.Option(False, "--json", help="Print the summary as JSON instead of a table.")


REUSE = {"enabled": True}
"""Set by ``genderscope run --reuse/--no-reuse`` (the ``run`` group's option)."""


def run_measure(*args: object, **kwargs: object) -> Result:
    """:func:`genderscope.engine.run` with the ``run`` group's ``--reuse/--no-reuse``."""
    from genderscope.api import run

    return run(*args, reuse=REUSE["enabled"], **kwargs)  # type: ignore[arg-type]


def run_note(result: Result, base: Path | str) -> str:
    """The last line of a run: its id, where it was saved, and how long it took, or that
    it is a stored run reused (and how long it took when it was computed)."""
    meta = result.metadata
    if meta.get("reused"):
        return (f"reused stored run {meta['run_id']} (same model, options and items; computed "
                f"in {meta.get('runtime_s', '?')} s; `genderscope run --no-reuse ...` "
                f"recomputes); saved to {base}")
    return f"run {meta['run_id']}; saved to {base}; {meta.get('runtime_s', '?')} s"


def open_store(path: Path | None, readonly: bool = False) -> Store:
    """The store at ``--store`` (or the default); ``readonly`` for commands that only read:
    they never create, migrate or write a store."""
    return Store(path, readonly=readonly)


def default_out(method: str, out: Path | None) -> Path:
    return out if out is not None else Path("genderscope-results") / method


def command_line() -> str:
    """The command as the user typed it (recorded in each result's metadata)."""
    import shlex
    import sys

    return "genderscope " + " ".join(shlex.quote(a) for a in sys.argv[1:])
