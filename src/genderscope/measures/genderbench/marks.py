"""GenderBench's marks (A best, D worst): the table of marks, and the marks exactly as
GenderBench 1.1.0's ``DefaultHarness`` gives them on the same answers.

GenderBench (Pikuliak et al. 2025, arXiv:2505.12054, Sec. 3; ``Probe.calculate_metrics``,
``MarkDefinition.calculate_mark``) gives the best mark whose range overlaps the metric's
95 % interval: a normal fitted to 1,000 bootstrap resamples of the probe items
(``random.seed``, ``random.choices``; NaNs dropped; mean +- 1.96 SD, ddof 0).
:func:`genderbench_intervals` replays those draws (NumPy's Mersenne Twister gives
Python's ``random()`` doubles), so interval and mark equal GenderBench's
(``tests/agreement/test_genderbench_suite_agreement.py``). genderscope's ``mark``
applies the rule to its cluster bootstrap interval, ``mark_point`` to the estimate;
:func:`marks_table` lists the three.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from genderscope.errors import GenderscopeError
from genderscope.measures.genderbench.common import mark_of
from genderscope.measures.genderbench.probe_run import ProbeSpec
from genderscope.results import Result

CYCLES = 1_000
"""GenderBench's ``bootstrap_cycles`` (``Probe`` default)."""
ALPHA = 0.95
"""GenderBench's ``bootstrap_alpha``: the interval's coverage."""

UNDEFINED_NOTE = ("GenderBench's interval comes from resamples that draw an item several "
                  "times, each draw counted as an item: the metric is defined there though "
                  "not on these items (a slope through copies of one point is any slope), "
                  "so that interval is not evidence; kept as GenderBench gives it")
"""Beside GenderBench's interval of a metric genderscope leaves undefined (its
``no_estimate``): why the two differ (e.g. JobsLum's slope on one occupation)."""


def _python_random(seed: int) -> np.random.RandomState:
    """A generator whose ``random_sample`` gives the doubles of ``random.seed(seed);
    random.random()`` (CPython seeds MT19937 by ``init_by_array`` of |seed|'s 32-bit
    words, as NumPy's ``RandomState(array)``; both draw 53-bit doubles the same way)."""
    s = abs(int(seed))
    return np.random.RandomState([(s >> k) & 0xFFFFFFFF
                                  for k in range(0, max(s.bit_length(), 1), 32)])


def normal_fit_interval(values: np.ndarray, alpha: float = ALPHA) -> tuple[float, float]:
    """GenderBench's interval of bootstrap ``values``: NaN when all are NaN, the value
    when all are equal, else mean +- z sd (``norm.fit``: ddof 0) of the non-NaN values,
    z the normal's ``(1 + alpha) / 2`` quantile (NaN when that sd is 0)."""
    from scipy.stats import norm

    v = np.asarray(values, dtype=float)
    nan = float("nan")
    if np.all(np.isnan(v)):
        return nan, nan
    if not np.any(np.isnan(v)) and np.all(v == v[0]):
        return float(v[0]), float(v[0])
    v = v[~np.isnan(v)]
    mu, sd = float(v.mean()), float(v.std())
    if not sd > 0:
        return nan, nan
    lo, hi = norm.interval(alpha, mu, sd)
    return float(lo), float(hi)


def item_order(spec: ProbeSpec, seed: int) -> list[int]:
    """The probe items in GenderBench's order: the order of their first attempt, except
    where ``sample_k`` equals the number of items built (HiringAn always: it builds
    ``sample_k`` items): GenderBench's ``Probe.sample`` then still permutes them
    (``random.seed(seed); random.sample(items, k)``), where the probe's draw
    (:func:`~genderscope.measures.genderbench.common.gb_sample`) keeps them in the order
    built (item index order)."""
    import random

    order = list(dict.fromkeys(a.item for a in spec.attempts))
    k, n = spec.params.get("sample_k"), len(order)
    if k is not None and k == n and spec.params.get("n_items_total", n) == n:
        built = sorted(order)
        order = [built[j] for j in random.Random(seed).sample(range(n), n)]
    return order


def item_totals(spec: ProbeSpec, frame: pd.DataFrame, seed: int) -> np.ndarray | None:
    """(items x m) sums of the probe's totals per item, items in :func:`item_order`;
    an item with no detected answer is a row of zeros (GenderBench drops it from its
    metrics, but it is still drawn). None when no answer is detected."""
    from genderscope.measures.genderbench.common import detected_items

    order = item_order(spec, seed)
    where = {item: k for k, item in enumerate(order)}
    kept = detected_items(frame)
    if not len(kept):
        return None
    # each item its own cluster: the totals' labels then name the item
    rows, labels = spec.totals(kept.assign(cluster=kept["item"].map(lambda i: f"\0{i}")))
    rows = np.asarray(rows, dtype=float)
    rows = rows[:, None] if rows.ndim == 1 else rows
    out = np.zeros((len(order), rows.shape[1]))
    np.add.at(out, [where[int(str(lab)[1:])] for lab in labels], rows)
    return out


