"""ABC: are anti-reflexive possessives accepted more readily for one gender?

González, Barrett, Hvingelby, Webster & Søgaard (2020), EMNLP, Sec. 4; main effect and
nuance as GenDa Lens (Sloth & Rybner 2023, ``lm_tasks/abc_utils.py::get_output``);
docs/measures/abc.md. Each group holds the reflexive sentence (da *sin*) and both
anti-reflexive variants (*hans*/*hendes*), scored by pseudo-log-likelihood (masked LM;
Salazar et al. 2020, eq. 1) or log-likelihood (causal LM): ``ll`` (nats), ``n_tokens``
and ``ppl = exp(-ll / n_tokens)``.

- relative perplexity of a variant = ppl(anti) - ppl(reflexive);
- **main effect** = log2(median relative ppl female / median relative ppl male), NaN
  when either median is <= 0 (``main_effect["undefined"]`` says why);
  ``main_effect_common_length`` takes every ppl over the reflexive's token count;
- ``log_ppl_ratio`` = median over groups of log(ppl(female anti) / ppl(male anti))
  (always defined; > 0: the violation is accepted more readily for men);
- nuance: medians (IQR) of relative ppl by occupation stereotype x pronoun gender;
  ``delta_ll`` = ll(reflexive) - ll(anti); shares of groups preferring the reflexive.

Groups cross occupations and sentence frames, so every CI is a two-way cluster interval
over occupations × frames (:func:`genderscope.stats.crossed.crossed_ci`). No p-values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.abc import AbcGroup
from genderscope.errors import GenderscopeError
from genderscope.measures._lm import data_meta, describe, log2_ratio, model_kind, sentence_scores
from genderscope.results import Result
from genderscope.stats.crossed import crossed_ci, weighted_median
from genderscope.stats.intervals import DEFAULT_RESAMPLES

VARIANTS = ("reflexive", "male", "female")
CROSSED_UNIT = "occupations × frames"
"""The unit of the medians' and means' CIs: occupations and sentence frames, crossed."""


def run_abc(adapter: Any, groups: Sequence[AbcGroup], *, method: str = "abc",
            n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0, progress: bool = False,
            include_invalid: bool = False, params: dict[str, Any] | None = None) -> Result:
    """Score ABC groups with a masked or causal LM (see module docstring)."""
    model_kind(adapter, method)
    used = [g for g in groups if g.valid or include_invalid]
    if not used:
        raise GenderscopeError(f"{method}: no valid ABC groups to score")
    texts = [s for g in used for s in g.sentences()]
    scores = sentence_scores(adapter, texts, progress=progress)
    rows = []
    for k, g in enumerate(used):
        row: dict[str, Any] = {"group_id": g.group_id, "lang": g.lang, "line": g.line,
                               "occupation": g.occupation, "stereotype": g.stereotype,
                               "frame": frame_of(g)}
        for j, v in enumerate(VARIANTS):
            s = scores[3 * k + j]
            row[f"ll_{v}"] = s.total
            row[f"ntok_{v}"] = s.n_tokens
            row[f"ppl_{v}"] = s.perplexity
        n_ref = row["ntok_reflexive"]
        for v in VARIANTS:  # perplexity with the reflexive's token count as common length
            row[f"ppl_common_{v}"] = float(np.exp(-row[f"ll_{v}"] / n_ref)) if n_ref else np.nan
        for v in ("male", "female"):
            row[f"rel_ppl_{v}"] = row[f"ppl_{v}"] - row["ppl_reflexive"]
            row[f"rel_ppl_common_{v}"] = row[f"ppl_common_{v}"] - row["ppl_common_reflexive"]
            row[f"delta_ll_{v}"] = row["ll_reflexive"] - row[f"ll_{v}"]
        row["reflexive_preferred_ll"] = bool(row["ll_reflexive"] > max(row["ll_male"],
                                                                      row["ll_female"]))
        row["reflexive_preferred_ppl"] = bool(row["ppl_reflexive"] < min(row["ppl_male"],
                                                                        row["ppl_female"]))
        row["valid"] = g.valid
        rows.append(row)
    df = pd.DataFrame(rows)
    summary, tables = summarise(df, n_resamples=n_resamples, seed=seed)
    summary["n_groups"] = len(df)
    summary["n_invalid_skipped"] = sum(1 for g in groups if not g.valid) if not include_invalid \
        else 0
    meta = {"model": describe(adapter),
            "params": {"scoring": "pseudo-log-likelihood" if adapter.kind == "masked"
                       else "log-likelihood", "include_invalid": include_invalid,
                       "n_resamples": n_resamples, **(params or {})},
            "data": data_meta(g.path for g in used), "seed": seed}
    return Result(method=method, summary=summary, items=df, metadata=meta, tables=tables)


def frame_of(g: AbcGroup) -> str:
    """The group's sentence frame: its reflexive sentence with the occupation as {}."""
    return g.reflexive.replace(g.occupation, "{}", 1) if g.occupation else g.reflexive


def _iqr(x: np.ndarray) -> tuple[float, float, float]:
    if x.size == 0:
        return (float("nan"),) * 3
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    return float(med), float(q1), float(q3)


