"""No reported interval collapses to a point the data cannot establish: units that all
give the same value have no interval (NaN bounds, ``no_interval`` saying why), and a share
of 0 or 1 takes Wilson's interval (clustered: the design-effect Wilson), never [0, 0] or
[1, 1]."""

from __future__ import annotations

import math

import numpy as np
import pytest

from genderscope.core.design import Design
from genderscope.stats.design import infer, infer_totals
from genderscope.stats.intervals import bootstrap_ci, t_mean_ci
from genderscope.stats.resample import (
    cluster_bootstrap_ci,
    cluster_proportion_ci,
    cluster_share_ci,
    cluster_t_ci,
    index_bootstrap_ci,
)


def _undefined(ci: object, estimate: float) -> None:
    d = ci.as_dict()  # type: ignore[attr-defined]
    assert d["estimate"] == pytest.approx(estimate)
    assert math.isnan(d["ci_low"]) and math.isnan(d["ci_high"])
    assert "interval undefined" in d["no_interval"]


@pytest.mark.parametrize("value", [0.0, 0.25, 1.0])
def test_equal_units_have_no_interval(value: float) -> None:
    x = np.full(24, value)
    _undefined(bootstrap_ci(x, unit="texts", n_resamples=200), value)
    _undefined(t_mean_ci(x, unit="texts"), value)
    assert "24 texts" in bootstrap_ci(x, unit="texts", n_resamples=200).no_interval
    _undefined(bootstrap_ci([value], unit="texts"), value)


def test_equal_clusters_have_no_interval() -> None:
    tot = np.column_stack([np.full(10, 3.0), np.full(10, 3.0)])  # every cluster's mean 1
    _undefined(cluster_bootstrap_ci(tot, lambda t: t[:, 0] / t[:, 1], unit="stereotypes",
                                    n_resamples=200), 1.0)
    _undefined(cluster_t_ci(tot, unit="stereotypes"), 1.0)
    design = Design("ratio", unit="answers", clusters="stereotypes")
    _undefined(infer_totals(design, tot, lambda t: t[:, 0] / t[:, 1]).ci, 1.0)
    _undefined(index_bootstrap_ci([12], lambda idx: np.zeros(idx[0].shape[0]),
                                  n_resamples=100), 0.0)


def test_varying_units_keep_their_intervals() -> None:
    x = np.array([0.0, 0.1, 0.0, 0.3, 0.0, 0.2])
    for ci in (bootstrap_ci(x, n_resamples=500), t_mean_ci(x)):
        assert ci.ci_low < ci.estimate < ci.ci_high and ci.no_interval is None
        assert "no_interval" not in ci.as_dict()


def test_a_share_of_one_is_not_a_point() -> None:
    """10 of 10 answers in 10 clusters: Wilson at n = 10 with t(9), not [1, 1]."""
    ci = cluster_share_ci(np.ones((10, 2)), unit="stereotypes")
    assert ci.ci_high == 1.0 and 0.6 < ci.ci_low < 0.7
    assert ci.method == "design-effect Wilson"
    low = infer(Design("proportion", unit="texts"), np.zeros(24)).ci
    assert low.ci_low == 0.0 and low.ci_high > 0.1


def test_a_share_at_the_boundary_counts_each_cluster_once() -> None:
    """All 40 answers of 10 clusters agree: the data cannot estimate the design effect,
    and a cluster's answers may agree as one, so the interval is Wilson's over the 10
    clusters, not over 40 independent answers."""
    c = np.repeat(np.arange(10), 4)
    clustered = cluster_proportion_ci(np.ones(40), c, unit="clusters")
    one_each = cluster_share_ci(np.ones((10, 2)), unit="clusters")
    assert clustered.ci_low == pytest.approx(one_each.ci_low)
    assert clustered.n == 40 and clustered.n_units == 10
    # zero-count clusters (no answer of this kind) are not clusters of the share
    padded = np.vstack([np.ones((10, 2)), np.zeros((5, 2))])
    assert cluster_share_ci(padded, unit="clusters").n_units == 10


def test_share_counts_must_be_shares() -> None:
    with pytest.raises(ValueError, match="successes"):
        cluster_share_ci(np.array([[3.0, 2.0], [1.0, 1.0]]), unit="clusters")


def test_crossed_interval_without_spread_has_no_interval() -> None:
    """ABC's share of groups whose reflexive wins, 1 in every occupation x frame: the
    crossed bootstrap-variance t interval is not [1, 1]."""
    from genderscope.stats.crossed import crossed_ci

    rows, cols = np.repeat(np.arange(6), 3), np.tile(np.arange(3), 6)
    values = np.ones(18)

    def share(w: np.ndarray) -> np.ndarray:
        return (w * values).sum(axis=1) / w.sum(axis=1)

    _undefined(crossed_ci(rows, cols, share, unit="occupations x frames", n_resamples=200),
               1.0)
    varied = np.linspace(0, 1, 18)
    ci = crossed_ci(rows, cols, lambda w: (w * varied).sum(axis=1) / w.sum(axis=1),
                    unit="occupations x frames", n_resamples=200)
    assert ci.ci_low < ci.estimate < ci.ci_high
