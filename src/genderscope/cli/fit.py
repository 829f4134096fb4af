"""Tables that stay readable in a narrow terminal.

rich shrinks a table that is wider than the terminal by wrapping its cells, and cuts
a word longer than its column with "…" (e.g. "MaleNam…" in `genderscope run weat` at
80 columns). :class:`FittingConsole` prints such a table as one block per row
instead: the row's first cell as its heading, then one ``column  value`` line per
other cell, each wrapped at word boundaries. A table whose every word fits is
printed as it is.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from genderscope.text_blocks import blocks, visible, visible_text


def _plain(cell: Any) -> str:
    """A cell's text: markup strings are parsed, ``Text`` keeps its characters."""
    if isinstance(cell, Text):
        return visible(cell.plain)
    if isinstance(cell, str):
        return visible(Text.from_markup(cell).plain)
    return visible(str(cell))


_EDGES = re.compile(r"[\s│┃┏┓┗┛━─┡┩└┘┬┴┼╇╈┳┻├┤╭╮╰╯|]+")


def fits(console: Console, table: Table) -> bool:
    """True when the table, rendered at the console's width, shows every word of every
    cell whole (rich's own measurement does not tell: it collapses columns below their
    longest word, which then end in "…")."""
    lines = console.render_lines(table, console.options, pad=False)
    shown = set(_EDGES.split("\n".join("".join(seg.text for seg in line) for line in lines)))
    words = {w for col in table.columns for cell in col.cells for w in _plain(cell).split()}
    return words <= shown


def as_blocks(table: Table) -> Group:
    """One block per row (:func:`genderscope.text_blocks.blocks`): the first cell as the
    heading, then one ``header  value`` line per other cell; the caption after."""
    headers = [_plain(c.header) for c in table.columns]
    columns = [[_plain(cell) for cell in c.cells] for c in table.columns]
    keys = [str(i) for i in range(len(headers))]  # headers may repeat or be empty
    rows = [{k: col[r] if r < len(col) else "" for k, col in zip(keys, columns, strict=True)}
            for r in range(table.row_count)]
    title = _plain(table.title) if table.title else None
    group = blocks(rows, title, keys[:1], None, list(zip(keys[1:], headers[1:], strict=True)))
    if table.caption:
        return Group(group, Text(_plain(table.caption), style="dim"))
    return group


class FittingConsole(Console):
    """A rich Console whose ``print`` turns a table too wide for the terminal into
    blocks (:func:`as_blocks`) instead of cutting its words, and which shows control and
    bidi characters (a file named with U+202E ...) as code points
    (:func:`genderscope.text_blocks.visible`) in everything it prints. Its width follows
    ``COLUMNS`` (or the terminal) when it prints, not when it was made: rich fixes it from
    ``COLUMNS`` at construction, and these consoles are made once, at import."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if kwargs.get("width") is None:
            self._width = None  # rich's size property then reads COLUMNS on each use

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)

    def render(self, renderable: Any, options: Any = None) -> Any:
        if isinstance(renderable, Text):
            renderable = visible_text(renderable)
        return super().render(renderable, options)

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 - rich's name
        objects = tuple(as_blocks(o) if isinstance(o, Table) and not fits(self, o) else o
                        for o in objects)
        super().print(*objects, **kwargs)
