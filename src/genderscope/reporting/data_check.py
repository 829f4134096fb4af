"""Before a report runs: the registered data sets its measures read, and which are not here
yet (not in ``--data``/``$GENDERSCOPE_DATA``, not packaged, not in the fetch cache), learnt
from the plans without reading, fetching or loading anything."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from genderscope.datasets.locations import available_here, needed_sets
from genderscope.reporting.entry import Context
from genderscope.reporting.plan_runs import plans_of

if TYPE_CHECKING:
    from genderscope.reporting.runner import Subject


@dataclass
class DataCheck:
    """``needs``: data set -> the measures that read it, in page order; ``missing``:
    those sets that a run would have to fetch first."""

    needs: dict[str, list[str]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    runs: int = 0
    """Measure x model sections that will run (for 'n of N' progress)."""

    def line(self) -> str:
        """One line for the terminal: the sets read, and which must be fetched."""
        if not self.needs:
            return "data: none needed"
        have = [s for s in self.needs if s not in self.missing]
        text = f"data: {', '.join(have) or 'none here'}"
        if self.missing:
            text += f"; to fetch: {', '.join(self.missing)} (for " + ", ".join(
                sorted({m for s in self.missing for m in self.needs[s]})) + ")"
        return text


def check_data(subjects: Sequence[Subject], ctx: Context,
               names: Sequence[str] | None = None) -> DataCheck:
    """The data sets the report of ``subjects`` (measures ``names``, default: all that
    apply) reads, and those missing here."""
    from genderscope.engine import plan_of
    from genderscope.reporting.registry import cards_for
    from genderscope.reporting.runner import not_applicable

    check = DataCheck()
    seen: set[str] = set()
    for subject, cards in cards_for(subjects, names):
        for card in cards:
            if not_applicable(card, subject, ctx):
                continue
            check.runs += 1
            if card.name in seen:
                continue
            seen.add(card.name)

            def build(card: object = card) -> None:
                for name, options in plans_of(card, ctx):  # type: ignore[arg-type]
                    plan_of(name, {**options, "progress": False})

            for ds in needed_sets(build):
                check.needs.setdefault(ds, []).append(card.name)
    roots = [ctx.data_dir] if ctx.data_dir is not None else None
    check.missing = [ds for ds in check.needs if not available_here(ds, roots)]
    return check
