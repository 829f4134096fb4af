"""Size of the embedding metrics' tests under their null (alpha 0.05): the RIPA
sign-flip test over word pairs and the RND permutation test of X/Y membership, each
run through the metric itself on simulated vectors where the null holds (pair order
arbitrary; X and Y words exchangeable). The false-positive rate must lie in
[0.03, 0.07]."""

from __future__ import annotations

import numpy as np
import pytest
from calibration_sims import association_world as _world
from calibration_sims import embedding_null_row
from calibration_size import Runs, runs

from genderscope.measures.embedding_metrics import ripa
from genderscope.models.vectors import WordVectors

N_SIMS = 1_500
ALPHA = 0.05


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, N_SIMS))
@pytest.mark.parametrize("metric", ["ripa", "rnd"])
def test_false_positive_rate_under_the_null(metric: str, runs: Runs) -> None:
    row = embedding_null_row(metric, runs.sims)  # its simulation (docs/calibration.md)
    print(metric, "FPR", row.rate)
    assert runs.meets(row.rate, (0.03, 0.07)), row


def test_ripa_test_has_power() -> None:
    """Not vacuous: the same test rejects when the pairs share a direction the
    attributes lie along."""
    rng = np.random.default_rng(1)
    rejected = 0
    for sim in range(100):
        vecs, test = _world(rng, n_target=10, n_attr=6)
        m = np.array(vecs.matrix)
        m[:10, 0] += 3.0  # X words shifted along axis 0 ...
        m[20:26, 0] += 3.0  # ... and so are the A words
        res = ripa(WordVectors(m, vecs.words, fingerprint="p"), test, seed=sim,
                   n_resamples=100)
        rejected += res.summary["attributes"]["A"]["p_value"] <= ALPHA
    print("RIPA power", rejected)
    assert rejected >= 80
