"""Rows printed as blocks where a table would not fit the terminal (rich only): a bold
heading line per row, an optional line under it, then one ``word  value`` line per
field, values wrapped at word boundaries. Used by the report's terminal summary and by
every CLI table (``genderscope.cli.fit``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text


def blocks(rows: Sequence[dict[str, str]], title: str | None, head_keys: Sequence[str],
           sub: str | None, fields: Sequence[tuple[str, str]]) -> Group:
    """One block per row: the ``head_keys`` values joined by " · ", ``sub`` under them,
    then one ``(key, word)`` line per field the row has."""
    parts: list[Any] = [Text(title, style="italic")] if title else []
    for r in rows:
        parts.append(Text(" · ".join(r[k] for k in head_keys if r.get(k)), style="bold"))
        if sub and r.get(sub):
            parts.append(Padding(Text(r[sub]), (0, 0, 0, 2)))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column()
        for key, word in fields:
            if r.get(key):
                grid.add_row(Text(word, style="dim"), Text(r[key]))
        parts.append(Padding(grid, (0, 0, 0, 4)))
    return Group(*parts)
