"""Rows printed as blocks where a table would not fit the terminal (rich only): a bold
heading line per row, an optional line under it, then one ``word  value`` line per
field, values wrapped at word boundaries. Used by the report's terminal summary and by
every CLI table (``genderscope.cli.fit``). :func:`visible` shows the control and bidi
characters of a user's names as code points, on the page and in the terminal;
:func:`plural` counts things ("1 measure", "2 measures")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069]")
"""Control characters (C0 but newline and tab, DEL, C1) and bidi formatting characters
(marks, embeddings, overrides, isolates): they can make a name display as another."""


def visible(text: str) -> str:
    """``text`` with each control or bidi formatting character shown as its code point,
    e.g. U+202E (right-to-left override) -> "⟨U+202E⟩"; newline and tab are kept."""
    return _HIDDEN.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, pluralised when ``n`` is not 1: ``plural(1, "measure")`` ->
    "1 measure", ``plural(3, "difference")`` -> "3 differences" (``many``: an irregular
    plural)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def visible_text(text: Text) -> Text:
    """:func:`visible` for a rich ``Text``, its styles kept (a shown code point takes the
    style of the character it replaces)."""
    cuts = sorted({i for m in _HIDDEN.finditer(text.plain) for i in (m.start(), m.end())})
    if not cuts:
        return text
    out = text.blank_copy()
    for piece in text.divide(cuts):
        if _HIDDEN.fullmatch(piece.plain):
            shown = Text(visible(piece.plain), style=piece.style)
            for span in piece.spans:
                shown.stylize(span.style, 0, len(shown))
            piece = shown
        out.append_text(piece)
    return out


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
