"""The report's headline numbers in a terminal, readable at any width.

One row per number of the page's headline table (:func:`headline_rows`), printed by
:func:`print_rows` as a table on a wide terminal, else as one block per number, never
breaking a word. Rows are plain dicts of strings, so a recorded run can be printed again
(``benchmarks/readme_sample.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from genderscope.reporting.findings import shown
from genderscope.reporting.runner import ReportData, items_note
from genderscope.text_blocks import blocks

WIDE = 120
"""Terminals at least this wide get one table; narrower ones one block per number."""

COLUMNS = ("model", "measure", "number", "estimate [95% CI]", "items", "reading", "time")
_BLOCK_KEYS = (("estimate [95% CI]", "estimate"), ("items", "items"), ("reading", "reading"))

SCOPE_WORDS = {
    "full": "Every benchmark ran in full (--full, the default on a GPU).",
    "subset": "Seeded subsets sized for a CPU (the items column says how many each number "
              "comes from); --full runs every benchmark in full.",
    "quick": "--quick: small seeded subsets, a smoke test with wide CIs; --full runs every "
             "benchmark in full."}
"""The line under the table: which scope ran (see ``runner.choose_scope``)."""


def headline_rows(data: ReportData) -> list[dict[str, str]]:
    """One row per number the page's headline table shows (primary numbers, and any
    secondary number whose own test finds bias), plus one per section that did not run."""
    from genderscope.reporting.compare import cell

    rows: list[dict[str, str]] = []
    for sec in data.sections:
        took = f"{sec.seconds:.1f} s" + (" reused" if sec.reused else "")
        base = {"model": sec.subject.label, "measure": sec.measure.name, "time": took}
        if sec.status != "ok":
            rows.append({**base, "number": "", "estimate [95% CI]": sec.status, "items": "",
                         "reading": sec.reason})
            continue
        for h in shown(sec.headlines):
            rows.append({**base, "number": h.label.strip(), "estimate [95% CI]": cell(h),
                         "items": items_note(sec, h), "reading": h.reading()})
    return rows


def print_rows(console: Console, rows: Sequence[dict[str, str]], *, title: str | None = None,
               columns: Sequence[str] = COLUMNS, wide: int | None = WIDE,
               head: Sequence[str] = ("model", "measure", "time"), sub: str | None = "number",
               fields: Sequence[tuple[str, str]] = _BLOCK_KEYS) -> None:
    """Print ``rows`` as one table when the console is at least ``wide`` columns wide
    (``None``: when the table fits whole, no cell wrapped), else as one block per row:
    the ``head`` values on one line, ``sub`` under it, then one ``(key, word)`` line per
    field; words are wrapped whole, never split."""
    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right" if col == "time" else "left")
    for r in rows:
        table.add_row(*(r.get(c, "") for c in columns))
    if wide is None:
        unbounded = console.options.update_width(10_000)  # the table's natural width
        fits = Measurement.get(console, unbounded, table).maximum <= console.width
    else:
        fits = console.width >= wide
    console.print(table if fits else blocks(rows, title, head, sub, fields))
