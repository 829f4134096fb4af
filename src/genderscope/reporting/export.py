"""Stored runs in readable form: the model's name beside its fingerprint, and one row per
headline number (``genderscope runs export --what headlines``).

A headline row is what the report's headline tables show for a number, as data: model
(the name typed, and its fingerprint), measure, number, estimate, 95 % CI low/high, unit,
p, multiplicity-adjusted p (Holm or Benjamini-Hochberg, ``p_adjust_method``), n (items
the number comes from), the count phrase of the page, and the reading in words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

HEADLINE_COLUMNS = ("run_id", "model_name", "model", "measure", "number", "estimate",
                    "ci_low", "ci_high", "unit", "ci_unit", "p", "p_adjusted",
                    "p_adjust_method", "n", "items", "evidence", "reading")


def model_name(metadata: dict[str, Any]) -> str:
    """The model as the user named it: the report's label (``model_name``), else the
    adapter's name or source (``smollm2``, a Hub id, a path), without the file in
    parentheses; '' when the run does not say."""
    if metadata.get("model_name"):
        return str(metadata["model_name"])
    m = metadata.get("model")
    if not isinstance(m, dict):
        return "" if m is None else str(m)
    name = str(m.get("name") or m.get("source") or "")
    return re.sub(r"\s+\([^()]*\)$", "", name)


def headline_records(runs: Iterable[tuple[dict[str, Any], Any]]) -> list[dict[str, Any]]:
    """One record per headline number of each stored run in ``runs`` (pairs of a row of
    ``Store.list_runs`` and that run, loaded once by the caller) whose measure has a report
    card; runs of other measures, or whose summary the card cannot read, give none."""
    from genderscope.reporting.registry import measures
    from genderscope.reporting.runner import Section, Subject, items_note

    cards = measures()  # every card, not only the page's defaults (chat probes, WEFE's)
    out: list[dict[str, Any]] = []
    for r, res in runs:
        card = cards.get(res.method)
        if card is None:
            continue
        try:
            heads = card.headlines(res)
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        name = model_name(res.metadata)
        sec = Section(card, Subject(name, "", r["model"], lambda: None), "ok", result=res,
                      headlines=heads)
        for h in heads:
            out.append({"run_id": r["run_id"], "model_name": name, "model": r["model"],
                        "measure": res.method, "number": h.label.strip(),
                        "estimate": h.estimate, "ci_low": h.ci_low, "ci_high": h.ci_high,
                        "unit": h.unit, "ci_unit": h.ci_unit, "p": h.p_value,
                        "p_adjusted": h.p_adjusted, "p_adjust_method": h.p_adjust_method,
                        "n": h.n_items if h.n_items is not None else h.n,
                        "items": items_note(sec, h), "evidence": h.evidence(),
                        "reading": h.reading()})
    return out
