"""Reading docs/calibration.md back: the cells of its simulated rows (the tables whose
header starts ``| statistic |``), for the tests that check the page."""

from __future__ import annotations


def row_cells(text: str) -> list[list[str]]:
    """The cells of every simulated row of the page ``text``, in page order."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("| statistic |"):
            inside = True
            continue
        if inside and line.startswith("|---"):
            continue
        if inside and line.startswith("| "):
            rows.append([c.strip() for c in line.strip("|").split(" | ")])
        else:
            inside = False
    return rows
