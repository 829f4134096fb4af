"""A section's strongest finding: which of its numbers the headline tables show, and the
section's badge (a significant sub-result is never hidden behind a null headline)."""

from __future__ import annotations

from genderscope.reporting.entry import Headline


def shown(headlines: list[Headline]) -> list[Headline]:
    """The numbers a headline table shows for one section: its primary numbers, then any
    secondary number whose own test finds bias (Holm-adjusted where it belongs to a
    family)."""
    return [h for h in headlines if h.primary or h.evidence() is True]


def verdict(headlines: list[Headline]) -> str:
    """A section's badge: ``bias`` when every judged primary number finds bias, ``mixed``
    when some judged number (primary, or secondary by its own test) finds bias and some
    do not, ``none`` when none does; ``context`` / ``no uncertainty`` when no number is
    judged against a null."""
    judged = [h.evidence() for h in headlines if h.null is not None]
    primary = [e for e in (h.evidence() for h in headlines if h.primary and h.null is not None)
               if e is not None]
    if not judged:
        return "context"
    if all(e is None for e in judged):
        return "no uncertainty"
    if primary and all(e is True for e in primary):
        return "bias"
    return "mixed" if any(e is True for e in judged) else "none"
