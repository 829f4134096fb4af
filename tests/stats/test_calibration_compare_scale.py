"""Null calibration of the report's model-vs-model test of a WEAT/SEAT d (statistics
round 2: the test must test the quantity estimated).

d is blind to each model's scale; two models whose associations differ only by an
affine map have the same d. The cluster swap used to exchange raw rows between the
models, so a scale difference entered its null: p came out near 1 (the report showed a
SEAT difference whose CI excluded 0 with p = 0.78). Rows are now standardized per model
before the swap (``Paired.standardize``). Below 50 clusters the test is now the cluster
bootstrap-t (round 3; at every cluster count since), which resamples each model's own
rows and so is blind to the scale by construction; the swap (``smooth=False`` here) still
serves a median and a zero jackknife SE."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from genderscope.reporting.cards.weat import d_rows, z_first
from genderscope.reporting.compare import paired_difference
from genderscope.reporting.entry import Paired


def _model(rng: np.random.Generator, words: np.ndarray, scale: float, shift: float,
           keys: pd.MultiIndex) -> pd.DataFrame:
    """Associations of 16 source words x 4 template sentences: word effect + sentence
    noise, then the model's own affine scale."""
    sent = words.repeat(4) + 0.6 * rng.standard_normal(words.size * 4)
    x = np.repeat((np.arange(words.size) < words.size // 2).astype(float), 4)
    return pd.DataFrame({"association": scale * sent + shift, "x": x}, index=keys)


def _false_positive_rate(standardize: bool, sims: int = 400, smooth: bool = True) -> float:
    rng = np.random.default_rng(2026)
    n_words = 16
    keys = pd.MultiIndex.from_tuples([(f"w{k}", f"s{j}") for k in range(n_words)
                                      for j in range(4)], names=["word", "sentence"])
    clusters = pd.Series([k for k, _ in keys], index=keys)
    hits = 0
    for i in range(sims):
        words = rng.standard_normal(n_words) + 0.5 * (np.arange(n_words) < 8)
        a = Paired(_model(rng, words, 1.0, 0.0, keys), d_rows, unit="source words",
                   clusters=clusters, standardize=z_first if standardize else None,
                   smooth=smooth)
        b = Paired(_model(rng, words, 6.0, 2.0, keys), d_rows, unit="source words",
                   clusters=clusters, smooth=smooth)
        p = paired_difference(a, b, n_permutations=300, seed=i)[5]
        hits += p < 0.05
    return hits / sims


def _keys() -> tuple[pd.MultiIndex, pd.Series]:
    keys = pd.MultiIndex.from_tuples([(f"w{k}", f"s{j}") for k in range(16)
                                      for j in range(4)], names=["word", "sentence"])
    return keys, pd.Series([k for k, _ in keys], index=keys)


@pytest.mark.slow
def test_d_difference_p_is_blind_to_a_models_scale() -> None:
    """The CI-sized check of the calibration below (whose 400 runs are
    ``calibration_full``): for the same data, model B's associations scaled by 6 and
    shifted by 2 give the same p as unscaled, for the cluster bootstrap-t and for the swap
    of standardized rows; the swap of raw rows (the test before) gives another p."""
    keys, clusters = _keys()
    rng = np.random.default_rng(2026)
    raw_moved = 0
    for i in range(4):
        words = rng.standard_normal(16) + 0.5 * (np.arange(16) < 8)
        a_rows, b_rows = (_model(rng, words, 1.0, 0.0, keys) for _ in range(2))
        b_scaled = b_rows.assign(association=6.0 * b_rows["association"] + 2.0)
        for standardize, smooth in ((True, True), (True, False), (False, False)):
            a = Paired(a_rows, d_rows, unit="source words", clusters=clusters,
                       standardize=z_first if standardize else None, smooth=smooth)
            p, p_scaled = (paired_difference(a, Paired(b, d_rows, unit="source words",
                                                       clusters=clusters, smooth=smooth),
                                             n_permutations=300, seed=i)[5]
                           for b in (b_rows, b_scaled))
            if standardize:
                assert p_scaled == p, (i, smooth)
            else:
                raw_moved += abs(p_scaled - p) > 0.01
    assert raw_moved >= 3


@pytest.mark.slow
@pytest.mark.calibration_full
def test_d_difference_between_models_of_different_scale_is_calibrated():
    rate = _false_positive_rate(standardize=True)
    print(f"false-positive rate, cluster bootstrap-t: {rate:.3f}")
    assert 0.03 <= rate <= 0.07, rate


@pytest.mark.slow
@pytest.mark.calibration_full
def test_raw_swap_was_not_calibrated():
    """The old swap of raw rows: its null is wide, so it (almost) never rejects."""
    assert _false_positive_rate(standardize=False, sims=200, smooth=False) < 0.02
