"""Calibration of ``genderscope compare`` of two PLAIN runs of a word-vector metric
(``genderscope run weat|ripa|rnd|ect|mac --out ...`` on two vector files, then compare of
the two folders; issue 36, row 2): the runs record their word rows, so compare tests the
change with its declared crossed design (words crossed with the word sets they share)
instead of treating the per-word items as independent. Before and after are two noisy
copies of the same vectors (tests/calibration_sims_debias.world: 8 + 8 target words, 8 + 8
attribute words, 20 dimensions, independent N(0, 0.5^2) noise per word): no change, so the
test of no change over all items should reject in about 5 % of runs. The simulation is
``calibration_sims_debias.plain_compare_rows``, whose full size (600 runs) is a section's
rows of docs/calibration.md."""

from __future__ import annotations

import pytest
from calibration_sims_debias import FPR, plain_compare_rows
from calibration_size import Runs, runs


@pytest.mark.parametrize("runs", runs(100, 600))
def test_compare_of_plain_runs_is_sized(runs: Runs) -> None:
    """Every metric's false-positive rate reaches [0.03, 0.07] (CI run: its Wilson
    interval; full run: the rate itself; 600 runs: WEAT 0.033, RIPA 0.030, RND 0.032, ECT
    0.032, MAC 0.043). Before plain runs recorded their word rows, compare of them fell
    back to the items-alone bootstrap-t (0.09-0.35 in such worlds:
    tests/stats/test_calibration_vector_debias.py), and the design check of the
    simulation fails."""
    rows = plain_compare_rows(runs.sims)
    for r in rows:
        lo, hi = r.wilson()
        print(f"{r.key}: FPR {r.rate:.3f} [{lo:.3f}, {hi:.3f}] over {r.sims}")
    assert all(runs.meets(r.rate, FPR) for r in rows), [(r.key, r.rate) for r in rows]
