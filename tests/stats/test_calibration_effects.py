"""Calibration of effect-size intervals and set-size-dependent tests (issue 36, rows 4, 8
and 11); simulations in tests/calibration_sims.py, shared with docs/calibration.md.
Bar: 95 % CI coverage in [0.93, 0.97], false-positive rate in [0.03, 0.07].

- Row 8, WEAT's and SEAT's d when d is not 0: the t interval of the mean difference over a
  sample SD held fixed covered 0.986 (8 + 8 words, d = 0.89), 1.000 (d = 1.41) and 0.976
  (8 + 16); the noncentral-t interval of the standardised difference covers.
"""

from __future__ import annotations

import numpy as np
import pytest
from calibration_sims import COVER, weat_d_row, weat_d_truth


def _report(row) -> float:  # noqa: ANN001
    lo, hi = row.wilson()
    print(f"{row.key}: {row.kind} {row.rate:.3f} [{lo:.3f}, {hi:.3f}] over {row.sims} "
          f"simulations of {row.design}")
    return row.rate


@pytest.mark.parametrize(("nx", "ny", "delta"), [(8, 8, 2.0), (8, 16, 1.0)])
def test_weat_d_interval_covers_when_d_is_not_0(nx: int, ny: int, delta: float) -> None:
    rate = _report(weat_d_row(nx, ny, delta, 400))
    assert COVER[0] <= rate <= COVER[1]


@pytest.mark.slow
@pytest.mark.parametrize(("nx", "ny", "delta", "templates"),
                         [(8, 8, 1.0, 0), (8, 8, 2.0, 0), (8, 16, 1.0, 0), (8, 8, 1.0, 5)])
def test_weat_d_interval_covers_when_d_is_not_0_slow(nx: int, ny: int, delta: float,
                                                     templates: int) -> None:
    rate = _report(weat_d_row(nx, ny, delta, 2000 if not templates else 600,
                              templates=templates, seed=811))
    assert COVER[0] <= rate <= COVER[1]


def test_weat_d_interval_is_exact_for_normal_scores_and_stays_in_range() -> None:
    """The interval is the noncentral-t one: at d = 0 it contains 0 exactly when the
    two-sample t test does not reject; it never leaves d's attainable range
    (|d| < 1 / sqrt(p q), 2 for equal sets), which the fixed-SD interval did."""
    from scipy import stats

    from genderscope.measures.weat import effect_size_ci

    rng = np.random.default_rng(5)
    for _ in range(50):
        x, y = rng.normal(0.5, 1, 8), rng.normal(0, 1, 8)
        ci = effect_size_ci(x, y)
        rejects = stats.ttest_ind(x, y).pvalue < 0.05
        assert (ci.ci_low > 0 or ci.ci_high < 0) == rejects
    x, y = rng.normal(3, 1, 8), rng.normal(0, 1, 8)
    ci = effect_size_ci(x, y)
    assert ci.ci_low < ci.estimate < ci.ci_high < 2.0
    assert weat_d_truth(3.0, 8, 8) < 2.0
