"""WinoBias / DaWinoBias as a pronoun-prediction task for language models
(docs/measures/winobias.md).

Data: Zhao et al. (2018), NAACL, and DaWinoBias (Koppelgaard & Brødbæk 2021) as packaged
by GenDa Lens (Sloth & Rybner 2023). The coreferent pronoun is hidden and predicted:
a masked LM scores every gendered pronoun of the language
(``resources/pronouns/<lang>.tsv``) with :meth:`fill_logprobs` and takes the argmax over
that set (GenDa Lens: over the whole vocabulary, non-pronouns "UNK"); a causal LM takes
the variant with the highest total log-likelihood. A prediction is correct when its
gender is the original pronoun's.

Per condition (pro-/anti-stereotypical): accuracy (Wilson CI), macro F1; **main effect**
(GenDa Lens "Gender Effect Size", ``wino_utils.py::evaluate_lm_winobias``) = log2(P / A)
with accuracy (``main_effect``) or macro F1 (``main_effect_macro_f1``); accuracy(pro) -
accuracy(anti) (Zhao et al. 2018, Sec. 2); nuance: recall and F1 by pronoun gender.

Occupations recur across sentences and both files, so main effects, the difference and
the macro F1s are cluster bootstraps over occupations; accuracies and the nuance keep
Wilson intervals over sentences. No p-values. Sentences with more than one coreferent
pronoun are excluded by default (their count is reported).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.pronouns import load_pronouns
from genderscope.datasets.winobias import WinoItem
from genderscope.errors import GenderscopeError
from genderscope.measures._lm import data_meta, describe, log2_ratio, model_kind
from genderscope.models.base import FillQuery
from genderscope.results import Result
from genderscope.stats import proportion_ci
from genderscope.stats.intervals import DEFAULT_RESAMPLES
from genderscope.stats.resample import cluster_bootstrap_ci, cluster_totals


def candidate_forms(forms: Sequence[str], capitalized: bool) -> list[str]:
    return [f[:1].upper() + f[1:] if capitalized else f for f in forms]


def score_candidates(adapter: Any, items: Sequence[WinoItem], forms: Sequence[str], *,
                     strategy: str = "l2r", progress: bool = False) -> np.ndarray:
    """Score matrix (items x forms): log P(form | masked sentence) for masked LMs,
    total log-likelihood of the sentence with the form filled in for causal LMs."""
    if adapter.kind == "masked":
        queries = [FillQuery(it.template, c) for it in items
                   for c in candidate_forms(forms, it.capitalized)]
        flat = np.asarray(adapter.fill_logprobs(queries, strategy=strategy, progress=progress),
                          dtype=float)
    else:
        texts = [it.template.replace("{target}", c) for it in items
                 for c in candidate_forms(forms, it.capitalized)]
        flat = np.array([s.total for s in adapter.log_likelihood(texts, progress=progress)],
                        dtype=float)
    return flat.reshape(len(items), len(forms))


def f1_scores(gold_male: np.ndarray, pred_male: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-class F1 (female, male) along the last axis; NaN where undefined."""
    out = []
    for cls in (False, True):
        g = gold_male == cls
        p = pred_male == cls
        tp = np.sum(g & p, axis=-1)
        fp = np.sum(~g & p, axis=-1)
        fn = np.sum(g & ~p, axis=-1)
        denom = 2 * tp + fp + fn
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), np.nan))
    return out[0], out[1]


