"""Size of the embedding metrics' tests under their null (alpha 0.05): the RIPA
sign-flip test over word pairs and the RND permutation test of X/Y membership, each
run through the metric itself on simulated vectors where the null holds (pair order
arbitrary; X and Y words exchangeable). The false-positive rate must lie in
[0.03, 0.07]."""

from __future__ import annotations

import numpy as np
import pytest

from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.measures.embedding_metrics import ripa, rnd
from genderscope.models.vectors import WordVectors

N_SIMS = 1_500
ALPHA = 0.05


def _world(rng: np.random.Generator, n_target: int, n_attr: int, dim: int = 10
           ) -> tuple[WordVectors, AssociationTest]:
    names = {r: [f"{r.lower()}{i}" for i in range(n)] for r, n in
             (("X", n_target), ("Y", n_target), ("A", n_attr), ("B", n_attr))}
    words = [w for ws in names.values() for w in ws]
    # a shared offset: attributes are not centred on the targets (a realistic null)
    mat = rng.normal(size=(len(words), dim)) + rng.normal(size=dim)
    test = AssociationTest("sim", *(WordSet(r, tuple(ws)) for r, ws in names.items()))
    return WordVectors(mat.astype(np.float32), words, fingerprint="sim"), test


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["ripa", "rnd"])
def test_false_positive_rate_under_the_null(metric: str) -> None:
    rng = np.random.default_rng(20261124)
    rejected = 0
    for sim in range(N_SIMS):
        vecs, test = _world(rng, n_target=10, n_attr=6)
        if metric == "ripa":
            res = ripa(vecs, test, n_permutations=1_000, seed=sim, n_resamples=100)
        else:
            res = rnd(vecs, test, n_permutations=1_000, seed=sim, n_resamples=100,
                      exact_limit=0)
        rejected += res.summary["attributes"]["A"]["p_value"] <= ALPHA
    fpr = rejected / N_SIMS
    print(metric, "FPR", fpr)
    assert 0.03 <= fpr <= 0.07, fpr


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
