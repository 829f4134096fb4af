"""Several models side by side: a leaderboard of headline numbers and tested differences.

Two models measured on the same items are compared item by item (the card's
:class:`~genderscope.reporting.entry.Paired` form of its first headline); the method in
full, with its measured coverage and error rates: docs/report.md, "Comparing models", and
docs/calibration.md.

- **difference** = statistic(A's items) − statistic(B's items), over the items both scored;
- **95 % CI**, over clusters where items share a unit that varies (``Paired.clusters``),
  else over items: below ``MIN_BOOTSTRAP_UNITS`` units, for a smooth statistic,
  jackknife-t, difference ± t_{K*−1, 0.975} · jackknife SE, K* = N² / Σ N_k² the
  effective number of clusters (Kish 1965); otherwise the paired percentile bootstrap;
- **p-value**, at the unit the CI resamples: for a smooth statistic the cluster
  bootstrap-t test (Hall 1988), T = difference / SE, T* = (difference* − difference) / SE*
  over B resamples of whole units, two-sided p = 2 min(P*(T* ≥ T), P*(T* ≤ T)) with the
  (k + 1) / (B + 1) estimator (SE: jackknife below ``MIN_BOOTSTRAP_UNITS`` units, else
  :func:`_ratio_se`); for a median, or an SE of 0, the paired permutation test swapping
  each unit's two models' rows (the sharp null: exchangeable within each unit),
  p = (1 + #{|d_perm| ≥ |d_obs|}) / (n_perm + 1), or exact over all 2^K swaps when
  2^K ≤ n_perm. Under ``MIN_UNITS_TO_TEST`` units no p (NaN). All differences of one
  page are one family, Holm-adjusted (``p_adjusted``);
- **caveat** (:func:`difference_caveat`): the bootstrap-t's known limit, strongly skewed
  unit differences over ``REPORT_UNITS`` units.

Measures without an item-level form (WEAT/SEAT) are listed in the leaderboard
but not tested.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from genderscope.reporting import plots
from genderscope.reporting.entry import Paired, _finite, fmt, fmt_p, unit_words
from genderscope.reporting.runner import ReportData, Section
from genderscope.stats import adjust_pvalues
from genderscope.stats.diagnostics import mean_caveat


@dataclass
class Difference:
    measure: str
    label: str
    model_a: str
    model_b: str
    estimate_a: float
    estimate_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_items: int
    n_resamples: int
    ci_unit: str = "items"
    """The CI's unit: what it resampled or left out (the entry's ``Paired.unit``)."""
    ci_method: str = "percentile bootstrap"
    """:func:`ci_method` of the number of clusters (or items)."""
    p_adjusted: float = float("nan")
    """Holm-adjusted over every tested difference of the page (one family)."""
    caveat: str | None = None
    """One line when the p is outside its calibrated range (:func:`difference_caveat`)."""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def ci_words(self) -> str:
        """'resampling professions, percentile bootstrap' / 'over professions, jackknife
        t interval'."""
        return f"{unit_words(self.ci_unit, self.ci_method)}, {self.ci_method}"


