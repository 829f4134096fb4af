"""Progress on stderr: rich bars and stage lines, behind one process-wide switch.

The switch (:func:`set_enabled`, :func:`scoped`) is what ``--no-progress`` and the API's
``progress=False`` turn off: every bar and stage line of genderscope, and (through
:func:`enabled`, which the model layer reads before it loads anything) the bars of the
libraries it calls (transformers, huggingface_hub, sentence-transformers).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

T = TypeVar("T")
_SWITCH = {"on": True}


def enabled() -> bool:
    """Whether progress may be shown in this process now."""
    return _SWITCH["on"]


def set_enabled(on: bool) -> None:
    """Turn every bar and stage line of this process on or off."""
    _SWITCH["on"] = bool(on)


@contextmanager
def scoped(on: bool) -> Iterator[None]:
    """Progress off (``on`` false) for the duration of a call; never turns it on when the
    process switch is off."""
    before = _SWITCH["on"]
    _SWITCH["on"] = before and bool(on)
    try:
        yield
    finally:
        _SWITCH["on"] = before


def _console() -> Console:
    return Console(stderr=True)


@contextmanager
def progress_bar(label: str, total: int, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; shows a bar with count, elapsed and remaining time."""
    if not (enabled and _SWITCH["on"]):
        yield lambda n: None
        return
    prog = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(),
                    console=_console(), transient=False)
    with prog:
        task = prog.add_task(label, total=total)
        yield lambda n: prog.advance(task, n)


@contextmanager
def stage(label: str) -> Iterator[None]:
    """A step with no count (loading a model, parsing vectors): on a terminal, a spinner
    with the label and the elapsed time while it runs, then one line ``label: done in
    S s`` (seconds). Not on a terminal (a log, a pipe, a script reading stderr) it
    prints nothing: stderr there keeps to results and one-line errors."""
    console = _console()
    if not (_SWITCH["on"] and console.is_terminal):
        yield
        return
    start = time.perf_counter()
    prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                    console=console, transient=True)
    with prog:
        prog.add_task(label, total=None)
        yield
    console.print(f"{label}: done in {time.perf_counter() - start:.1f} s", highlight=False)


def honours_progress_argument(fn: Callable[..., T]) -> Callable[..., T]:
    """Decorate an API function with a keyword ``progress`` (default False): while it
    runs, the process switch is off unless ``progress=True`` (:func:`scoped`)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        with scoped(bool(kwargs.get("progress", False))):
            return fn(*args, **kwargs)

    return wrapper