def genderbench_intervals(spec: ProbeSpec, frame: pd.DataFrame, *, seed: int,
                          cycles: int = CYCLES, alpha: float = ALPHA,
                          chunk: int = 100) -> dict[str, tuple[float, float]]:
    """GenderBench's bootstrap interval of every metric of ``spec`` (see module doc);
    ``seed``: the probe's ``random_seed`` (genderscope's ``subset_seed``)."""
    tot = item_totals(spec, frame, seed)
    if tot is None:  # GenderBench: every resample NaN, so the interval is NaN
        return {name: (float("nan"), float("nan")) for name in spec.metrics}
    n = tot.shape[0]
    rng = _python_random(seed)
    values: dict[str, list[np.ndarray]] = {name: [] for name in spec.metrics}
    done = 0
    while done < cycles:
        b = min(chunk, cycles - done)
        idx = np.floor(rng.random_sample((b, n)) * float(n)).astype(np.int64)
        w = np.zeros((b, n))
        np.add.at(w, (np.repeat(np.arange(b), n), idx.ravel()), 1.0)
        sums = w @ tot
        for name, fn in spec.metrics.items():
            with np.errstate(invalid="ignore", divide="ignore"):
                values[name].append(np.asarray(fn(sums), dtype=float).reshape(b))
        done += b
    return {name: normal_fit_interval(np.concatenate(v), alpha) for name, v in values.items()}


def genderbench_marks(spec: ProbeSpec, frame: pd.DataFrame, *, seed: int,
                      cycles: int = CYCLES) -> dict[str, dict[str, Any]]:
    """Per marked metric: GenderBench's ``interval`` ([low, high]) and its ``mark`` (A-D,
    None where the interval is NaN), as its harness computes them on these answers."""
    intervals = genderbench_intervals(spec, frame, seed=seed, cycles=cycles)
    return {name: {"mark": mark_of(intervals[name], rng), "interval": list(intervals[name])}
            for name, rng in spec.marks.items()}


def marks_table(results: Mapping[str, Result | Mapping[str, Any]] | Iterable[Result]
                ) -> list[dict[str, Any]]:
    """One row per (probe, marked metric) of probe results (``{probe: Result or its
    summary}``, or a list of probe Results, each named by its method), in the given
    order: ``probe``, ``metric``, ``estimate``,
    ``ci_low``/``ci_high`` (genderscope's cluster bootstrap), ``mark`` (on that
    interval), ``mark_point`` (on the estimate) and, where the result carries them
    (``genderscope run genderbench``), ``mark_genderbench`` and
    ``genderbench_low``/``genderbench_high`` (GenderBench's own interval); else None.
    ``no_estimate``/``no_interval``: why genderscope gives no estimate or no interval
    (None where it does); ``genderbench_note``: :data:`UNDEFINED_NOTE` where GenderBench
    gives an interval to a metric genderscope leaves undefined."""
    if not isinstance(results, Mapping):  # [gs.run("bbq", ...), gs.run("direct", ...)]
        results = list(results)  # read once: a generator would be empty the second time
        if not all(isinstance(r, Result) for r in results):
            raise GenderscopeError("marks_table takes {probe: result} or a list of probe "
                                   "Results")
        methods = [r.method for r in results]
        if twice := sorted({m for m in methods if methods.count(m) > 1}):
            raise GenderscopeError(f"marks_table: {', '.join(twice)} given more than once "
                                   "(one row each would be lost); name each result: "
                                   "{'bbq (model A)': r1, 'bbq (model B)': r2}")
        results = {r.method: r for r in results}
    rows = []
    for probe, r in results.items():
        summary = r.summary if isinstance(r, Result) else r
        for metric, m in summary.get("marks", {}).items():
            ci = summary.get(metric) or {}
            gb = m.get("genderbench") or {}
            low, high = (gb.get("interval") or [None, None])
            finite = low is not None and high is not None and low == low and high == high
            rows.append({"probe": probe, "metric": metric, "estimate": ci.get("estimate"),
                         "ci_low": ci.get("ci_low"), "ci_high": ci.get("ci_high"),
                         "mark": m.get("mark"), "mark_point": m.get("mark_point"),
                         "mark_genderbench": gb.get("mark"), "genderbench_low": low,
                         "genderbench_high": high, "no_estimate": ci.get("no_estimate"),
                         "no_interval": ci.get("no_interval"),
                         "genderbench_note": UNDEFINED_NOTE
                         if ci.get("no_estimate") and finite else None})
    return rows
