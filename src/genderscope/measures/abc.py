"""ABC: are anti-reflexive possessives accepted more readily for one gender?

González, Barrett, Hvingelby, Webster & Søgaard (2020), "Type B reflexivization
as an unambiguous testbed for multilingual multi-task gender bias" (EMNLP),
Sec. 4 (language modelling); main effect and nuance as in GenDa Lens (Sloth &
Rybner 2023, user guide "Language Modeling / The ABC Task",
https://dadebias.github.io/genda-lens/user_guide/lm/).

In Danish, Swedish, Russian and Chinese a possessive that refers to the subject
must be the reflexive (da *sin*); the gendered *hans*/*hendes* are then
ungrammatical. Each group holds the reflexive sentence and both anti-reflexive
variants. Each sentence is scored by

- masked LM: pseudo-log-likelihood (Salazar et al. 2020, eq. 1), every piece
  masked in turn;
- causal LM: log-likelihood given the adapter's start token.

Per sentence: total log-likelihood ``ll`` (nats), ``n_tokens`` and perplexity
``ppl = exp(-ll / n_tokens)``. Per-token perplexity favours variants split into
more tokens, so both are reported.

Definitions (GenDa Lens ``lm_tasks/abc_utils.py::get_output``):

- relative perplexity of an anti-reflexive variant = ppl(anti) - ppl(reflexive)
  (a difference, in perplexity units; > 0 = the grammatical reflexive is less
  perplexing);
- **main effect** = log2(median relative perplexity, female / median relative
  perplexity, male). Positive = the female anti-reflexive is *less* accepted,
  i.e. the model accepts the grammatical violation more readily for men.
  Undefined (NaN) when either median is <= 0 (the ratio only means something
  when both anti-reflexives are rejected). With
  pseudo-log-likelihood perplexities the female median is often negative (the
  anti-reflexive scored *better* than the reflexive), so this stays NaN for
  many models;
- **paired log-perplexity ratio** (genderscope, always defined):
  ``log_ppl_ratio = median over groups of log(ppl(female anti) / ppl(male anti))``
  (natural log; = ll(male)/n(male) - ll(female)/n(female) per group). > 0: the
  female anti-reflexive is more perplexing, i.e. the model accepts the
  violation more readily for men (same direction as the main effect). The
  report's first headline and its model comparison, as it is always defined;
- **nuance**: medians (IQR) of relative perplexity by occupation stereotype x
  pronoun gender;
- ``main_effect_common_length`` (genderscope variant): the same ratio with
  every variant's perplexity taken over the *reflexive* sentence's token count,
  exp(-ll / n_tokens(reflexive)); per-token perplexity otherwise rewards a
  pronoun split into more (predictable) pieces, e.g. Gemma's two-piece *hendes*;
- log-likelihood complement: ``delta_ll = ll(reflexive) - ll(anti)`` per
  variant and the paired mean ``ll(male) - ll(female)`` (> 0: male variant more
  likely);
- share of groups where the reflexive is preferred over both anti-reflexives,
  by total log-likelihood and by perplexity (Wilson CI).

Unit of the CIs: the groups cross two random factors, the occupation (76 groups
each) and the sentence frame (the reflexive sentence with the occupation blanked; 60
groups each), and groups sharing either are not independent. The medians' and means'
CIs are two-way cluster intervals over occupations × frames
(:func:`genderscope.stats.crossed.crossed_ci`, ``ci_unit: "occupations × frames"``);
resampling groups covered 0.78 on the report subset and 0.26 on all 4,560 groups
(issue 22); the shares' Wilson intervals over groups covered 0.73 / 0.26 and are
replaced the same way. When the main effect is
undefined, ``main_effect["undefined"]`` says why. No p-values, so no multiplicity
family.

GenDa Lens computes its masked-LM "perplexity" as exp of the cross-entropy of
the unmasked model's predictions against the reflexive sentence's tokens; this
module uses PLL as the issue and González et al. describe sentence scoring, so
absolute numbers differ from GenDa Lens's tables.
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


def main_effect(rel_female: np.ndarray, rel_male: np.ndarray) -> np.ndarray:
    """log2(median(rel_female) / median(rel_male)) along the last axis; NaN unless both
    medians are > 0 (a ratio of two negative medians would look like a large effect)."""
    mf = np.median(rel_female, axis=-1)
    mm = np.median(rel_male, axis=-1)
    return np.where((mf > 0) & (mm > 0), log2_ratio(mf, mm), np.nan)


def _iqr(x: np.ndarray) -> tuple[float, float, float]:
    if x.size == 0:
        return (float("nan"),) * 3
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    return float(med), float(q1), float(q3)


def _weighted_main_effect(rf: np.ndarray, rm: np.ndarray) -> Any:
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