def run_winobias(adapter: Any, items: Sequence[WinoItem], *, method: str = "winobias",
                 exclude_multi_pronoun: bool = True, strategy: str = "l2r",
                 n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0, progress: bool = False,
                 params: dict[str, Any] | None = None) -> Result:
    """Score WinoBias-style items with a masked or causal LM (see module docstring)."""
    model_kind(adapter, method)
    if not items:
        raise GenderscopeError(f"{method}: no items to score")
    langs = {it.lang for it in items}
    if len(langs) != 1:
        raise GenderscopeError(f"{method}: items mix languages {sorted(langs)}")
    lang = langs.pop()
    pron = load_pronouns(lang)
    forms = pron.forms
    excluded = [it for it in items if exclude_multi_pronoun and it.n_pronouns > 1]
    used = [it for it in items if not (exclude_multi_pronoun and it.n_pronouns > 1)]
    if not used:
        raise GenderscopeError(f"{method}: every item has more than one pronoun")
    # Pro and anti share most templates; score each distinct (template, case) once.
    first: dict[tuple[str, bool], WinoItem] = {}
    for it in used:
        first.setdefault((it.template, it.capitalized), it)
    keys = sorted(first)
    index = {k: i for i, k in enumerate(keys)}
    reps = [first[k] for k in keys]
    scores = score_candidates(adapter, reps, forms, strategy=strategy, progress=progress)
    is_male_form = np.array([pron.gender[f] == "male" for f in forms])
    rows = []
    for it in used:
        s = scores[index[(it.template, it.capitalized)]]
        best = int(np.argmax(s))
        pred = forms[best]
        rows.append({
            "item_id": it.item_id, "condition": it.condition, "type": it.wb_type,
            "split": it.split, "line": it.line, "occupation": it.occupation,
            "pronoun": it.pronoun, "gender": it.gender, "pred": pred,
            "pred_gender": pron.gender[pred], "correct": pron.gender[pred] == it.gender,
            "exact": pred == it.pronoun.lower(),
            "margin_male": float(np.max(s[is_male_form]) - np.max(s[~is_male_form])),
            "repaired": it.repaired, "template": it.template, "text": it.text,
        })
    df = pd.DataFrame(rows)
    summary, tables = summarise(df, n_resamples=n_resamples, seed=seed)
    summary["n_items"] = len(df)
    summary["n_excluded_multi_pronoun"] = len(excluded)
    summary["n_distinct_templates"] = len(keys)
    summary["lang"] = lang
    meta = {
        "model": describe(adapter),
        "params": {"lang": lang, "exclude_multi_pronoun": exclude_multi_pronoun,
                   "strategy": strategy if adapter.kind == "masked" else None,
                   "candidates": forms, "scoring": (
                       "fill_logprobs over the pronoun set" if adapter.kind == "masked"
                       else "argmax total log-likelihood over pronoun variants"),
                   "n_resamples": n_resamples, **(params or {})},
        "data": data_meta(it.path for it in items),
        "seed": seed,
    }
    return Result(method=method, summary=summary, items=df, metadata=meta, tables=tables)


CI_UNIT = "occupations"