def paired_difference(a: Paired, b: Paired, *, n_resamples: int = 2000,
                      n_permutations: int = 2000, seed: int = 0
                      ) -> tuple[float, float, float, float, float, float, int]:
    """(stat A, stat B, A − B, CI low, CI high, permutation p, n shared items)."""
    x, y, members = _rows(a, b)
    n = len(x)
    if n < 2:
        nan = float("nan")
        return nan, nan, nan, nan, nan, nan, n
    stat = a.statistic
    sa, sb = stat(x), stat(y)
    obs = sa - sb
    rng = np.random.default_rng(seed)
    k_ci = n if members is None else len(members)
    if k_ci < MIN_BOOTSTRAP_UNITS and a.smooth:
        lo, hi = _jackknife_t(x, y, stat, obs, members, n)
    else:
        lo, hi = _percentile(x, y, stat, members, n, n_resamples, rng)
    head = float(sa), float(sb), float(obs), float(lo), float(hi)
    if k_ci < MIN_UNITS_TO_TEST:
        return *head, float("nan"), n
    if a.smooth and np.isfinite(obs):
        p_t = _bootstrap_t_p(x, y, stat, obs, members, n, n_permutations, rng)
        if np.isfinite(p_t):
            return *head, p_t, n
    # the permutation swaps the two models' rows of a whole cluster at once (the unit the
    # CI resamples); every one of the 2^K swaps when that is at most n_permutations. A
    # statistic blind to each model's scale (d) swaps standardized rows: otherwise two
    # models' different scales widen the null of a difference the statistic ignores
    if a.standardize is not None:
        x, y = a.standardize(x), a.standardize(y)
    codes = np.arange(n) if members is None else np.empty(n, dtype=int)
    if members is not None:
        for k, rows in enumerate(members):
            codes[rows] = k
    k_units = int(codes.max()) + 1
    exact = k_units < 63 and (1 << k_units) <= n_permutations
    n_perm = (1 << k_units) if exact else n_permutations
    perm = np.empty(n_perm)
    for i in range(n_perm):
        flip = (((i >> np.arange(k_units)) & 1).astype(bool) if exact
                else rng.random(k_units) < 0.5)
        swap = flip[codes]
        xp = np.where(swap[:, None], y, x)
        yp = np.where(swap[:, None], x, y)
        perm[i] = stat(xp) - stat(yp)
    perm = perm[np.isfinite(perm)]
    hits = np.sum(np.abs(perm) >= abs(obs) - 1e-12)
    p = ((hits / perm.size if exact else (1 + hits) / (perm.size + 1))
         if np.isfinite(obs) and perm.size else float("nan"))
    return *head, float(p), n


MIN_UNITS_TO_TEST = 6
"""With fewer clusters (or items) no p-value is given (too few units to test)."""

MIN_BOOTSTRAP_UNITS = 50
"""Below this many clusters (or items) the CI is the jackknife-t interval; the percentile
bootstrap undercovers there (0.80 / 0.89 at 5 / 10 clusters, issue 22)."""


REPORT_UNITS = (10, 100)
"""Units (inclusive) where the cluster bootstrap-t rejected above its bar under centred
lognormal unit differences: 10 and 20 equal clusters and 50-100 unequal ones
(docs/calibration.md, "report model difference test"); 10 is the fewest calibrated."""
REPORT_LIMIT = ("the report's cluster bootstrap-t with skewness 6 at 10-100 clusters: "
                "false-positive rate 0.088 at 10, 0.078 at 100 unequal clusters")


def difference_caveat(a: Paired, b: Paired) -> str | None:
    """The caveat of the bootstrap-t p of a smooth statistic's A - B: the mean's rule
    (:func:`genderscope.stats.diagnostics.mean_caveat`) over each unit's difference
    stat(A's rows) - stat(B's rows), fired over :data:`REPORT_UNITS` units only."""
    x, y, members = _rows(a, b)
    groups = [np.array([i]) for i in range(len(x))] if members is None else members
    if not (a.smooth and REPORT_UNITS[0] <= len(groups) <= REPORT_UNITS[1]):
        return None
    with np.errstate(all="ignore"):
        d = [a.statistic(x[g]) - a.statistic(y[g]) for g in groups]
    return mean_caveat(d, a.unit, sizes=REPORT_UNITS, limit=REPORT_LIMIT,
                       risk="the p-value can be too small")  # its interval: percentile


def ci_method(n_units: int, smooth: bool = True) -> str:
    """The interval :func:`paired_difference` gives over ``n_units`` clusters (or items)."""
    return ("jackknife t interval" if n_units < MIN_BOOTSTRAP_UNITS and smooth
            else "percentile bootstrap")