def _weighted_main_effect(rf: np.ndarray, rm: np.ndarray) -> Any:
    """log2(median(rf) / median(rm)) under each row of weights; NaN unless both medians
    are > 0 (a ratio of two negative medians would look like a large effect)."""
    def stat(w: np.ndarray) -> np.ndarray:
        mf, mm = weighted_median(rf, w), weighted_median(rm, w)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((mf > 0) & (mm > 0), log2_ratio(mf, mm), np.nan)
    return stat


def _share(flags: pd.Series) -> Any:
    x = flags.to_numpy(float)
    return lambda w: (w @ x) / w.sum(axis=1)


def undefined_reason(rel_female: np.ndarray, rel_male: np.ndarray) -> str | None:
    """Why the main effect is undefined (a median relative perplexity <= 0), or None."""
    if rel_female.size == 0:
        return "no groups"
    bad = [f"{g} {float(np.median(x)):.3g}" for g, x in (("female", rel_female),
                                                        ("male", rel_male))
           if not np.median(x) > 0]
    if not bad:
        return None
    return ("undefined: median relative perplexity " + ", ".join(bad) + " is <= 0 (the "
            "anti-reflexive reads no worse than the reflexive, so the ratio has no meaning)")


def summarise(df: pd.DataFrame, *, n_resamples: int = DEFAULT_RESAMPLES,
              seed: int = 0) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    rf = df.rel_ppl_female.to_numpy(float)
    rm = df.rel_ppl_male.to_numpy(float)
    occ = df["occupation"].astype(str).to_numpy()
    frames = (df["frame"] if "frame" in df else df["group_id"]).astype(str).to_numpy()

    def ci(stat: Any, rows: np.ndarray = occ, cols: np.ndarray = frames) -> dict[str, Any]:
        return crossed_ci(rows, cols, stat, unit=CROSSED_UNIT, n_resamples=min(n_resamples, 2000),
                          seed=seed).as_dict()

    me = ci(_weighted_main_effect(rf, rm))
    cf = df.rel_ppl_common_female.to_numpy(float)
    cm = df.rel_ppl_common_male.to_numpy(float)
    me_common = ci(_weighted_main_effect(cf, cm))
    ll_diff = (df.ll_male - df.ll_female).to_numpy(float)
    log_ratio = (np.log(df.ppl_female.to_numpy(float))
                 - np.log(df.ppl_male.to_numpy(float)))
    summary: dict[str, Any] = {
        "main_effect": {**me, **({"undefined": why} if (why := undefined_reason(rf, rm))
                                 else {}), "definition":
                        "log2(median rel. perplexity female / male), rel. perplexity = "
                        "ppl(anti-reflexive) - ppl(reflexive) (GenDa Lens)"},
        "main_effect_common_length": {
            **me_common, "definition":
            "as main_effect, with every variant's perplexity computed over the reflexive "
            "sentence's token count, exp(-ll / n_tokens(reflexive)), so that an anti-reflexive "
            "split into more tokens is not favoured (genderscope variant)"},
        "log_ppl_ratio": {
            **ci(lambda w: weighted_median(log_ratio, w)), "definition":
            "median over groups of log(ppl(female anti-reflexive) / ppl(male "
            "anti-reflexive)), natural log; > 0: the female variant is more perplexing "
            "(always defined; genderscope)"},
        "median_rel_ppl_female": dict(zip(("median", "q1", "q3"), _iqr(rf), strict=True)),
        "median_rel_ppl_male": dict(zip(("median", "q1", "q3"), _iqr(rm), strict=True)),
        "mean_ll_male_minus_female": {**ci(lambda w: (w @ ll_diff) / w.sum(axis=1)),
                                      "definition": "mean over groups of ll(male) - "
                                                    "ll(female), nats; > 0: male variant "
                                                    "more likely"},
        **{name: {**ci(_share(flags)), "definition": text}
           for name, flags, text in (
               ("reflexive_preferred_ll", df.reflexive_preferred_ll,
                "share of groups whose reflexive beats both variants by total ll"),
               ("reflexive_preferred_ppl", df.reflexive_preferred_ppl,
                "share of groups whose reflexive beats both variants by perplexity"),
               ("reflexive_over_male_ll", df.delta_ll_male > 0,
                "share of groups whose reflexive beats the male variant by total ll"),
               ("reflexive_over_female_ll", df.delta_ll_female > 0,
                "share of groups whose reflexive beats the female variant by total ll"))},
    }
    rows = []
    stereo = df.stereotype.fillna("unknown")
    for st in sorted(stereo.unique()):
        sub = df[stereo == st]
        for g in ("female", "male"):
            med, q1, q3 = _iqr(sub[f"rel_ppl_{g}"].to_numpy(float))
            rows.append({"stereotype": st, "pronoun": g, "n": len(sub),
                         "median_rel_ppl": med, "q1": q1, "q3": q3,
                         "median_delta_ll": float(np.median(sub[f"delta_ll_{g}"])),
                         "reflexive_preferred_share": float((sub[f"delta_ll_{g}"] > 0).mean())})
        if st != "unknown":
            mask = (stereo == st).to_numpy()
            summary[f"main_effect_{st}_occupations"] = ci(
                _weighted_main_effect(rf[mask], rm[mask]), occ[mask], frames[mask])
    return summary, {"nuance": pd.DataFrame(rows)}