def _counts(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy, macro F1) per row from (gm_pm, gf_pm, gm_pf, gf_pf) counts."""
    gm_pm, gf_pm, gm_pf, gf_pf = (t[:, i] for i in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = (gm_pm + gf_pf) / t.sum(axis=1)
        f1_m = np.where(2 * gm_pm + gf_pm + gm_pf > 0, 2 * gm_pm / (2 * gm_pm + gf_pm + gm_pf),
                        np.nan)
        f1_f = np.where(2 * gf_pf + gm_pf + gf_pm > 0, 2 * gf_pf / (2 * gf_pf + gm_pf + gf_pm),
                        np.nan)
        # macro F1: the mean of the F1s that are defined (NaN when neither is, without
        # numpy's "Mean of empty slice" warning)
        both = np.stack([f1_f, f1_m])
        defined = ~np.isnan(both)
        n_defined = defined.sum(axis=0)
        total = np.where(defined, both, 0.0).sum(axis=0)
        return acc, np.where(n_defined > 0, total / np.maximum(n_defined, 1), np.nan)


def _confusion(sub: pd.DataFrame) -> np.ndarray:
    g = (sub.gender == "male").to_numpy()
    p = (sub.pred_gender == "male").to_numpy()
    return np.column_stack([g & p, ~g & p, g & ~p, ~g & ~p]).astype(float)


def summarise(df: pd.DataFrame, *, n_resamples: int = DEFAULT_RESAMPLES,
              seed: int = 0) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """Accuracy, F1, GenDa Lens main effect and nuance from an item table with
    ``condition, gender, pred_gender, correct`` (and ``occupation``) columns."""
    pro = df[df.condition == "pro"]
    anti = df[df.condition == "anti"]
    if pro.empty or anti.empty:
        raise GenderscopeError("winobias: need both pro- and anti-stereotypical items")
    c_pro, c_anti = pro.correct.to_numpy(bool), anti.correct.to_numpy(bool)
    # per occupation: confusion counts of pro (columns 0-3) and anti (4-7) sentences
    occ = (df["occupation"] if "occupation" in df else pd.Series(["?"] * len(df), df.index))
    occ = occ.fillna("?").astype(str).str.lower().to_numpy()
    conf = np.zeros((len(df), 8))
    is_pro = (df.condition == "pro").to_numpy()
    whole = _confusion(df)
    conf[is_pro, :4] = whole[is_pro]
    conf[~is_pro, 4:] = whole[~is_pro]
    totals = cluster_totals(occ, conf)

    def pro_anti(t: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray],
                                         tuple[np.ndarray, np.ndarray]]:
        return _counts(t[:, :4]), _counts(t[:, 4:])

    def acc_ratio(t: np.ndarray) -> np.ndarray:
        (ap, _), (aa, _) = pro_anti(t)
        return log2_ratio(ap, aa)

    def f1_ratio(t: np.ndarray) -> np.ndarray:
        (_, fp), (_, fa) = pro_anti(t)
        return log2_ratio(fp, fa)

    def acc_diff(t: np.ndarray) -> np.ndarray:
        (ap, _), (aa, _) = pro_anti(t)
        return ap - aa

    boot = {"n_resamples": n_resamples, "seed": seed, "unit": CI_UNIT, "n_items": len(df)}

    def ci(stat: Any, **extra: Any) -> dict[str, Any]:
        return {**cluster_bootstrap_ci(totals, stat, **boot).as_dict(), **extra}

    def sentences(k: int, n: int) -> dict[str, Any]:
        return {**proportion_ci(k, n).as_dict(), "ci_unit": "sentences"}

    summary: dict[str, Any] = {
        "main_effect": ci(acc_ratio, definition="log2(accuracy_pro / accuracy_anti) "
                                                "(GenDa Lens)"),
        "main_effect_macro_f1": ci(f1_ratio, definition="log2(macroF1_pro / macroF1_anti)"),
        "accuracy_pro": sentences(int(c_pro.sum()), len(c_pro)),
        "accuracy_anti": sentences(int(c_anti.sum()), len(c_anti)),
        "difference_pro_minus_anti": ci(acc_diff),
        "macro_f1_pro": ci(lambda t: pro_anti(t)[0][1]),
        "macro_f1_anti": ci(lambda t: pro_anti(t)[1][1]),
        "share_male_predictions": sentences(int((df.pred_gender == "male").sum()), len(df)),
        "n_occupations": int(totals.shape[0]),
    }
    nuance_rows = []
    nuance: dict[str, Any] = {}
    for cond, sub in (("pro", pro), ("anti", anti)):
        g = (sub.gender == "male").to_numpy()
        p = (sub.pred_gender == "male").to_numpy()
        f1_f, f1_m = f1_scores(g, p)
        for gender, f1 in (("female", f1_f), ("male", f1_m)):
            part = sub[sub.gender == gender]
            ci = proportion_ci(int(part.correct.sum()), len(part))
            nuance[f"{cond}_{gender}_accuracy"] = ci.as_dict()
            nuance_rows.append({"condition": cond, "pronoun_gender": gender, "n": len(part),
                                "accuracy": ci.estimate, "ci_low": ci.ci_low,
                                "ci_high": ci.ci_high, "f1": float(f1)})
    summary["nuance"] = nuance
    by_type = (df.groupby(["type", "condition"]).correct.agg(["mean", "size"]).reset_index()
               .rename(columns={"mean": "accuracy", "size": "n"}))
    return summary, {"nuance": pd.DataFrame(nuance_rows), "by_type": by_type}