def _percentile(x: np.ndarray, y: np.ndarray, stat: Any, members: list[np.ndarray] | None,
                n: int, n_resamples: int, rng: np.random.Generator) -> tuple[float, float]:
    boot = np.empty(n_resamples)
    for i in range(n_resamples):
        if members is None:
            idx = rng.integers(0, n, n)
        else:  # whole clusters, drawn with replacement
            idx = np.concatenate([members[k] for k in
                                  rng.integers(0, len(members), len(members))])
        boot[i] = stat(x[idx]) - stat(y[idx])
    boot = boot[np.isfinite(boot)]
    if not boot.size:
        return float("nan"), float("nan")
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(lo), float(hi)


def _jackknife_t(x: np.ndarray, y: np.ndarray, stat: Any, obs: float,
                 members: list[np.ndarray] | None, n: int) -> tuple[float, float]:
    """difference ± t_{K*-1, 0.975} · jackknife SE, leaving out one cluster (or item) at a
    time; K* the effective number of clusters (:func:`effective_clusters`). Any smooth
    statistic (mean, share, ratio)."""
    groups = [np.array([i]) for i in range(n)] if members is None else members
    loo = _leave_one_out(x, y, stat, groups) if len(groups) >= 2 and np.isfinite(obs) \
        else None
    if loo is None:  # too few units, or a leave-one-out difference not finite
        return float("nan"), float("nan")
    se = _loo_se(loo)
    from scipy.stats import t as t_dist  # imported on use

    half = float(t_dist.ppf(0.975, effective_clusters([g.size for g in groups]) - 1)) * se
    return obs - half, obs + half


def effective_clusters(sizes: list[int] | np.ndarray) -> float:
    """K* = N^2 / sum(N_k^2) for clusters of sizes N_k: K when the sizes are equal, fewer
    when a few large clusters hold most items (module docstring); at least 2."""
    m = np.asarray(sizes, dtype=float)
    if m.size == 0:
        return float("nan")
    if np.all(m == m[0]):  # exactly K (no rounding): equal clusters keep t(K - 1)
        return float(m.size)
    return max(2.0, float(m.sum() ** 2 / np.sum(m ** 2)))


def _loo_se(loo: np.ndarray) -> float:
    """The jackknife SE from the K leave-one-out values: sqrt((K - 1) / K sum (loo_j -
    mean)^2)."""
    k = loo.size
    return float(np.sqrt((k - 1) / k * np.sum((loo - loo.mean()) ** 2)))


def _leave_one_out(x: np.ndarray, y: np.ndarray, stat: Any,
                   groups: list[np.ndarray]) -> np.ndarray | None:
    """stat(x) - stat(y) without each group of rows in turn (None: one not finite)."""
    rows = np.concatenate(groups)
    loo = np.empty(len(groups))
    start = 0
    keep = np.ones(rows.size, dtype=bool)
    for j, g in enumerate(groups):
        keep[start:start + g.size] = False
        r = rows[keep]
        loo[j] = stat(x[r]) - stat(y[r])
        keep[start:start + g.size] = True
        start += g.size
    return loo if np.all(np.isfinite(loo)) else None


