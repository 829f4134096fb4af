"""The report's verdict (issue 41, item 7): per model one line at the top of the page
(measures with evidence of bias, of how many; how many hold after Holm across measures;
the largest effects with their CIs), and a scale note beside each headline number."""

from __future__ import annotations

import re

import pandas as pd

from genderscope.reporting import html
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, from_ci
from genderscope.reporting.runner import ReportData, Section, Subject
from genderscope.reporting.verdict import model_line, scale_note
from genderscope.results import Result

SUBJECT = Subject("smollm2", "causal", "id", lambda: None)


def _section(name: str, *headlines: Headline) -> Section:
    card = Card(name=name, title=name.title(), kinds=("causal",), plan=lambda c: (name, {}),
                headlines=lambda r: list(headlines), card=MethodCard("definition", "cite"))
    return Section(card, SUBJECT, "ok", result=Result(name, {}, pd.DataFrame(), {}),
                   run_id="r", headlines=list(headlines))


def _pct(label: str, est: float, lo: float, hi: float, p: float | None = None) -> Headline:
    return from_ci(label, {"estimate": est, "ci_low": lo, "ci_high": hi, "p_value": p,
                           "n": 100}, null=50.0, unit="%", thresholds=(2.0, 5.0, 10.0))


def _d(label: str, est: float, lo: float, hi: float, p: float) -> Headline:
    return from_ci(label, {"estimate": est, "ci_low": lo, "ci_high": hi, "p_value": p,
                           "n": 16}, null=0.0, thresholds=(0.2, 0.5, 0.8))


def _data() -> ReportData:
    return ReportData([SUBJECT], [
        _section("crows-pairs", _pct("pairs preferring the stereotype", 58.0, 53.0, 63.0,
                                     p=0.004)),
        _section("stereoset", _pct("stereotype score", 51.0, 47.0, 55.0)),
        _section("weat", _d("weat6 (d)", 1.7, 1.2, 2.2, p=0.03)),
        _section("seat", _d("sent-weat6 (d)", 0.3, 0.05, 0.55, p=0.04)),
        Section(Card(name="abc", title="Abc", kinds=("causal",), plan=lambda c: ("abc", {}),
                     headlines=lambda r: [], card=MethodCard("d", "c")), SUBJECT,
                "failed", "boom"),
    ], Context(), "cmd", 0.0, {})


def test_model_line_counts_holm_and_names_the_largest() -> None:
    line = model_line(_data(), SUBJECT)
    # crows-pairs, weat and seat exclude the null; stereoset does not; abc failed
    assert line.startswith("evidence of bias in 3 of 4 measures")
    # Holm over p = 0.004, 0.03, 0.04 (stereoset has none): 0.012, 0.06, 0.06
    assert "(1 of the 3 with a p-value hold after Holm across measures)" in line
    # ranked by |x - null| / large: weat 1.7/0.8 = 2.1, crows 8/10 = 0.8, seat 0.3/0.8
    largest = line.split("Largest: ")[1]
    assert largest.index("Weat") < largest.index("Crows-Pairs") < largest.index("Seat")
    assert "Crows-Pairs pairs preferring the stereotype 58% [53, 63] (moderate" in largest
    assert "Weat weat6 (d) 1.70 [1.20, 2.20] (large, leans male)" in largest


def test_scale_notes() -> None:
    assert scale_note(_pct("x", 58, 53, 63)) == (
        "50 % = no preference; size |x − 50|: 2 small, 5 moderate, 10 large")
    assert scale_note(_d("d", 1, 0, 2, 0.1)) == (
        "0 = no bias; size |x|: 0.200 small, 0.500 moderate, 0.800 large")
    assert scale_note(Headline("perplexity", 12.0, null=None)) == ""


def test_page_opens_with_the_verdict_and_notes_each_number() -> None:
    page = html.render(_data())
    verdict = re.search(r'<section id="verdict">(.*?)</section>', page)
    assert verdict is not None
    assert page.index('id="verdict"') < page.index('id="headlines"')
    assert "evidence of bias in 3 of 4 measures" in verdict.group(1)
    assert page.count('<span class="scale">') == 4  # one per headline number


def test_highlights_use_readable_column_names() -> None:
    """The common names, unless a card names its own columns (WEAT's and SEAT's
    association is a cosine difference, not nats)."""
    from genderscope.reporting.columns import readable
    from genderscope.reporting.registry import measures

    df = pd.DataFrame({"sent_more": ["a"], "score_more": [-1.0], "association": [0.1],
                       "n_scored_tokens": [3]})
    cards = measures()
    assert list(readable(df, cards["crows-pairs"].columns).columns) == [
        "more stereotypical sentence", "log-likelihood, more stereotypical (nats)",
        "association (nats)", "n scored tokens"]
    for name in ("weat", "seat"):
        assert readable(df, cards[name].columns).columns[2] == \
            "association s(w, A, B) (cosine difference)"
    assert [n for n, c in cards.items() if c.columns] == ["weat", "seat"]


def test_model_line_gives_the_p_of_an_effect_without_a_ci() -> None:
    """An effect judged by its p (BEC-Pro's per-group effect size r, Holm-adjusted across
    the groups; a bare test without a family) shows that p beside the estimate."""
    r = Headline("female-dominated professions: male vs female, t test (effect size r)",
                 -0.83, p_value=0.004, p_adjusted=0.012, p_adjust_method="holm",
                 thresholds=(0.1, 0.3, 0.5))
    bare = Headline("balanced (effect size r)", 0.6, p_value=0.0004,
                    thresholds=(0.1, 0.3, 0.5))
    data = ReportData([SUBJECT], [_section("bec-pro", r), _section("other", bare)],
                      Context(), "cmd", 0.0, {})
    largest = model_line(data, SUBJECT).split("Largest: ")[1]
    assert "(effect size r) -0.830 (Holm-adjusted p = 0.012; large, leans female)" in largest
    assert "balanced (effect size r) 0.600 (p < 0.001; large, leans male)" in largest
