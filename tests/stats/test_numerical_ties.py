"""Numerical noise is not evidence: a run compared with itself rescored at another batch
size reports no change (docs/calibration.md, "Numerical precision")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from genderscope.core.design import SCORE_TOLERANCE, SENTENCE_TOLERANCE, Tolerance
from genderscope.measures.compare import NO_CHANGE, compare_runs, tolerance_of
from genderscope.results import Result
from genderscope.stats.design import ties


def _crows(model_dir: Path, batch_size: int, store: Path) -> Result:
    import genderscope as gs
    from genderscope.models.causal import CausalLM

    lm = CausalLM.from_pretrained(model_dir, device="cpu", batch_size=batch_size)
    return gs.run("crows-pairs", model=lm, limit=40, store=store)


def test_rescoring_at_another_batch_size_is_no_change(tiny_gpt2_dir: Path,
                                                      tmp_path: Path) -> None:
    one = _crows(tiny_gpt2_dir, 1, tmp_path / "one.sqlite")
    many = _crows(tiny_gpt2_dir, 16, tmp_path / "many.sqlite")
    raw = (many.items["score_more"] - many.items["score_less"]).to_numpy() - (
        one.items["score_more"] - one.items["score_less"]).to_numpy()
    assert np.abs(raw).max() > 0  # batching did move the float32 scores
    assert np.abs(raw).max() < SCORE_TOLERANCE.atol
    row = compare_runs(one, many, n_resamples=999).tables["change_by_group"].iloc[0]
    assert row["test"] == NO_CHANGE and np.isnan(row["p_value"])
    assert row["change"] == 0.0  # every item a tie: no spread, so no interval ([0, 0] was)
    assert np.isnan(row["change_ci_low"]) and np.isnan(row["change_ci_high"])
    assert row["n_ties"] == row["n"] == 40
    # with no tolerance the same noise reads as a change: what the tolerance prevents
    strict = compare_runs(one, many, n_resamples=999, tolerance=Tolerance())
    assert strict.tables["change_by_group"].iloc[0]["test"] != NO_CHANGE


def _runs(change: np.ndarray) -> tuple[Result, Result]:
    rng = np.random.default_rng(3)
    a = pd.DataFrame({"pair_id": np.arange(change.size), "bias_type": "gender",
                      "margin": rng.normal(0, 5, change.size)})
    b = a.assign(margin=a["margin"] + change)
    return Result("sim", {}, a), Result("sim", {}, b)


def test_a_change_beyond_the_tolerance_is_still_a_change() -> None:
    change = np.r_[np.full(20, 1e-3), np.full(20, 1e-7)]
    row = compare_runs(*_runs(change), key=("pair_id",), value="margin",
                       n_resamples=999).tables["change_by_group"].iloc[0]
    assert row["n_ties"] == 20
    assert row["change"] == pytest.approx(0.5e-3)
    assert row["test"] == "bootstrap-t test of the mean" and row["p_value"] < 0.01


def test_ties_rule_and_declared_tolerance() -> None:
    tol = Tolerance(atol=1e-4, rtol=1e-5)
    mask = ties([0.0, 100.0, 1.0, np.nan], [9e-5, 100.0011, 1.0002, 1.0], tol)
    assert mask.tolist() == [True, True, False, False]
    assert tolerance_of("crows-pairs") == SENTENCE_TOLERANCE  # a sum of token terms
    assert tolerance_of("perplexity") == SCORE_TOLERANCE  # a mean per token
    with pytest.raises(ValueError, match="atol and rtol"):
        Tolerance(atol=-1.0)


def test_sentence_sums_tie_within_device_noise_and_change_beyond() -> None:
    """CrowS-Pairs margins (sums of token log-probabilities) rescored on another device
    moved by up to 1.6e-3 nats on SmolLM2 (benchmarks/results/device/precision-h200-crows.txt):
    such moves are ties; a move of 0.03-0.07 nats (bfloat16 moved a median 0.16) is a change."""
    rng = np.random.default_rng(5)
    pairs = pd.DataFrame({"pair_id": np.arange(200), "bias_type": "gender",
                          "score_more": rng.normal(-60, 10, 200),
                          "score_less": rng.normal(-60, 10, 200)})
    pairs["stereotypical_preferred"] = pairs.score_more > pairs.score_less
    noise = pairs.assign(score_more=pairs.score_more + rng.uniform(-2e-3, 2e-3, 200))
    row = compare_runs(Result("crows-pairs", {}, pairs), Result("crows-pairs", {}, noise),
                       n_resamples=999).tables["change_by_group"].iloc[0]
    assert row["test"] == NO_CHANGE and row["n_ties"] == 200
    moved = pairs.assign(score_more=pairs.score_more + rng.uniform(0.03, 0.07, 200))
    row = compare_runs(Result("crows-pairs", {}, pairs), Result("crows-pairs", {}, moved),
                       n_resamples=999).tables["change_by_group"].iloc[0]
    assert row["n_ties"] == 0 and row["p_value"] < 0.01
