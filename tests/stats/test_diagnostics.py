"""The skew caveats (stats/diagnostics.py): their statistics, their thresholds' firing
rates, the figures they quote from docs/calibration.md, and the way they reach the user
(the interval's ``caveat``, ``genderscope run``'s last lines, the report's reading)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from genderscope.cli import common
from genderscope.cli.app import app
from genderscope.cli.common import caveat_lines, console, run_note
from genderscope.core.design import Design
from genderscope.reporting.entry import from_ci
from genderscope.results import Result
from genderscope.stats import diagnostics as dg
from genderscope.stats.bootstrap_t import bootstrap_t_test
from genderscope.stats.design import infer
from genderscope.stats.standardized import standardized_difference_ci
from genderscope.store import Store

PAGE = Path(__file__).resolve().parents[2] / "docs" / "calibration.md"
NORMAL_20 = stats.norm.ppf((np.arange(20) + 0.5) / 20)
"""20 evenly spread normal quantiles: skewness 0, excess kurtosis near 0."""
LOGNORMAL_20 = np.exp(NORMAL_20) - np.exp(NORMAL_20).mean()
"""Their exponentials, centred: strongly right-skewed (G1 about 2.2)."""


def test_skewness_and_kurtosis_are_the_adjusted_estimators() -> None:
    rng = np.random.default_rng(1)
    for n in (3, 4, 7, 30):
        x = rng.lognormal(0.0, 1.0, n)
        assert dg.skewness(x) == pytest.approx(stats.skew(x, bias=False), rel=1e-10)
        if n >= 4:
            assert dg.excess_kurtosis(x) == pytest.approx(stats.kurtosis(x, bias=False),
                                                          rel=1e-10)
    assert np.isnan(dg.skewness([1.0, 2.0])) and np.isnan(dg.excess_kurtosis([1, 2, 3]))
    assert np.isnan(dg.skewness([2.0, 2.0, 2.0, 2.0]))
    assert dg.skewness([1.0, np.nan, 2.0, 7.0]) == pytest.approx(stats.skew([1, 2, 7],
                                                                            bias=False))


def test_mean_caveat_fires_on_skewed_units_in_the_calibrated_sizes_only() -> None:
    assert dg.mean_caveat(NORMAL_20, "targets") is None
    text = dg.mean_caveat(LOGNORMAL_20, "targets")
    assert text is not None and text.startswith(
        f"targets strongly skewed (skewness {dg.skewness(LOGNORMAL_20):.1f}, 20 targets)")
    assert dg.MEAN_LIMIT in text and "docs/calibration.md" in text and "\n" not in text
    assert dg.mean_caveat(-LOGNORMAL_20) is not None  # left skew too
    assert dg.mean_caveat(LOGNORMAL_20[[0, 1, 2, 3, 19]]) is None  # 5 units: no bootstrap-t
    many = np.exp(stats.norm.ppf((np.arange(80) + 0.5) / 80))
    assert dg.skewness(many) > 3 and dg.mean_caveat(many) is None  # above MAX_UNITS


def test_mean_caveat_follows_its_thresholds() -> None:
    rng = np.random.default_rng(2)
    for n in (6, 9, 10, 20, 60):
        limit = dg.SKEW_LIMIT_FEW if n < dg.FEW else dg.SKEW_LIMIT
        fired = 0
        for _ in range(200):
            x = rng.lognormal(0.0, 1.0, n)
            assert (dg.mean_caveat(x) is not None) == (abs(dg.skewness(x)) > limit)
            fired += dg.mean_caveat(x) is not None
        assert 0 < fired < 200


@pytest.mark.parametrize("n", [6, 10, 20, 60])
def test_mean_caveat_is_rare_on_normal_units_and_common_on_lognormal_ones(n: int) -> None:
    """The thresholds' choice (benchmarks/caveat_thresholds.py): under 5 % of normal
    samples are flagged at every size, most lognormal ones from 20 units."""
    rng = np.random.default_rng(n)
    normal = np.mean([dg.mean_caveat(x) is not None for x in rng.normal(size=(1000, n))])
    logn = np.mean([dg.mean_caveat(x) is not None
                    for x in rng.lognormal(0.0, 1.0, (1000, n))])
    assert normal < 0.05
    assert logn > (0.5 if n >= 20 else 0.15)


@pytest.mark.parametrize("k", [8, 20])
def test_effect_size_caveat_is_rare_on_normal_scores_and_common_on_heavy_tails(k: int
                                                                               ) -> None:
    rng = np.random.default_rng(k)
    rates = {}
    for name, draw in (("normal", rng.normal), ("t3", lambda s: rng.standard_t(3, s)),
                       ("lognormal", lambda s: rng.lognormal(0.0, 1.0, s))):
        rates[name] = np.mean([dg.effect_size_caveat(draw(k) + 1.0, draw(k)) is not None
                               for _ in range(500)])
    assert rates["normal"] < 0.05
    assert rates["t3"] > 0.15 and rates["lognormal"] > 0.4


def _page_figures(first: str, design: str) -> list[float]:
    """The figures of docs/calibration.md's rows whose statistic starts with ``first``
    and whose design mentions ``design``."""
    out = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 5 and cells[0].startswith(first) and design in cells[1]:
            out.append(float(cells[4].split()[0]))
    return out


def test_caveats_quote_the_calibration_page() -> None:
    fpr = _page_figures("paired test: bootstrap-t", "centred lognormal")
    cover = _page_figures("paired CI: bootstrap-t", "centred lognormal")
    assert len(fpr) == len(cover) == 3  # 10, 20 and 60 units
    assert f"false-positive rate {min(fpr):.3f}-{max(fpr):.3f}" in dg.MEAN_LIMIT
    assert f"coverage {min(cover):.3f}-{max(cover):.3f}" in dg.MEAN_LIMIT
    d = _page_figures("WEAT d CI: noncentral t", "t(3)") + \
        _page_figures("WEAT d CI: noncentral t", "lognormal")
    assert len(d) == 3
    assert f"coverage {min(d):.3f}-{max(d):.3f}" in dg.D_LIMIT


def test_the_bootstrap_t_interval_carries_the_caveat_and_keeps_its_numbers() -> None:
    design = Design("mean", unit="targets")
    plain = infer(design, NORMAL_20, null=0.0, n_resamples=999, seed=3)
    assert plain.ci.caveat is None and "caveat" not in plain.as_dict()
    skewed = infer(design, LOGNORMAL_20, null=0.0, n_resamples=999, seed=3)
    assert skewed.ci.caveat == dg.mean_caveat(LOGNORMAL_20, "targets")
    assert skewed.as_dict()["caveat"] == skewed.ci.caveat
    ref = bootstrap_t_test(LOGNORMAL_20, n_resamples=999, seed=3)
    assert (skewed.ci.ci_low, skewed.ci.ci_high, skewed.p_value) == (
        ref.ci_low, ref.ci_high, ref.p_two_sided)
    assert ref.caveat == dg.mean_caveat(LOGNORMAL_20) and ref.as_dict()["caveat"]
    assert "caveat" not in bootstrap_t_test(NORMAL_20, n_resamples=99).as_dict()
    # a paired mean (sign flip) and a proportion are not flagged
    assert infer(Design("mean", unit="pairs", paired="order"), LOGNORMAL_20,
                 null=0.0).ci.caveat is None


def test_d_interval_carries_the_caveat_over_unit_means() -> None:
    x, y = LOGNORMAL_20[:10] + 1.0, LOGNORMAL_20[10:]
    heavy = standardized_difference_ci(x, y, unit="words")
    assert heavy.caveat == dg.effect_size_caveat(x, y, "words") and heavy.caveat
    assert "10 + 10 words" in heavy.caveat
    normal = standardized_difference_ci(NORMAL_20[::2] + 1.0, NORMAL_20[1::2])
    assert normal.caveat is None and "caveat" not in normal.as_dict()
    # SEAT: two outlying sentences (+-10) among each source word's 20 are averaged away
    rng = np.random.default_rng(4)
    unit = np.repeat(np.arange(10), 20)
    bump = np.tile(np.r_[-10.0, np.zeros(18), 10.0], 10)
    px, py = rng.permutation(200), rng.permutation(200)  # labels, not positions, group
    ux, uy = unit[px], unit[py] + 10
    sx, sy = (NORMAL_20[::2] + 1.0)[unit][px] + bump[px], NORMAL_20[1::2][unit][py] + bump[py]
    assert dg.effect_size_caveat(sx, sy) is not None  # the sentences look heavy-tailed
    np.testing.assert_allclose(np.sort(dg.unit_means(sx, ux)), NORMAL_20[::2] + 1.0)
    seat = infer(Design("effect-size", unit="sentences", clusters="source words"),
                 np.r_[sx, sy], np.r_[ux, uy], groups=["X"] * 200 + ["Y"] * 200)
    assert np.isfinite(seat.ci.ci_low) and seat.ci.caveat is None


def _printed(*things: object) -> str:
    with console.capture() as out:
        for t in things:
            console.print(t)
    return out.get()


def test_caveats_reach_run_runs_show_and_the_report_reading(tmp_path: Path,
                                                            monkeypatch) -> None:  # noqa: ANN001
    """``genderscope run`` prints the summary's caveat lines once, between its tables and
    its last line; ``genderscope runs show`` prints the same lines after the same tables:
    both from :func:`genderscope.cli.common.run_output`, the note itself carrying none."""
    ci = infer(Design("mean", unit="targets"), LOGNORMAL_20, null=0.0, n_resamples=99)
    summary = {"she": ci.as_dict(), "he": {"estimate": 1.0, "ci_low": 0.0, "ci_high": 2.0},
               "nested": {"inner": {"caveat": "x [y]"}}}
    assert caveat_lines(summary) == [f"caveat: she: {ci.ci.caveat}",
                                     "caveat: nested.inner: x \\[y]"]
    assert caveat_lines({"he": 1.0}) == []
    meta = {"run_id": "r1", "runtime_s": 1.0, "out": "out"}
    result = Result("probe", summary, pd.DataFrame({"i": [0]}), meta)
    plain = Result("probe", {"he": summary["he"]}, pd.DataFrame({"i": [0]}), dict(meta))
    assert "caveat: she: targets strongly skewed" in _printed(*caveat_lines(summary))
    for res in (result, plain):
        monkeypatch.setattr(common, "run_measure", lambda *a, res=res, **k: res)
        with console.capture() as out:  # genderscope run (the probe's plain summary table)
            common.execute("probe", None, "auto", "auto", None, "float32", None, None, False,
                           False, common.summary_table)
        tables = _printed(*common.summary_table(res))
        caveats = _printed(*caveat_lines(res.summary)) if res is result else ""
        assert out.get() == tables + caveats + _printed(run_note(res, meta["out"]))
        assert "caveat" not in run_note(res, meta["out"])
        store = Store(tmp_path / "s.sqlite")
        run_id = store.record_run(res)
        store.close()
        shown = CliRunner().invoke(app, ["runs", "show", run_id, "--store",
                                         str(tmp_path / "s.sqlite")])
        assert shown.exit_code == 0 and tables + caveats + "model: " in shown.output
    head = from_ci("she", summary["she"])
    assert head.reading().endswith(f" Caveat: {ci.ci.caveat}.")
    assert "Caveat" not in from_ci("he", summary["he"]).reading()
    assert "caveat" not in head.as_dict()
