"""Calibration of reported statistics that had no row on docs/calibration.md until
``test_calibration_coverage.py`` listed them (``tests/calibration_sims_reported.py``):
SEAT's p over source words (and how far the sentence-level ``p_as_published`` is from it),
CrowS-Pairs' exact binomial test, compare's mid-p McNemar test, run-many's rank
correlation tests, the attack's paired percentile bootstrap of the asymmetry and the
counterfactual's two-group percentile bootstrap of m2f - f2m."""

from __future__ import annotations

import pytest
from calibration_sims import COVER, FPR
from calibration_sims_reported import (
    attack_row,
    counterfactual_difference_row,
    crows_pairs_row,
    mcnemar_row,
    rank_correlation_rows,
    seat_null_rows,
)
from calibration_size import Runs, runs


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, 2000))
def test_seat_p_over_source_words_holds_its_size(runs: Runs) -> None:
    """SEAT's p holds its size under crossed word and template effects; the published
    sentence-level p rejects far more often than 5 %."""
    words, sentences = seat_null_rows(runs.sims, runs.of(500))
    print(f"SEAT FPR over source words {words.rate:.3f}, as published {sentences.rate:.3f}")
    assert runs.meets(words.rate, FPR)
    assert runs.above(sentences.rate, 0.2, sentences.sims)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(500, 2000))
def test_crows_pairs_binomial_test_holds_its_size(runs: Runs) -> None:
    """The exact binomial test never rejects more than 5 % under its null (its known
    limit: below the bar where the count is discrete) and not far below it at 20-262
    pairs."""
    row = crows_pairs_row(runs.sims)
    print(f"CrowS-Pairs binomial FPR {row.rate:.3f} over {row.sims}")
    assert runs.below(row.rate, FPR[1]) and runs.above(row.rate, 0.02)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, 2000))
def test_attack_asymmetry_ci_covers(runs: Runs) -> None:
    row = attack_row(runs.sims)
    print(f"attack asymmetry coverage {row.rate:.3f} over {row.sims}")
    assert runs.meets(row.rate, COVER)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, 2000))
def test_counterfactual_difference_ci_covers(runs: Runs) -> None:
    row = counterfactual_difference_row(runs.sims)
    print(f"counterfactual m2f - f2m coverage {row.rate:.3f} over {row.sims}")
    assert runs.meets(row.rate, COVER)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(500, 2000))
def test_compare_mcnemar_test_holds_its_size(runs: Runs) -> None:
    """compare's mid-p McNemar test rejects about 5 % under no change (the exact
    conditional test it replaced rejected 0.024 at 2,000 runs, below the bar)."""
    row = mcnemar_row(runs.sims)
    print(f"compare McNemar FPR {row.rate:.3f} over {row.sims}")
    assert runs.meets(row.rate, FPR)


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(500, 2000))
def test_rank_correlation_tests_hold_their_size(runs: Runs) -> None:
    """run-many's Spearman and Kendall tests of two independent rankings reject about
    5 % (never far above it)."""
    for row in rank_correlation_rows(runs.sims):
        print(f"{row.key} FPR {row.rate:.3f} over {row.sims}")
        assert runs.below(row.rate, FPR[1]) and runs.above(row.rate, 0.02), row.key
