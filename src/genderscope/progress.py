"""Rich progress bars on stderr (hidden when disabled or not a terminal in tests)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


@contextmanager
def progress_bar(label: str, total: int, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; shows a bar with count, elapsed and remaining time."""
    if not enabled:
        yield lambda n: None
        return
    prog = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=False)
    with prog:
        task = prog.add_task(label, total=total)
        yield lambda n: prog.advance(task, n)
