"""Measures of the gender-analogy attack (:mod:`genderscope.attack`; Alzantot et al. 2018,
"Generating Natural Language Adversarial Examples", EMNLP, Sec. 3-4).

Per direction (``man->woman``: substitutions ``w - man + woman``, and back), over the
texts attackable in it (``n_not_attackable`` counted, never failures): success rate
(Wilson CI); words changed per success, classifier queries and seconds per attack
(means, percentile bootstrap CIs); asymmetry = success rate(man->woman) -
success rate(woman->man), with a paired bootstrap CI over texts (the GSoC 2019 attack
reported more label changes man->woman).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from genderscope.attack.attacker import FAILURE, NOT_ATTACKABLE, SUCCESS, AttackOutcome
from genderscope.errors import DataError
from genderscope.results import Result
from genderscope.stats import bootstrap_ci, proportion_ci


def outcomes_table(outcomes: Sequence[AttackOutcome], labels: Sequence[str] | None = None
                   ) -> pd.DataFrame:
    """One row per (text, direction)."""
    def name(i: int) -> str:
        return labels[i] if labels is not None and i < len(labels) else str(i)

    return pd.DataFrame([{
        "direction": o.direction, "status": o.status, "orig_label": name(o.orig_label),
        "adv_label": name(o.adv_label), "p_orig": o.p_orig, "p_adv": o.p_adv,
        "words_changed": o.words_changed, "n_words": o.n_words,
        "n_substitutable": o.n_substitutable, "n_positions": o.n_positions,
        "n_candidates": o.n_candidates, "queries": o.queries, "requests": o.requests,
        "evaluated": o.evaluated, "seconds": o.seconds, "generations": o.generations,
        "stopped": o.stopped,
        "changes": "; ".join(f"{a}->{b}" for a, b in o.changes),
        "text": o.original, "adversarial": o.adversarial,
    } for o in outcomes])


def paired_rate_difference(success_a: np.ndarray, valid_a: np.ndarray, success_b: np.ndarray,
                           valid_b: np.ndarray, *, n_resamples: int = 10_000, seed: int = 0,
                           confidence: float = 0.95) -> dict[str, Any]:
    """rate_a - rate_b (rate = successes / valid) with a paired bootstrap CI over texts."""
    sa, va = np.asarray(success_a, float), np.asarray(valid_a, float)
    sb, vb = np.asarray(success_b, float), np.asarray(valid_b, float)
    n = sa.size
    nan = float("nan")
    if n == 0 or va.sum() == 0 or vb.sum() == 0:
        return {"estimate": nan, "ci_low": nan, "ci_high": nan, "n": int(n),
                "method": "paired percentile bootstrap"}
    est = sa.sum() / va.sum() - sb.sum() / vb.sum()
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (n_resamples, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        d = sa[idx].sum(1) / va[idx].sum(1) - sb[idx].sum(1) / vb[idx].sum(1)
    d = d[np.isfinite(d)]
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(d, [alpha, 1 - alpha]) if d.size else (nan, nan)
    return {"estimate": float(est), "ci_low": float(lo), "ci_high": float(hi),
            "confidence": confidence, "n": int(n), "method": "paired percentile bootstrap"}


def summarize_attack(outcomes: Sequence[AttackOutcome], *, n_texts: int,
                     labels: Sequence[str] | None = None, metadata: dict[str, Any] | None = None,
                     n_examples: int = 10, n_resamples: int = 10_000, seed: int = 0) -> Result:
    """Summary, item table and examples of an attack run (``n_texts`` texts x directions)."""
    if n_texts == 0 or not outcomes:
        raise DataError("attack: no texts were attacked (empty data)")
    directions = list(dict.fromkeys(o.direction for o in outcomes))
    if len(outcomes) != n_texts * len(directions):
        raise DataError(f"attack: {len(outcomes)} outcomes for {n_texts} texts x "
                        f"{len(directions)} directions")
    items = outcomes_table(outcomes, labels)
    items.insert(0, "text_id", np.repeat(np.arange(n_texts), len(directions)))
    summary: dict[str, Any] = {"n_texts": n_texts, "directions": directions}
    per: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for d in directions:
        g = items[items["direction"] == d]
        succ = (g["status"] == SUCCESS).to_numpy()
        fail = (g["status"] == FAILURE).to_numpy()
        valid = succ | fail
        per[d] = (succ, valid)
        run = g[valid]
        summary[d] = {
            "n_attacked": int(valid.sum()),
            "n_success": int(succ.sum()),
            "n_failure": int(fail.sum()),
            "n_not_attackable": int((g["status"] == NOT_ATTACKABLE).sum()),
            "n_other": int((~valid & (g["status"] != NOT_ATTACKABLE)).sum()),
            "success_rate": proportion_ci(int(succ.sum()), int(valid.sum())).as_dict(),
            "words_changed_per_success": bootstrap_ci(
                g.loc[succ, "words_changed"].to_numpy(float), n_resamples=n_resamples,
                seed=seed).as_dict(),
            "queries_per_attack": bootstrap_ci(run["queries"].to_numpy(float),
                                               n_resamples=n_resamples, seed=seed).as_dict(),
            "seconds_per_attack": bootstrap_ci(run["seconds"].to_numpy(float),
                                               n_resamples=n_resamples, seed=seed).as_dict(),
        }
    if "man->woman" in per and "woman->man" in per:
        (sa, va), (sb, vb) = per["man->woman"], per["woman->man"]
        summary["asymmetry_success_rate"] = paired_rate_difference(
            sa, va, sb, vb, n_resamples=n_resamples, seed=seed)
        summary["asymmetry_success_rate"]["definition"] = \
            "success rate man->woman minus success rate woman->man"
    ok = items[items["status"] == SUCCESS]
    ok = ok.assign(drop=ok["p_orig"] - ok["p_adv"])
    examples = ok.sort_values(["words_changed", "drop", "text_id"],
                              ascending=[True, False, True]).head(n_examples)
    examples = examples[["text_id", "direction", "text", "adversarial", "changes",
                         "orig_label", "adv_label", "p_orig", "p_adv"]]
    meta = dict(metadata or {})
    meta.setdefault("params", {})
    meta["params"].update({"n_resamples": n_resamples, "n_examples": n_examples})
    meta.setdefault("seed", seed)
    return Result("attack", summary, items, meta, {"examples": examples})
