"""The page's verdict: per model, one line a reader takes in first, and a scale note
beside each headline number.

A measure *shows evidence of bias* when its section's badge says so
(:func:`genderscope.reporting.findings.verdict`: ``bias`` or ``mixed``; each number
judged by its 95 % CI, or by its Holm-adjusted p within a family of tests). Across the
measures of one model, the measures that report a p-value are adjusted once more, by
Holm (1979) over those measures' smallest primary p (:func:`adjust_pvalues`), and the
line says how many still hold; intervals without a p-value cannot be adjusted and are
counted as they are. The *largest effects* are ranked by ``|estimate - null|`` in units
of the measure's "large" threshold, so that a CrowS-Pairs percentage and a WEAT d are
put on one scale.
"""

from __future__ import annotations

import math

from genderscope.reporting.entry import Headline, fmt_p
from genderscope.reporting.findings import verdict
from genderscope.reporting.registry import fmt
from genderscope.reporting.runner import ReportData, Section, Subject
from genderscope.stats.multiplicity import adjust_pvalues
from genderscope.text_blocks import plural

SHOWN = 3
"""Largest effects named in a model's line."""


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def scale_note(h: Headline) -> str:
    """How to read the size of ``h``: what its null means and where small, moderate and
    large begin (``|estimate - null|``), e.g. ``50 % = no preference; |x - 50| 2 small,
    5 moderate, 10 large``; '' for a context number."""
    if h.null is None:
        return ""
    unit = h.unit if h.unit in ("%", "") else f" {h.unit}"
    text = f"{fmt(h.null)}{unit} = no bias"
    if h.unit == "%" and h.null == 50:
        text = "50 % = no preference"
    if h.thresholds is not None:
        small, moderate, large = (fmt(t) for t in h.thresholds)
        dist = "|x|" if h.null == 0 else f"|x − {fmt(h.null)}|"
        text += f"; size {dist}: {small} small, {moderate} moderate, {large} large"
    return text


def _size(h: Headline) -> float:
    """|estimate - null| in units of the 'large' threshold (0 without thresholds)."""
    if h.null is None or h.thresholds is None or not _finite(h.estimate):
        return 0.0
    return abs(float(h.estimate) - h.null) / h.thresholds[2]  # type: ignore[arg-type]


def _short_label(label: str) -> str:
    """A headline's label without its method clause: ``"female-dominated professions:
    male vs female, crossed t test ... (effect size r)"`` -> ``"female-dominated
    professions: male vs female (effect size r)"`` (the unit kept)."""
    label = label.strip()
    head, sep, rest = label.partition(", ")
    if not sep or not any(w in rest for w in ("test", "interval", "bootstrap")):
        return label
    unit = label[label.rfind(" ("):] if label.endswith(")") and " (" in label else ""
    return head + (unit if unit and not head.endswith(unit) else "")


def _section_p(sec: Section) -> float:
    """The section's smallest primary p (adjusted within its family where it has one)."""
    ps = [h.p_adjusted if _finite(h.p_adjusted) else h.p_value for h in sec.headlines
          if h.primary and h.null is not None]
    ps = [float(p) for p in ps if _finite(p)]  # type: ignore[arg-type]
    return min(ps) if ps else math.nan


def model_line(data: ReportData, subject: Subject) -> str:
    """One line for ``subject``: measures with evidence of bias, of how many judged,
    how many hold after Holm across measures, and the largest effects with CIs."""
    secs = [s for s in data.for_subject(subject) if s.status == "ok"]
    judged = [s for s in secs if verdict(s.headlines) in ("bias", "mixed", "none")]
    if not judged:
        return "no measure gave a number judged against no bias"
    biased = [s for s in judged if verdict(s.headlines) in ("bias", "mixed")]
    text = f"evidence of bias in {len(biased)} of {plural(len(judged), 'measure')}"
    with_p = [s for s in judged if _finite(_section_p(s))]
    if with_p:
        adjusted = adjust_pvalues([_section_p(s) for s in with_p], "holm")
        held = sum(1 for s, p in zip(with_p, adjusted, strict=True)
                   if p < 0.05 and s in biased)
        text += (f" ({held} of the {len(with_p)} with a p-value hold after Holm across "
                 "measures)")
    effects = sorted(((h, s) for s in biased for h in s.headlines
                      if h.evidence() is True and h.thresholds is not None),
                     key=lambda hs: -_size(hs[0]))[:SHOWN]
    if effects:
        text += ". Largest: " + "; ".join(
            f"{s.measure.title.split(' (')[0]} {_short_label(h.label)} {_effect(h)}"
            for h, s in effects)
    return text + "."


def _effect(h: Headline) -> str:
    """``h``'s estimate with the statistic that judged it: its 95 % CI, and its p (the
    adjusted one in a family of tests) where the CI does not decide or there is none,
    e.g. ``-0.830 (p = 0.004; large, leans female)``."""
    unit = h.unit if h.unit == "%" else f" {h.unit}" if h.unit else ""
    text = f"{fmt(h.estimate)}{unit}"
    if h.has_ci:
        text += f" [{fmt(h.ci_low)}, {fmt(h.ci_high)}]"
    notes = []
    if h.adjusted:
        notes.append(h.adjusted_p_words())
    elif not h.has_ci and _finite(h.p_value):
        pv = fmt_p(h.p_value)
        notes.append(f"p {'' if pv.startswith('<') else '= '}{pv}")
    if h.strength():
        notes.append(f"{h.strength()}, {h.direction()}")
    return text + (f" ({'; '.join(notes)})" if notes else "")