def _bootstrap_t_p(x: np.ndarray, y: np.ndarray, stat: Any, obs: float,
                   members: list[np.ndarray] | None, n: int, n_resamples: int,
                   rng: np.random.Generator) -> float:
    """Two-sided cluster bootstrap-t p of difference 0 (module docstring); NaN when the
    observed jackknife SE is 0 or not finite (the caller then swaps). SE* of a resample:
    its own jackknife below ``MIN_BOOTSTRAP_UNITS`` units; from there the linearised
    ratio SE of the units drawn, with their sizes (:func:`_ratio_se`), K times cheaper."""
    groups = [np.array([i]) for i in range(n)] if members is None else members
    k = len(groups)
    loo = _leave_one_out(x, y, stat, groups)
    if loo is None:
        return float("nan")
    nested = k < MIN_BOOTSTRAP_UNITS
    sizes = np.array([g.size for g in groups], dtype=float)
    # u_j = (d - LOO_j)(N - N_j): T_j - d N_j for a mean (T_j the cluster's total)
    u = (obs - loo) * (n - sizes)
    se = _loo_se(loo) if nested else _ratio_se(u, sizes)
    if not (np.isfinite(se) and se > 0):
        return float("nan")
    t_obs = obs / se
    draws = np.empty(n_resamples)
    for b in range(n_resamples):
        idx = rng.integers(0, k, k)
        rows = idx if members is None else np.concatenate([groups[j] for j in idx])
        d_b = stat(x[rows]) - stat(y[rows])
        if nested:
            loo_b = _leave_one_out(x, y, stat, [groups[j] for j in idx])
            se_b = float("nan") if loo_b is None else _loo_se(loo_b)
        else:
            se_b = _ratio_se(u[idx] - (d_b - obs) * sizes[idx], sizes[idx])
        with np.errstate(divide="ignore", invalid="ignore"):
            draws[b] = (d_b - obs) / se_b if se_b > 0 else np.sign(d_b - obs) * np.inf
    draws = draws[~np.isnan(draws)]  # a resample the statistic is undefined on (d of one set)
    if draws.size < n_resamples / 2:
        return float("nan")
    ge = (np.count_nonzero(draws >= t_obs) + 1) / (draws.size + 1)
    le = (np.count_nonzero(draws <= t_obs) + 1) / (draws.size + 1)
    return float(min(1.0, 2 * min(ge, le)))


def _ratio_se(u: np.ndarray, sizes: np.ndarray) -> float:
    """Linearised SE of an item-weighted statistic over K clusters of sizes N_k:
    sqrt(K / (K - 1) * sum (u_k - mean u)^2) / sum N_k, with u_k = T_k - d N_k for a
    mean d = sum T_k / sum N_k, a ratio estimator (Cochran 1977, Sec. 6.4). A resample's
    u* = u - (d* - d) N_k of the clusters drawn, over their own total size: its size
    variation enters SE*, which influence values fixed at the sample's d and N leave out
    (those make the bootstrap-t too liberal over clusters of 2-30 items; docs/report.md).
    Equal to the jackknife's influence-value SE for a mean over equal clusters or items."""
    k = u.size
    return float(np.sqrt(k / (k - 1) * np.sum((u - u.mean()) ** 2)) / sizes.sum())


def _rows(a: Paired, b: Paired) -> tuple[np.ndarray, np.ndarray, list[np.ndarray] | None]:
    """A's and B's rows of the items both scored (their shared columns), and each
    cluster's row positions (None: the items are the units)."""
    shared = a.frame.index.intersection(b.frame.index)
    cols = [c for c in a.frame.columns if c in b.frame.columns]
    x, y = (p.frame.loc[shared, cols].to_numpy(float) for p in (a, b))
    return x, y, _cluster_rows(a, shared)


def _cluster_rows(a: Paired, shared: pd.Index) -> list[np.ndarray] | None:
    """Row positions (in ``shared`` order) of each cluster, or None to resample rows."""
    if a.clusters is None:
        return None
    labels = a.clusters[~a.clusters.index.duplicated()].reindex(shared)
    codes = pd.factorize(labels.astype(str).fillna(""), sort=True)[0]
    return [np.flatnonzero(codes == k) for k in range(codes.max() + 1)]


def _ok(sections: list[Section]) -> dict[str, dict[str, Section]]:
    """measure name -> subject label -> ok section."""
    out: dict[str, dict[str, Section]] = {}
    for s in sections:
        if s.status == "ok":
            out.setdefault(s.measure.name, {})[s.subject.label] = s
    return out


