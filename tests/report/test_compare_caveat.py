"""The report's tested model differences carry the skew caveat of their bootstrap-t p
(reporting/compare.difference_caveat, the rule of stats/diagnostics.mean_caveat) over the
numbers of clusters where docs/calibration.md measured that test above its bar."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from genderscope.reporting import compare
from genderscope.reporting.entry import Paired
from genderscope.stats.diagnostics import mean_caveat

PAGE = Path(__file__).resolve().parents[2] / "docs" / "calibration.md"


def _mean(x: np.ndarray) -> float:
    return float(x[:, 0].mean())


def _models(gaps: np.ndarray, smooth: bool = True) -> tuple[Paired, Paired]:
    """Two models over len(gaps) professions of 2-6 items (unequal): B's items are 0, A's
    are B's plus the profession's gap."""
    k = gaps.size
    size = 2 + np.arange(k) % 5
    prof = np.repeat(np.arange(k), size)
    index = pd.Index([f"i{i}" for i in range(prof.size)])
    clusters = pd.Series([f"p{j:03d}" for j in prof], index=index)
    stat = _mean if smooth else (lambda x: float(np.median(x[:, 0])))
    a = Paired(pd.DataFrame({"v": gaps[prof]}, index=index), stat, "professions", clusters,
               smooth=smooth)
    b = Paired(pd.DataFrame({"v": np.zeros(prof.size)}, index=index), stat, "professions",
               clusters, smooth=smooth)
    return a, b


def _quantiles(k: int) -> np.ndarray:
    return stats.norm.ppf((np.arange(k) + 0.5) / k)


def _lognormal(k: int) -> np.ndarray:
    e = np.exp(_quantiles(k))
    return e - e.mean()


@pytest.mark.parametrize("k", [10, 20, 50, 80, 100])
def test_skewed_cluster_differences_get_the_caveat(k: int) -> None:
    a, b = _models(_lognormal(k))
    text = compare.difference_caveat(a, b)
    assert text == mean_caveat(_lognormal(k), "professions", sizes=compare.REPORT_UNITS,
                               limit=compare.REPORT_LIMIT, risk="the p-value can be too small")
    assert text is not None and f"{k} professions" in text and compare.REPORT_LIMIT in text
    assert "interval" not in text  # the report's interval there is the percentile bootstrap


@pytest.mark.parametrize("k", [9, 101])
def test_no_caveat_outside_the_calibrated_counts(k: int) -> None:
    """Under the fewest calibrated 10 clusters and above the largest calibrated 100, no
    caveat (the page has no figure to quote there)."""
    assert compare.difference_caveat(*_models(_lognormal(k))) is None


def test_no_caveat_for_normal_gaps_or_a_median() -> None:
    assert compare.difference_caveat(*_models(_quantiles(60))) is None
    assert compare.difference_caveat(*_models(_lognormal(60), smooth=False)) is None


def test_the_limit_quotes_the_calibration_page() -> None:
    rows = [line.split("|") for line in PAGE.read_text(encoding="utf-8").splitlines()
            if "report model difference test (mean): cluster bootstrap-t" in line
            and "100 professions of 2-30 items (unequal)" in line]
    assert len(rows) == 1 and "known limit" in rows[0][7]
    assert f"{rows[0][5].split()[0]} at 100 unequal clusters" in compare.REPORT_LIMIT
    fewest = [line.split("|") for line in PAGE.read_text(encoding="utf-8").splitlines()
              if "report model difference test (mean): cluster bootstrap-t" in line
              and "| 10 professions x 9 items" in line and "lognormal" in line]
    assert len(fewest) == 1 and "known limit" in fewest[0][7]
    assert f"false-positive rate {fewest[0][5].split()[0]} at 10" in compare.REPORT_LIMIT


def _data(gaps: np.ndarray) -> SimpleNamespace:
    pa, pb = _models(gaps)

    def section(label: str, paired: Paired) -> SimpleNamespace:
        measure = SimpleNamespace(name="bec-pro", paired=lambda result: paired)
        return SimpleNamespace(status="ok", measure=measure, result=None,
                               subject=SimpleNamespace(label=label),
                               headlines=[SimpleNamespace(label="gap")])

    return SimpleNamespace(sections=[section("A", pa), section("B", pb)],
                           ctx=SimpleNamespace(quick=True, seed=0))


def test_the_report_difference_and_page_show_the_caveat(monkeypatch) -> None:
    from genderscope.reporting import html

    skewed = compare.differences(_data(_lognormal(60)), n_resamples=99)
    assert len(skewed) == 1 and skewed[0].caveat == compare.difference_caveat(
        *_models(_lognormal(60)))
    assert skewed[0].caveat and skewed[0].as_dict()["caveat"] == skewed[0].caveat
    plain = compare.differences(_data(_quantiles(60)), n_resamples=99)
    assert plain[0].caveat is None
    monkeypatch.setattr(compare, "leaderboard", lambda data: pd.DataFrame({"measure": ["x"]}))
    monkeypatch.setattr(compare, "comparison_plot", lambda data, name: None)
    page = SimpleNamespace(subjects=[1, 2], sections=[], ctx=SimpleNamespace(seed=0))
    for diffs, shown in ((skewed, True), (plain, False)):
        monkeypatch.setattr(compare, "differences", lambda data, seed=0, d=diffs: d)
        out = html.comparison_html(page)  # type: ignore[arg-type]
        assert ("Caveat: bec-pro, A − B: professions strongly skewed" in out) is shown
