"""Before/after comparison of two stored runs of the same measure.

Items of the two runs are joined on an item key; for each group (and for all
items) we report the mean item value before and after, the mean paired change
(after - before) with a percentile bootstrap 95 % CI, and the paired test of
Bartl et al. (2020, sec. 4.3): Shapiro-Wilk on the differences chooses the
paired t-test or the Wilcoxon signed-rank test, with effect size r
(:func:`genderscope.stats.paired_test`). For binary item values (CrowS-Pairs:
"stereotypical sentence preferred") McNemar's exact test on the discordant
pairs is added (a two-sided binomial test of b vs c; McNemar 1947).

Unit of resampling: when the method names a cluster column (BEC-Pro:
``profession_key``, so ``ci_unit`` "professions") and both runs have it, the CI is
a cluster bootstrap over those clusters and the paired test runs over cluster
means (before vs after per profession); otherwise items are the unit
(``ci_unit`` "items").

Multiplicity: the per-group rows of one table are a family ("compare per
<groups>"): each row carries the raw ``p_value`` and ``p_adjusted`` (Holm by
default, ``p_adjust="bh"`` for Benjamini-Hochberg), and McNemar p-values get
``<value>_mcnemar_p_adjusted`` the same way. The "(all)" row is a single test.

Which columns are used is declared by each measure (its ``pairing``) and can be given
explicitly (``key``, ``value``, ``groups``) for any other measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from genderscope.core.declaration import Pairing
from genderscope.errors import GenderscopeError
from genderscope.results import Result
from genderscope.stats import adjust_pvalues, bootstrap_ci, cluster_mean_ci, paired_test


def _pairing(method: str) -> Pairing | None:
    """The pairing declared by the measure that made ``method`` (its name, or a prefix:
    ``abc-da``, ``lpbs/career-family``)."""
    from genderscope.core.registry import declarations

    found = declarations()
    declared = found.get(method) or next(
        (d for name, d in sorted(found.items(), key=lambda kv: -len(kv[0]))
         if method.startswith(name)), None)
    return declared.pairing if declared is not None else None


def _derive(items: pd.DataFrame, method: str) -> pd.DataFrame:
    if method.startswith("crows-pairs") and "margin" not in items and \
            {"score_more", "score_less"} <= set(items.columns):
        items = items.assign(margin=items["score_more"] - items["score_less"])
    return items


def _spec(method: str, key: Sequence[str] | None, value: str | None,
          groups: Sequence[str] | None) -> Pairing:
    base = _pairing(method)
    if base is None and (not key or not value):
        raise GenderscopeError(f"compare: no default columns for method {method!r}; pass "
                               "--key and --value (and --group-by)")
    base = base or Pairing(tuple(key or ()), value or "")
    return Pairing(tuple(key) if key else base.key, value or base.value,
                       tuple(groups) if groups is not None else base.groups,
                       base.extra_values if not value else (), base.cluster,
                       base.cluster_unit)


def mcnemar_exact(before: np.ndarray, after: np.ndarray) -> dict[str, float]:
    """Exact McNemar test for paired binary outcomes (two-sided binomial on discordant pairs)."""
    b = int(np.sum(before & ~after))  # true before, false after
    c = int(np.sum(~before & after))
    p = float(stats.binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    return {"n_true_to_false": b, "n_false_to_true": c, "p_value": p}


def _row(label: dict[str, Any], sub: pd.DataFrame, spec: Pairing, n_resamples: int,
         seed: int, clustered: bool) -> dict[str, Any]:
    a = sub[f"{spec.value}_before"].to_numpy(dtype=float)
    b = sub[f"{spec.value}_after"].to_numpy(dtype=float)
    diff = b - a
    if clustered:
        ci = cluster_mean_ci(diff, sub[spec.cluster], unit=spec.cluster_unit,
                             n_resamples=n_resamples, seed=seed)
        means = sub.groupby(spec.cluster, sort=False)[[f"{spec.value}_before",
                                                       f"{spec.value}_after"]].mean()
        ta, tb = means.iloc[:, 0].to_numpy(), means.iloc[:, 1].to_numpy()
    else:
        ci = bootstrap_ci(diff, n_resamples=n_resamples, seed=seed, unit="items")
        ta, tb = a, b
    rec: dict[str, Any] = {**label, "n": int(len(sub)), "mean_before": float(a.mean()),
                           "mean_after": float(b.mean()), "change": ci.estimate,
                           "change_ci_low": ci.ci_low, "change_ci_high": ci.ci_high,
                           "ci_unit": ci.ci_unit, "n_units": int(ta.size)}
    if ta.size >= 3 and np.any(tb != ta):
        t = paired_test(tb, ta)
        rec.update(test=t.test, p_value=t.p_value, effect_size_r=t.effect_size_r)
    else:
        rec.update(test=f"none (fewer than 3 {ci.ci_unit} or no change)",
                   p_value=float("nan"), effect_size_r=float("nan"))
    for extra in spec.extra_values:
        xb = sub[f"{extra}_before"].to_numpy(dtype=bool)
        xa = sub[f"{extra}_after"].to_numpy(dtype=bool)
        mc = mcnemar_exact(xb, xa)
        rec.update({f"{extra}_before": float(xb.mean()), f"{extra}_after": float(xa.mean()),
                    f"{extra}_mcnemar_p": mc["p_value"],
                    f"{extra}_true_to_false": mc["n_true_to_false"],
                    f"{extra}_false_to_true": mc["n_false_to_true"]})
    return rec


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
                 n_resamples: int = 10_000, seed: int = 0, p_adjust: str = "holm") -> Result:
    """Per-group paired comparison of two runs of one measure (see module docstring)."""
    if before.method != after.method:
        raise GenderscopeError(f"compare: runs are of different measures ({before.method!r} "
                               f"vs {after.method!r})")
    if p_adjust not in ("holm", "bh"):
        raise GenderscopeError(f"compare: p_adjust must be 'holm' or 'bh', got {p_adjust!r}")
    method = before.method
    spec = _spec(method, key, value, groups)
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
    merged = a[list(dict.fromkeys(cols))].merge(
        b[[*spec.key, *vals]], on=list(spec.key), suffixes=("_before", "_after"))
    if merged.empty:
        raise GenderscopeError("compare: the two runs share no items")
    merged["change"] = merged[f"{spec.value}_after"] - merged[f"{spec.value}_before"]
    if merged["change"].isna().all():  # every difference NaN: no number to report
        raise GenderscopeError(f"compare: value {spec.value!r} is NaN (missing) in one run or "
                               "the other for every shared item; nothing to compare")
    recs = [_row({g: "(all)" for g in spec.groups} or {"group": "(all)"}, merged, spec,
                 n_resamples, seed, clustered)]
    if spec.groups:
        for labels, sub in merged.groupby(list(spec.groups), sort=True):
            labels = labels if isinstance(labels, tuple) else (labels,)
            recs.append(_row(dict(zip(spec.groups, labels, strict=True)), sub, spec,
                             n_resamples, seed, clustered))
        _adjust(recs[1:], f"compare per {' x '.join(spec.groups)}", spec, p_adjust)
    table = pd.DataFrame(recs)
    summary: dict[str, Any] = {
        "n_items": int(len(merged)), "n_before": int(len(a)), "n_after": int(len(b)),
        "value": spec.value, "key": list(spec.key), "groups": list(spec.groups),
        "by_group": [{k: v for k, v in r.items()} for r in recs],
    }
    meta = {"before": {"run_id": before.metadata.get("run_id"),
                       "model": before.metadata.get("model")},
            "after": {"run_id": after.metadata.get("run_id"),
                      "model": after.metadata.get("model")},
            "params": {"method": method, "n_resamples": n_resamples, "key": list(spec.key),
                       "p_adjust": p_adjust,
                       "value": spec.value, "groups": list(spec.groups)},
            "seed": seed, "model": {"fingerprint": "compare"}}
    return Result(f"{method}-compare", summary, merged, metadata=meta,
                  tables={"change_by_group": table})


def load_result_dir(folder: str | Path) -> Result:
    """A Result saved with :meth:`Result.save` (``summary.json`` + ``items.csv``)."""
    import json

    p = Path(folder)
    try:
        head = json.loads((p / "summary.json").read_text(encoding="utf-8"))
        items = pd.read_csv(p / "items.csv")
    except (OSError, ValueError) as exc:
        raise GenderscopeError(f"cannot read a saved run from {p}: {exc}") from None
    meta = head.get("metadata", {})
    meta.setdefault("run_id", str(p))
    return Result(head.get("method", "?"), head.get("summary", {}), items, metadata=meta)


def plot_change(result: Result, path: str | Path) -> list[Path]:
    """Mean change (after - before) per group with 95 % CIs; writes .png and .svg."""
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
    out = []
    for suffix in (".png", ".svg"):
        target = Path(path).with_suffix(suffix)
        target.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(target, dpi=150)
        out.append(target)
    plt.close(fig)
    return out