def leaderboard(data: ReportData) -> pd.DataFrame:
    """One row per (measure, headline), one column per subject: 'estimate [CI]' / p."""
    rows: list[dict[str, Any]] = []
    by = {name: per for name, per in _ok(data.sections).items() if len(per) >= 2}
    labels = [s.label for s in data.subjects if any(s.label in per for per in by.values())]
    for per in by.values():
        first = next(iter(per.values()))
        for k, h in enumerate(first.headlines):
            if not h.primary:
                continue
            row: dict[str, Any] = {"measure": first.measure.title, "number": h.label.strip()}
            for lab in labels:
                sec = per.get(lab)
                row[lab] = "" if sec is None or k >= len(sec.headlines) else \
                    cell(sec.headlines[k])
            rows.append(row)
    return pd.DataFrame(rows, columns=["measure", "number", *labels])


def cell(h: Any) -> str:
    """'estimate [low, high], resampling UNIT', or 'estimate (p ...)' without a CI; the
    adjusted p joins the raw one for a number in a family of tests."""
    unit = getattr(h, "ci_unit", None)
    if h.has_ci:
        low, high = fmt(h.ci_low), fmt(h.ci_high)
        est = fmt(h.estimate)
        if "." not in est and "e" not in est and "." in low:  # 60 [44.60, ...] -> 60.00
            est = fmt(h.estimate, len(low.split(".")[1]))
        words = unit_words(unit, getattr(h, "ci_method", None))
        return f"{est} [{low}, {high}]" + (f", {words}" if words else "")
    if h.p_value is not None:
        return f"{fmt(h.estimate)} (p {h.p_text() if hasattr(h, 'p_text') else fmt_p(h.p_value)})"
    why = getattr(h, "no_interval", None)  # e.g. too few scenarios to give an interval
    return f"{fmt(h.estimate)} ({why})" if why else fmt(h.estimate)


def differences(data: ReportData, *, n_resamples: int | None = None, seed: int = 0
                ) -> list[Difference]:
    """Every pair of models on every measure with an item-level form."""
    n = n_resamples or (1000 if data.ctx.quick else 2000)
    out: list[Difference] = []
    for name, per in _ok(data.sections).items():
        secs = list(per.values())
        if len(secs) < 2:
            continue
        for sa, sb in itertools.combinations(secs, 2):
            try:
                pa, pb = sa.measure.paired(sa.result), sb.measure.paired(sb.result)
            except Exception:  # noqa: BLE001 - an item table without the columns: not tested
                continue
            if pa is None or pb is None:
                continue
            a, b, d, lo, hi, p, k = paired_difference(pa, pb, n_resamples=n,
                                                      n_permutations=n, seed=seed)
            members = _rows(pa, pb)[2]
            out.append(Difference(name, sa.headlines[0].label if sa.headlines else name,
                                  sa.subject.label, sb.subject.label, a, b, d, lo, hi, p, k, n,
                                  ci_unit=pa.unit, ci_method=ci_method(
                                      k if members is None else len(members), pa.smooth),
                                  caveat=difference_caveat(pa, pb)))
    for diff, adj in zip(out, adjust_pvalues([d.p_value for d in out]), strict=True):
        diff.p_adjusted = float(adj)
    return out


def comparison_plot(data: ReportData, measure: str) -> Any:
    """Forest plot of the first headline of ``measure`` for every model that ran it."""
    per = _ok(data.sections).get(measure, {})
    rows = []
    units: list[str | None] = []
    null = 0.0
    title = label = measure
    for lab, sec in per.items():
        if not sec.headlines:
            continue
        h = sec.headlines[0]
        if not _finite(h.estimate):  # not estimable (e.g. ABC's main effect): no point
            continue
        null = h.null if h.null is not None else null
        title = sec.measure.title
        label = h.label.strip()
        units.append(h.ci_unit)
        rows.append((lab, h.estimate, h.ci_low, h.ci_high))
    if len(rows) < 2:
        return None
    return plots.forest(rows, null=null, xlabel=f"{label} ({plots.ci_label(units)})",
                        title=title, colors=plots.SERIES[:len(rows)])
