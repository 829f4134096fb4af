"""The two sizes of a calibration test (tests/calibration_size.py): the CI-sized run holds
its rate to its Wilson interval, the full run to the bar itself."""

from __future__ import annotations

import pytest
from calibration_size import Runs, runs, runs_for, wilson

from genderscope.stats import proportion_ci

COVER = (0.93, 0.97)


@pytest.mark.parametrize(("hits", "n"), [(0, 50), (3, 60), (285, 300), (1900, 2000)])
def test_wilson_is_genderscopes_proportion_interval(hits: int, n: int) -> None:
    ci = proportion_ci(hits, n)
    assert wilson(hits / n, n) == pytest.approx((ci.ci_low, ci.ci_high), abs=1e-9)


def test_ci_run_fails_a_miscalibrated_rate_and_full_run_holds_the_bar() -> None:
    ci, full = Runs(300, False, 2000), Runs(2000, True, 2000)
    assert ci.meets(0.92, COVER) and not full.meets(0.92, COVER)
    assert not ci.meets(0.90, COVER) and not ci.meets(0.995, COVER)
    assert ci.meets(0.10, (0.03, 0.07), n=100) and not ci.meets(0.10, (0.03, 0.07))
    assert ci.below(0.93, 0.91) and not full.below(0.93, 0.91)
    assert not ci.below(0.97, 0.91) and ci.above(0.28, 0.3) and not ci.above(0.2, 0.3)
    assert ci.of(300) == 45 and ci.of(40) == 20 and full.of(300) == 300


def test_full_variants_are_calibration_full_and_ci_variants_only_slow() -> None:
    ci, full = runs(300, 2000)
    assert ci.id == "ci-300" and ci.values == (Runs(300, False, 2000),)
    assert {m.name for m in ci.marks} == {"slow"}  # CI runs it, the fast loop does not
    assert full.id == "full-2000"
    assert {m.name for m in full.marks} == {"slow", "calibration_full"}
    cases = runs_for([(8, 8), (8, 16)], 100, [1000, 600])
    assert [c.id for c in cases] == ["8-8-ci-100", "8-8-full-1000", "8-16-ci-100",
                                     "8-16-full-600"]
    assert cases[3].values == (8, 16, Runs(600, True, 600))
