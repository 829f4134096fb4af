"""Plain-language readings of headline numbers: in a family of tests the
multiplicity-adjusted p decides (issue 11, item 4), and every CI says what it
resamples."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report import HashCausal, subject

from genderscope.reporting import html as page
from genderscope.reporting.entry import Headline, from_ci
from genderscope.reporting.registry import Context, measures
from genderscope.reporting.runner import run_report


def _h(**kw) -> Headline:
    base = dict(label="x", estimate=0.4, ci_low=0.1, ci_high=0.7, p_value=0.01, null=0.0,
                thresholds=(0.2, 0.5, 0.8), ci_unit="professions")
    return Headline(**{**base, **kw})


def test_adjusted_p_overrules_a_ci_that_excludes_the_null() -> None:
    h = _h(p_adjusted=0.12, p_adjust_method="holm", family="per profession group")
    assert h.evidence() is False
    assert h.reading() == ("No evidence of bias after correcting for multiple tests "
                           "(Holm-adjusted p = 0.12). The unadjusted 95% CI (resampling "
                           "professions) excludes 0. Point estimate leans male.")
    assert h.p_text() == "0.010 (Holm 0.12)"


def test_adjusted_p_below_alpha_is_evidence() -> None:
    h = _h(ci_low=-0.1, p_adjusted=0.004, p_adjust_method="bh")
    assert h.evidence() is True
    assert h.reading() == "Small bias: leans male (Benjamini-Hochberg-adjusted p = 0.004)."
    # without an adjusted p the CI decides, and the reading names its unit
    assert _h().reading() == "Small bias: leans male (95% CI excludes 0; resampling " \
                             "professions)."
    assert _h(ci_low=-0.1).reading().startswith(
        "No evidence of bias: the 95% CI (resampling professions) includes 0.")
    assert _h().ci_text() == "[0.100, 0.700], resampling professions"
    assert _h(ci_unit=None).ci_text() == "[0.100, 0.700]"


def test_from_ci_carries_the_family_fields() -> None:
    d = {"estimate": 0.3, "ci_low": 0.1, "ci_high": 0.5, "p_value": 0.02, "n": 60,
         "p_adjusted": 0.06, "p_adjust_method": "holm", "family": "bias types",
         "ci_unit": "pairs"}
    h = from_ci("y", d, null=0.0)
    assert (h.p_adjusted, h.p_adjust_method, h.family, h.ci_unit) == (0.06, "holm",
                                                                       "bias types", "pairs")
    assert h.evidence() is False and "Holm-adjusted p = 0.060" in h.reading()
    assert h.as_dict()["p_adjusted"] == 0.06 and h.as_dict()["ci_unit"] == "pairs"


def test_page_shows_units_and_adjusted_p(data_dir: Path, store, monkeypatch) -> None:
    entry = measures()["probe"]
    monkeypatch.setattr(entry, "headlines", lambda r: [
        _h(label="first", p_adjusted=0.2, p_adjust_method="holm"),
        _h(label="second", estimate=0.9, ci_low=0.6, ci_high=1.2, ci_unit="words")]
    )
    data = run_report([subject(HashCausal())], Context(lang="en", quick=True,
                                                       data_dir=data_dir), store,
                      names=["probe"])
    text = page.render(data)
    assert '[0.100, 0.700]<span class="ciu">resampling professions</span>' in text
    assert '[0.600, 1.20]<span class="ciu">resampling words</span>' in text
    assert "0.010 (Holm 0.20)" in text
    assert "No evidence of bias after correcting for multiple tests" in text
    assert "Large bias: leans male (95% CI excludes 0; resampling words)." in text


@pytest.mark.parametrize("p, words", [(0.0004, "Holm-adjusted p < 0.001"),
                                      (0.03, "Holm-adjusted p = 0.030")])
def test_adjusted_p_words(p: float, words: str) -> None:
    assert _h(p_adjusted=p, p_adjust_method="holm").adjusted_p_words() == words


def test_comparison_and_terminal_cells_name_the_unit_and_adjusted_p() -> None:
    from genderscope.reporting.compare import cell

    assert cell(_h()) == "0.400 [0.100, 0.700], resampling professions"
    assert cell(_h(ci_low=None, ci_high=None, p_adjusted=0.03, p_adjust_method="holm")) == \
        "0.400 (p 0.010 (Holm 0.030))"


def test_paired_difference_resamples_clusters() -> None:
    """Six professions with 50 identical sentence pairs each: resampling pairs as if
    independent gives a CI that excludes 0; resampling professions does not."""
    import numpy as np
    import pandas as pd

    from genderscope.reporting.compare import paired_difference
    from genderscope.reporting.entry import Paired

    values = np.repeat([-1.0, -0.5, 0.0, 0.5, 1.0, 1.5], 50)
    idx = [f"r{k}" for k in range(values.size)]
    prof = pd.Series(np.repeat([f"p{k}" for k in range(6)], 50), index=idx)

    def mean(a):
        return float(a[:, 0].mean())
    b = Paired(pd.DataFrame({"v": np.zeros(values.size)}, index=idx), mean)
    iid = Paired(pd.DataFrame({"v": values}, index=idx), mean)
    clustered = Paired(iid.frame, mean, unit="professions", clusters=prof)
    _, _, d, lo, hi, _, n = paired_difference(iid, b, n_resamples=1000, n_permutations=10)
    assert n == 300 and d == pytest.approx(0.25) and lo > 0
    _, _, d, lo, hi, _, _ = paired_difference(clustered, b, n_resamples=1000,
                                              n_permutations=10)
    assert d == pytest.approx(0.25) and lo < 0 < hi
    # 6 professions (< 50): the jackknife-t interval over leave-one-profession-out, for a
    # mean over equal clusters exactly the t interval over the 6 profession means
    from scipy.stats import t as t_dist

    means = values.reshape(6, 50).mean(axis=1)
    half = t_dist.ppf(0.975, 5) * means.std(ddof=1) / np.sqrt(6)
    assert lo == pytest.approx(means.mean() - half) and hi == pytest.approx(
        means.mean() + half)


@pytest.mark.slow
def test_two_model_page_names_the_comparison_unit(data_dir: Path, store) -> None:
    data = run_report([subject(HashCausal("a"), "A"), subject(HashCausal("b"), "B")],
                      Context(lang="en", quick=True, data_dir=data_dir), store,
                      names=["crows-pairs", "bec-pro", "winobias"])
    from genderscope.reporting.compare import differences

    diffs = differences(data)
    assert {d.measure: d.ci_unit for d in diffs} == {"crows-pairs": "pairs",
                                                      "bec-pro": "professions",
                                                      "winobias": "occupations"}
    wino = {s.measure.name: s for s in data.sections}["winobias"]
    clusters = wino.measure.paired(wino.result).clusters
    assert clusters is not None and 1 < clusters.nunique() < len(clusters)
    from genderscope.stats import adjust_pvalues

    # the tested differences of one page are one family: Holm over them
    assert [d.p_adjusted for d in diffs] == pytest.approx(
        list(adjust_pvalues([d.p_value for d in diffs])))
    text = page.render(data)
    # few professions at --quick: the jackknife-t interval, named with its unit
    by = {d.measure: d for d in diffs}
    assert by["bec-pro"].ci_method == "jackknife t interval"
    assert "over professions, jackknife t interval</td>" in text
    assert all(f"{d.ci_words()}</td>" in text for d in diffs)
    assert "<th>p (Holm)</th>" in text


def test_weat_tests_run_together_are_one_holm_family(data_dir: Path, store) -> None:
    import numpy as np
    from test_report import _hash_lp

    from genderscope.datasets.seat import resolve_test
    from genderscope.models.vectors import WordVectors
    from genderscope.reporting.cards.weat import WEAT_TESTS
    from genderscope.reporting.runner import Subject
    from genderscope.stats import adjust_pvalues

    vocab = sorted({w.lower() for t in WEAT_TESTS for ws in
                    resolve_test(t, data_dir / "seat" / "tests").sets() for w in ws.examples})
    vecs = WordVectors(np.array([[_hash_lp(w, str(k)) for k in range(8)] for w in vocab]),
                       vocab, name="fake-vectors")
    data = run_report([Subject("vecs", "vectors", "v", lambda: vecs)],
                      Context(quick=True, data_dir=data_dir), store, names=["weat"])
    hs = data.sections[0].headlines
    raw = [h.p_value for h in hs]
    assert [h.p_adjusted for h in hs] == pytest.approx(list(adjust_pvalues(raw)))
    assert {h.p_adjust_method for h in hs} == {"holm"} and len({h.family for h in hs}) == 1
    assert all(h.evidence() is (h.p_adjusted < 0.05) for h in hs)
    assert list(data.sections[0].result.tables["tests"]["p_adjusted"]) == pytest.approx(
        [h.p_adjusted for h in hs])


def test_non_bootstrap_intervals_are_not_called_resampling() -> None:
    from genderscope.reporting import plots

    wilson = from_ci("share", {"estimate": 0.6, "ci_low": 0.4, "ci_high": 0.8,
                               "method": "wilson", "ci_unit": "pairs"}, null=0.5)
    assert wilson.ci_text() == "[0.400, 0.800], over pairs"
    assert plots.ci_label([{"ci_unit": "pairs", "method": "wilson"}]) == "95% CI over pairs"
    assert plots.ci_label([{"ci_unit": "professions", "method": "cluster percentile "
                            "bootstrap"}, None, {}]) == "95% CI resampling professions"
    assert plots.ci_label([{}], "bootstrap CI") == "95% bootstrap CI"


def test_adjusted_p_when_the_raw_result_was_null_already() -> None:
    h = _h(ci_low=-0.2, p_value=0.3, p_adjusted=0.9, p_adjust_method="holm")
    assert h.reading() == ("No evidence of bias: the 95% CI (resampling professions) "
                           "includes 0 (Holm-adjusted p = 0.90). Point estimate leans male.")
    p_only = _h(ci_low=None, ci_high=None, p_value=0.01, p_adjusted=0.06,
                p_adjust_method="holm")
    assert p_only.reading() == ("No evidence of bias after correcting for multiple tests "
                                "(Holm-adjusted p = 0.060). Unadjusted p = 0.010. Point "
                                "estimate leans male.")


@pytest.mark.slow
def test_every_ci_on_a_page_names_its_unit(data_dir: Path, store) -> None:
    """Each CI cell of the page (headline table, sections, comparison) and each reading
    that cites a CI says what it resamples (or, for a Wilson interval, its unit)."""
    import re

    from test_report import HashMasked

    data = run_report([subject(HashCausal("a"), "A"), subject(HashMasked("b"), "B")],
                      Context(lang="en", quick=True, data_dir=data_dir), store)
    text = re.sub(r"<svg.*?</svg>", "", page.render(data), flags=re.S)
    cells = [re.sub(r"<[^>]+>", "|", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", text)]
    cells = [c for c in cells if re.search(r"\[[^\]|]*\]", c)]
    assert len(cells) > 20
    assert [c for c in cells if not re.search(r"\].*(resampling|over) \w", c)
            and "[–, –]" not in c] == []
    cited = re.findall(r"95% CI[^<]*?(?:includes|excludes)[^<]*", text)
    assert cited and [c for c in cited if "resampling" not in c and "over " not in c] == []


def test_comparison_skips_numbers_that_are_not_estimable(data_dir: Path, store,
                                                         monkeypatch) -> None:
    """A first headline that is NaN/None for the models (ABC's main effect when a median
    is <= 0) must not break the page: its comparison plot is left out."""
    entry = measures()["probe"]
    monkeypatch.setattr(entry, "headlines", lambda r: [_h(estimate=None, ci_low=None,
                                                          ci_high=None)])
    data = run_report([subject(HashCausal("a"), "A"), subject(HashCausal("b"), "B")],
                      Context(lang="en", quick=True, data_dir=data_dir), store,
                      names=["probe", "crows-pairs"])
    text = page.render(data)
    assert "Comparison: crows-pairs" in text and "Comparison: probe" not in text
