"""Before/after comparison of two stored runs of the same measure.

Items of the two runs are joined on an item key (each measure's declared ``pairing``, or
``key``, ``value``, ``groups`` given); for each group and for all items: the mean item
value before and after, and the mean paired change (after - before) with its 95 %
interval and two-sided test of no mean change, chosen by
:func:`genderscope.stats.design.infer` from the comparison's design:

- items independent: the equal-tailed bootstrap-t interval and test (Hall 1988),
  ``ci_unit`` "items";
- items sharing the measure's declared cluster (BEC-Pro: ``profession_key``, ``ci_unit``
  "professions"), when both runs have it: the cluster t interval (CR1, t(K - 1)) and its
  t test over the same item-weighted mean;
- 5 or fewer units: the interval, and no test ("too few units to test", ``p_value`` NaN).

A row's interval ``caveat`` (:mod:`genderscope.stats.diagnostics`) goes to its ``caveat``
column, absent when no row has one. An item whose two values are equal within the
measure's tolerance (its design's; else :data:`genderscope.core.design.SENTENCE_TOLERANCE`
for a sentence-scored measure, else :data:`genderscope.core.design.SCORE_TOLERANCE`) is a
tie: its change is set to 0 before the interval and test (``n_ties``), and when every
change is a tie the row says "no change beyond numerical precision", with no p-value.
Binary item values (CrowS-Pairs) also get McNemar's test on the discordant pairs
(McNemar 1947), as the mid-p test (:func:`mcnemar_test`; Fagerland, Lydersen & Laake
2013), named in ``<value>_mcnemar_test``, and each share (before, after) its 95 % interval
(``<value>_before_ci_low`` ...): Wilson's (Wilson 1927) over items, or the clustered
design's interval of the mean when items share a cluster. The per-group rows are one
family ("compare per <groups>"): ``p_adjusted`` is Holm's (``p_adjust="bh"``:
Benjamini-Hochberg), McNemar's p-values likewise; the "(all)" row is a single test.

Runs of WEAT, RIPA, RND, ECT or MAC that record their word rows are compared with the
crossed design of their ``Pairing.design``
(:func:`genderscope.measures.vector_change.paired_change`, the debiased-vector
evaluation's code path; ``summary["design"]`` names it); without those rows the items
are taken as independent and ``summary["design_note"]`` says this overstates the evidence.
Figures: docs/calibration.md, "Paired tests and compare" and "Numerical precision".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from genderscope.core.declaration import Declaration, Pairing
from genderscope.core.design import SCORE_TOLERANCE, SENTENCE_TOLERANCE, Design, Tolerance
from genderscope.errors import GenderscopeError
from genderscope.measures import vector_change as vc
from genderscope.measures.vector_change import NO_CHANGE, WORDS_TABLE
from genderscope.results import Result
from genderscope.stats import adjust_pvalues
from genderscope.stats.design import infer, ties
from genderscope.stats.intervals import proportion_ci, t_from_ci


def _declared(method: str) -> Declaration | None:
    """The declaration of the measure that made ``method`` (its name, or a prefix:
    ``abc-da``, ``lpbs/career-family``)."""
    from genderscope.core.registry import declarations

    found = declarations()
    return found.get(method) or next(
        (d for name, d in sorted(found.items(), key=lambda kv: -len(kv[0]))
         if method.startswith(name)), None)


def tolerance_of(method: str) -> Tolerance:
    """The numerical precision of ``method``'s values: its declared design's, else
    :data:`~genderscope.core.design.SENTENCE_TOLERANCE` for a sentence-scored measure,
    else :data:`~genderscope.core.design.SCORE_TOLERANCE`."""
    declared = _declared(method)
    design = declared.design if declared is not None else None
    if design is not None:
        return design.tolerance
    return SENTENCE_TOLERANCE if declared is not None and declared.sentence_scored \
        else SCORE_TOLERANCE


def _derive(items: pd.DataFrame, method: str) -> pd.DataFrame:
    if method.startswith("crows-pairs") and "margin" not in items and \
            {"score_more", "score_less"} <= set(items.columns):
        items = items.assign(margin=items["score_more"] - items["score_less"])
    return items


def _spec(method: str, key: Sequence[str] | None, value: str | None,
          groups: Sequence[str] | None) -> Pairing:
    declared = _declared(method)
    base = declared.pairing if declared is not None else None
    if base is None and (not key or not value):
        raise GenderscopeError(f"compare: no default columns for method {method!r}; pass "
                               "--key and --value (and --group-by)")
    base = base or Pairing(tuple(key or ()), value or "")
    given = key is not None or value is not None or groups is not None
    return Pairing(tuple(key) if key else base.key, value or base.value,
                       tuple(groups) if groups is not None else base.groups,
                       base.extra_values if not value else (), base.cluster,
                       base.cluster_unit, None if given else base.design)


MCNEMAR = "mid-p McNemar"
"""The name ``compare`` stores for its test of a binary outcome (``<value>_mcnemar_test``)."""
TOO_FEW_DISCORDANT = "too few discordant pairs to test"
"""Stored instead when no p below 0.05 is possible (4 or fewer discordant pairs)."""


def mcnemar_test(before: np.ndarray, after: np.ndarray) -> dict[str, Any]:
    """McNemar's test of paired binary outcomes (McNemar 1947), its mid-p version
    (Fagerland, Lydersen & Laake 2013, "The McNemar test for binary matched-pairs data:
    mid-p and asymptotic are better than exact conditional", BMC Med. Res. Methodol. 13:91).

    With b pairs true -> false, c false -> true, n = b + c and X ~ Binomial(n, 1/2) under
    no change, m = min(b, c): where b != c, p = 2 P(X <= m) - P(X = m), the exact
    conditional p (twice the tail) less the point probability of the observed count;
    where b = c (exact p 1), p = 1 - P(X = m) / 2 (their supplement, after eq. 2). The
    exact test's size is well below 0.05 at the counts compare sees
    (docs/calibration.md). The smallest mid-p at n discordant pairs is 2^-n, so with
    n <= 4 no p below 0.05 is possible: ``test`` is :data:`TOO_FEW_DISCORDANT` and
    ``p_value`` NaN."""
    b = int(np.sum(before & ~after))  # true before, false after
    c = int(np.sum(~before & after))
    n, m = b + c, min(b, c)
    if 0.5 ** n >= 0.05:
        return {"n_true_to_false": b, "n_false_to_true": c, "test": TOO_FEW_DISCORDANT,
                "p_value": float("nan")}
    point = float(stats.binom.pmf(m, n, 0.5))
    p = 1.0 - point / 2 if b == c else 2.0 * float(stats.binom.cdf(m, n, 0.5)) - point
    return {"n_true_to_false": b, "n_false_to_true": c, "test": MCNEMAR, "p_value": p}


def _row(label: dict[str, Any], sub: pd.DataFrame, spec: Pairing, n_resamples: int,
         seed: int, clustered: bool, tolerance: Tolerance) -> dict[str, Any]:
    a = sub[f"{spec.value}_before"].to_numpy(dtype=float)
    b = sub[f"{spec.value}_after"].to_numpy(dtype=float)
    tied = ties(a, b, tolerance)
    diff = np.where(tied, 0.0, b - a)
    design = Design("mean", unit="items", tolerance=tolerance)
    if clustered:
        design = design.clustered(spec.cluster_unit)
    clusters = sub[spec.cluster].to_numpy() if clustered else None
    res = infer(design, diff, clusters, null=0.0, n_resamples=n_resamples, seed=seed)
    ci = res.ci
    n_units = int(ci.n_units if ci.n_units is not None else ci.n)
    rec: dict[str, Any] = {**label, "n": int(len(sub)), "mean_before": float(a.mean()),
                           "mean_after": float(b.mean()), "change": ci.estimate,
                           "change_ci_low": ci.ci_low, "change_ci_high": ci.ci_high,
                           "ci_method": ci.method, "ci_unit": ci.ci_unit,
                           "n_units": n_units, "n_ties": int(tied.sum())}
    if ci.caveat:
        rec["caveat"] = ci.caveat
    if np.all(tied | np.isnan(diff)):
        rec.update(test=NO_CHANGE, p_value=float("nan"), effect_size_r=float("nan"))
    else:
        rec.update(test=res.test_name, p_value=res.p_value,
                   effect_size_r=_effect_r(diff, ci, clustered))
    for extra in spec.extra_values:
        xb = sub[f"{extra}_before"].to_numpy(dtype=bool)
        xa = sub[f"{extra}_after"].to_numpy(dtype=bool)
        mc = mcnemar_test(xb, xa)
        rec.update({f"{extra}_before": float(xb.mean()), f"{extra}_after": float(xa.mean()),
                    f"{extra}_mcnemar_test": mc["test"], f"{extra}_mcnemar_p": mc["p_value"],
                    f"{extra}_true_to_false": mc["n_true_to_false"],
                    f"{extra}_false_to_true": mc["n_false_to_true"]})
        for when, x in (("before", xb), ("after", xa)):
            share = (infer(design, x.astype(float), clusters, n_resamples=n_resamples,
                           seed=seed).ci if clustered else proportion_ci(int(x.sum()), x.size))
            rec.update({f"{extra}_{when}_ci_low": share.ci_low,
                        f"{extra}_{when}_ci_high": share.ci_high})
    return rec


def _effect_r(diff: np.ndarray, ci: Any, clustered: bool) -> float:
    """r = t / sqrt(t^2 + df) (Rosenthal 1991), signed like t: t the one-sample t of the
    changes (df n - 1), or the cluster t of the interval (df K - 1); descriptive."""
    nan = float("nan")
    if clustered:
        k = int(ci.n_units or 0)
        if k < 2 or not ci.ci_high > ci.ci_low:
            return nan
        t, df = t_from_ci(ci, k - 1), k - 1
    else:
        d = diff[~np.isnan(diff)]
        sd = float(d.std(ddof=1)) if d.size > 1 else 0.0
        if not sd > 0:
            return nan
        t, df = float(d.mean()) / (sd / np.sqrt(d.size)), d.size - 1
    return float(np.sign(t) * np.sqrt(t * t / (t * t + df)))


def _adjust(recs: list[dict[str, Any]], family: str, spec: Pairing, method: str) -> None:
    """Holm (or BH) over the per-group rows: p_value and each McNemar p."""
    for col, out in [("p_value", "p_adjusted"),
                     *[(f"{e}_mcnemar_p", f"{e}_mcnemar_p_adjusted") for e in spec.extra_values]]:
        adj = adjust_pvalues([r.get(col, np.nan) for r in recs], method)
        for r, v in zip(recs, adj, strict=True):
            r[out] = float(v)
    for r in recs:
        r.update(p_adjust_method=method, family=family)


def compare_runs(before: Result, after: Result, *, key: Sequence[str] | None = None,
                 value: str | None = None, groups: Sequence[str] | None = None,
                 n_resamples: int = 10_000, seed: int = 0, p_adjust: str = "holm",
                 tolerance: Tolerance | None = None, interval: bool = True) -> Result:
    """Per-group paired comparison of two runs of one measure (see module docstring).

    ``n_resamples``: the bootstrap-t resamples; ``tolerance``: the values' numerical
    precision (None: the measure's, :func:`tolerance_of`); ``interval=False``: for runs
    compared with the crossed design, the estimate and test only (the interval's bounds
    NaN; a simulation of the test's size, as ``paired_change`` takes it)."""
    if before.method != after.method:
        raise GenderscopeError(f"compare: runs are of different measures ({before.method!r} "
                               f"vs {after.method!r})")
    if p_adjust not in ("holm", "bh"):
        raise GenderscopeError(f"compare: p_adjust must be 'holm' or 'bh', got {p_adjust!r}")
    method = before.method
    spec = _spec(method, key, value, groups)
    tol = tolerance if tolerance is not None else tolerance_of(method)
    design = spec.design  # the change's crossed design, as the measure declares it
    crossed = design is not None and bool(design.crossed)
    if design is not None and crossed and all(WORDS_TABLE in r.tables
                                              for r in (before, after)):
        return _crossed(before, after, spec, design, tol, p_adjust, n_resamples, seed,
                        interval)
    a, b = _derive(before.items, method), _derive(after.items, method)
    clustered = bool(spec.cluster) and all(spec.cluster in r.columns for r in (a, b))
    cols = [*spec.key, *spec.groups, spec.value, *spec.extra_values,
            *([spec.cluster] if clustered else [])]
    for name, items in (("before", a), ("after", b)):
        missing = [c for c in dict.fromkeys(cols) if c not in items.columns]
        if missing:
            raise GenderscopeError(f"compare: the {name} run's items lack column(s) "
                                   f"{', '.join(missing)}")
        for col in dict.fromkeys([spec.value, *spec.extra_values]):
            if not (pd.api.types.is_numeric_dtype(items[col])
                    or pd.api.types.is_bool_dtype(items[col])):
                raise GenderscopeError(f"compare: value column {col!r} of the {name} run is "
                                       f"not numeric (dtype {items[col].dtype}); choose a "
                                       "numeric item column with --value")
        if items.duplicated(list(spec.key)).any():
            raise GenderscopeError(f"compare: key {'+'.join(spec.key)} is not unique in the "
                                   f"{name} run; pass --key")
    vals = [spec.value, *spec.extra_values]
    a, b = (r.astype({c: float for c in vals if pd.api.types.is_bool_dtype(r[c])})
            for r in (a, b))  # True/False items (correct, flipped) compare as 1/0
    merged = a[list(dict.fromkeys(cols))].merge(
        b[[*spec.key, *vals]], on=list(spec.key), suffixes=("_before", "_after"))
    if merged.empty:
        raise GenderscopeError("compare: the two runs share no items")
    merged["change"] = merged[f"{spec.value}_after"] - merged[f"{spec.value}_before"]
    if merged["change"].isna().all():  # every difference NaN: no number to report
        raise GenderscopeError(f"compare: value {spec.value!r} is NaN (missing) in one run or "
                               "the other for every shared item; nothing to compare")
    recs = [_row({g: "(all)" for g in spec.groups} or {"group": "(all)"}, merged, spec,
                 n_resamples, seed, clustered, tol)]
    if spec.groups:
        for labels, sub in merged.groupby(list(spec.groups), sort=True):
            labels = labels if isinstance(labels, tuple) else (labels,)
            recs.append(_row(dict(zip(spec.groups, labels, strict=True)), sub, spec,
                             n_resamples, seed, clustered, tol))
        _adjust(recs[1:], f"compare per {' x '.join(spec.groups)}", spec, p_adjust)
    table = pd.DataFrame(recs)
    summary: dict[str, Any] = {
        "n_items": int(len(merged)), "n_before": int(len(a)), "n_after": int(len(b)),
        "value": spec.value, "key": list(spec.key), "groups": list(spec.groups),
        "tolerance": tol.describe(), "n_ties": int(recs[0]["n_ties"]),
        "by_group": [dict(r) for r in recs],
    }
    if crossed:
        summary["design_note"] = (
            f"the declared design of the change ({spec.design.describe()}) needs what the "
            "runs do not record (their word vectors): the items, which share the words of "
            "the other sets, are treated as independent, which overstates the evidence "
            "(runs of `genderscope run` and `genderscope debias` record them; runs stored "
            "before they did, or of a query or phrases=mean, do not)")
    return _compared(before, after, summary, merged, table, n_resamples=n_resamples,
                     key=list(spec.key), p_adjust=p_adjust, tolerance=[tol.atol, tol.rtol],
                     value=spec.value, groups=list(spec.groups), seed=seed)


def _crossed(before: Result, after: Result, spec: Pairing, design: Design, tol: Tolerance,
             p_adjust: str, n_resamples: int, seed: int, interval: bool = True) -> Result:
    """Two runs that record their word vectors, compared with the crossed ``design`` of
    their change that the measure declares (``spec.design``; module docstring)."""
    method = before.method
    tb, ta = (r.tables[WORDS_TABLE] for r in (before, after))
    sb, sa = vc.sets_from_table(tb), vc.sets_from_table(ta)
    if list(sb) != list(sa) or any(sb[k].shape != sa[k].shape for k in sb) or \
            tb["text"].astype(str).tolist() != ta["text"].astype(str).tolist():
        raise GenderscopeError(f"compare: the two {method} runs hold different words; "
                               "compare runs of one test on the same vocabulary")
    rows = vc.paired_change(method, sb, sa, design, tolerance=tol, p_adjust=p_adjust,
                            interval=interval)
    table = pd.DataFrame(rows)
    merged = _derive(before.items, method).merge(
        _derive(after.items, method)[[*spec.key, spec.value]], on=list(spec.key),
        suffixes=("_before", "_after"))
    merged["change"] = merged[f"{spec.value}_after"] - merged[f"{spec.value}_before"]
    summary: dict[str, Any] = {
        "n_items": int(rows[0]["n"]), "n_before": int(len(before.items)),
        "n_after": int(len(after.items)), "value": spec.value, "key": list(spec.key),
        "groups": ["set"], "tolerance": tol.describe(), "n_ties": int(rows[0]["n_ties"]),
        "design": design.describe(), "by_group": rows}
    return _compared(before, after, summary, merged, table, n_resamples=n_resamples,
                     key=list(spec.key), p_adjust=p_adjust, tolerance=[tol.atol, tol.rtol],
                     value=spec.value, groups=["set"], design=design.describe(), seed=seed)


def _compared(before: Result, after: Result, summary: dict[str, Any], merged: pd.DataFrame,
              table: pd.DataFrame, *, seed: int, **params: Any) -> Result:
    """The comparison's Result: the two runs named in its metadata with the parameters."""
    method = before.method
    meta = {"before": {"run_id": before.metadata.get("run_id"),
                       "model": before.metadata.get("model")},
            "after": {"run_id": after.metadata.get("run_id"),
                      "model": after.metadata.get("model")},
            "params": {"method": method, **params},
            "seed": seed, "model": {"fingerprint": "compare"}}
    return Result(f"{method}-compare", summary, merged, metadata=meta,
                  tables={"change_by_group": table})


def load_result_dir(folder: str | Path) -> Result:
    """A Result saved with :meth:`Result.save` (``summary.json`` + ``items.csv``)."""
    import json

    p = Path(folder)
    words = p / f"{WORDS_TABLE}.csv"  # the word rows of a crossed comparison, if any
    try:
        head = json.loads((p / "summary.json").read_text(encoding="utf-8"))
        items = pd.read_csv(p / "items.csv")
        tables = ({WORDS_TABLE: pd.read_csv(words, keep_default_na=False)}
                  if words.is_file() else {})
    except (OSError, ValueError) as exc:
        raise GenderscopeError(f"cannot read a saved run from {p}: {exc}") from None
    meta = head.get("metadata", {})
    meta.setdefault("run_id", str(p))
    return Result(head.get("method", "?"), head.get("summary", {}), items, metadata=meta,
                  tables=tables)


def plot_change(result: Result, path: str | Path) -> list[Path]:
    """:func:`change_figure` written to ``path`` as .png and .svg."""
    import matplotlib.pyplot as plt

    fig = change_figure(result)
    out = []
    for suffix in (".png", ".svg"):
        target = Path(path).with_suffix(suffix)
        target.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(target, dpi=150)
        out.append(target)
    plt.close(fig)
    return out


def change_figure(result: Result) -> Any:
    """A comparison's figure (a matplotlib Figure): the mean change (after - before) per
    group with its 95 % CI, as ``genderscope compare`` writes it (``change.png``) and
    ``gs.plot`` returns it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result.tables["change_by_group"]
    groups = result.summary.get("groups") or ["group"]
    labels = [" / ".join(str(r[g]) for g in groups) for _, r in t.iterrows()]
    y = np.arange(len(t))[::-1]
    fig, ax = plt.subplots(figsize=(6.0, 0.5 + 0.35 * len(t)))
    err = np.vstack([t["change"] - t["change_ci_low"], t["change_ci_high"] - t["change"]])
    ax.errorbar(t["change"], y, xerr=err, fmt="o", color="#0072B2", ecolor="#56B4E9",
                capsize=3)
    ax.axvline(0, color="#999999", lw=0.8)
    ax.set_yticks(y, labels)
    ax.set_xlabel(f"change in {result.summary.get('value', 'value')} (after - before), 95% CI")
    ax.set_title(result.method)
    fig.tight_layout()
    return fig
