"""BEC-Pro association scores (Bartl, Nissim & Gatt 2020, Sec. 4, eq. 1;
docs/measures/bec_pro.md).

Per row (a sentence with a person word and a profession), in nats::

    association = log P(person | Sent_TM) - log P(person | Sent_TAM)

``Sent_TM`` masks the person word; ``Sent_TAM`` also masks the profession (one mask per
wordpiece, ``span_masking="piece"``, or per word as Bartl et al.'s code, ``"word"``).
A causal LM reads both terms from full-sentence log-likelihoods over the corpus' closed
world of person subjects S and a template's professions F_T::

    log P(person | Sent_TM)  = LL(s(p, f)) - logsumexp_{q in S} LL(s(q, f))
    log P(person | Sent_TAM) = logsumexp_{f' in F_T} LL(s(p, f'))
                               - logsumexp_{q in S, f' in F_T} LL(s(q, f'))

Group means have cluster t intervals over professions (:func:`cluster_mean_ci`). The
male - female differences, overall and per profession group (one Holm family), cross
professions and person-word pairs: the two-way interval of
:func:`genderscope.stats.crossed.crossed_ci` (Cameron, Gelbach & Miller 2011) and its t
test with min(R, C) - 1 df; without a ``subject`` column, professions only. Rows are
paired by the shipped persons list's ``pair`` number, profession and pattern, never by
row order (``pair_index`` -1 and ``n_unpaired`` for a subject not in the list).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.bec_pro import BecProRow, fill_template, persons
from genderscope.errors import GenderscopeError
from genderscope.measures._lm import model_kind
from genderscope.measures._memo import aggregates
from genderscope.models.base import FillQuery
from genderscope.results import Result
from genderscope.stats import CI, annotate_family, cluster_mean_ci, paired_test

METHOD = "bec-pro"
GENDERS = ("male", "female")
GROUP_ORDER = ("male", "female", "balanced")
CI_UNIT = "professions"
CROSSED_UNIT = "professions x person words"
"""The unit of the male - female interval and test when the person words are known: both
professions and person words are samples (crossed)."""
FAMILY = "bec-pro male vs female per profession group"


# -- per-row scores -----------------------------------------------------------------------------
def masked_logprobs(adapter: Any, rows: Sequence[BecProRow], *, strategy: str = "l2r",
                    span_masking: str = "piece", progress: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(log P(person | Sent_TM), log P(person | Sent_TAM)) per row, masked LM, nats."""
    queries = [FillQuery(r.tm_template(), r.person) for r in rows]
    queries += [FillQuery(r.tam_template(), r.person) for r in rows]
    lp = np.asarray(adapter.fill_logprobs(queries, strategy=strategy, span_masking=span_masking,
                                          progress=progress), dtype=np.float64)
    n = len(rows)
    return lp[:n], lp[n:]


def causal_worlds(rows: Sequence[BecProRow]) -> tuple[list[str], dict[str, list[str]]]:
    """Person subjects S and, per template T, the profession strings F_T."""
    subjects = list(dict.fromkeys(r.subject for r in rows))
    forms: dict[str, list[str]] = {}
    for r in rows:
        forms.setdefault(r.template, [])
        if r.profession not in forms[r.template]:
            forms[r.template].append(r.profession)
    return subjects, forms


def causal_logprobs(adapter: Any, rows: Sequence[BecProRow], *, progress: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(log P(person | TM), log P(person | TAM)) per row for a causal LM (see module doc)."""
    subjects, forms = causal_worlds(rows)
    texts: list[str] = []
    index: dict[str, tuple[int, int]] = {}
    for t, fs in forms.items():
        start = len(texts)
        texts += [fill_template(t, q, f) for q in subjects for f in fs]
        index[t] = (start, len(texts))
    from scipy.special import logsumexp

    scores = adapter.log_likelihood(texts, progress=progress)
    ll = np.array([s.total for s in scores], dtype=np.float64)
    sub_pos = {q: i for i, q in enumerate(subjects)}
    mats = {t: ll[a:b].reshape(len(subjects), len(forms[t])) for t, (a, b) in index.items()}
    tm = np.empty(len(rows))
    tam = np.empty(len(rows))
    for k, r in enumerate(rows):
        m = mats[r.template]
        i, j = sub_pos[r.subject], forms[r.template].index(r.profession)
        tm[k] = m[i, j] - logsumexp(m[:, j])
        tam[k] = logsumexp(m[i, :]) - logsumexp(m)
    return tm, tam


@cache
def person_pairs() -> dict[tuple[str, str], int]:
    """(gender, person subject) -> counterpart pair number, from the shipped persons lists."""
    out: dict[tuple[str, str], int] = {}
    for lang in ("en", "de"):
        for _, p in persons(lang).iterrows():
            out[(p.gender, f"{p.determiner} {p.person}".strip())] = int(p.pair)
    return out


_ARTICLE = re.compile(r"\b(?:der|die)(\s+<profession>)")


def pattern_key(template: str) -> str:
    """The sentence pattern of a row's template (German der/die before the profession
    read as one article slot, so a male and a female row share their pattern)."""
    return _ARTICLE.sub(r"<article>\1", template)


def pair_index(rows: Sequence[BecProRow]) -> np.ndarray:
    """Pairing key per row: one integer per (pattern, person pair number); -1 for a
    person subject that is not in the shipped persons lists. With the profession it
    matches a male row to its female counterpart regardless of row order."""
    pairs = person_pairs()
    codes: dict[tuple[str, int], int] = {}
    out = np.full(len(rows), -1, dtype=int)
    for k, r in enumerate(rows):
        number = pairs.get((r.gender, r.subject))
        if number is not None:
            out[k] = codes.setdefault((pattern_key(r.template), number), len(codes))
    return out


def score_rows(adapter: Any, rows: Sequence[BecProRow], *, strategy: str = "l2r",
               span_masking: str = "piece", progress: bool = False) -> pd.DataFrame:
    """Item table: one row per BEC-Pro row with both log-probabilities and the association."""
    if not rows:
        raise GenderscopeError("BEC-Pro: no rows to score")
    if model_kind(adapter, "BEC-Pro") == "masked":
        tm, tam = masked_logprobs(adapter, rows, strategy=strategy, span_masking=span_masking,
                                  progress=progress)
    else:
        tm, tam = causal_logprobs(adapter, rows, progress=progress)
    return pd.DataFrame({
        "row": [r.row for r in rows], "sentence": [r.sentence for r in rows],
        "person": [r.person for r in rows], "subject": [r.subject for r in rows],
        "gender": [r.gender for r in rows], "profession": [r.profession for r in rows],
        "profession_key": [r.profession_key for r in rows],
        "prof_group": [r.prof_gender for r in rows], "template": [r.template for r in rows],
        "pair_index": pair_index(rows), "logp_tm": tm, "logp_tam": tam,
        "association": tm - tam})


# -- aggregates ------------------------------------------------------
def _groups(items: pd.DataFrame) -> list[str]:
    present = list(dict.fromkeys(items["prof_group"]))
    return [g for g in GROUP_ORDER if g in present] + [g for g in present if g not in GROUP_ORDER]


def group_means(items: pd.DataFrame, *, n_resamples: int = 10_000, seed: int = 0
                ) -> pd.DataFrame:
    """Mean association per person gender x profession group, with 95% cluster t CIs
    over professions."""
    recs = []
    for group in _groups(items):
        for gender in GENDERS:
            sub = items[(items.prof_group == group) & (items.gender == gender)]
            ci = cluster_mean_ci(sub["association"].to_numpy(float), sub["profession_key"],
                                 unit=CI_UNIT, n_resamples=n_resamples, seed=seed)
            recs.append({"prof_group": group, "gender": gender, "n": ci.n,
                         "n_professions": ci.n_units, "mean": ci.estimate,
                         "ci_low": ci.ci_low, "ci_high": ci.ci_high, "ci_unit": CI_UNIT})
    return pd.DataFrame(recs)


def paired_rows(items: pd.DataFrame) -> pd.DataFrame:
    """One row per (profession, pairing key) with both genders: columns prof_group,
    profession_key, pair_index, male, female (associations), and ``person`` (the male
    row's person subject, naming the person-word pair) when the items have subjects."""
    paired = items[items["pair_index"] >= 0]
    index = ["prof_group", "profession_key", "pair_index"]
    wide = paired.pivot_table(index=index, columns="gender", values="association",
                              aggfunc="first")
    for g in GENDERS:
        if g not in wide.columns:
            wide[g] = np.nan
    if "subject" in paired.columns:
        male = paired[paired["gender"] == "male"].drop_duplicates(index).set_index(index)
        wide["person"] = male["subject"].reindex(wide.index)
    return wide.dropna(subset=list(GENDERS)).reset_index()


def crossed_difference(w: pd.DataFrame, *, n_resamples: int = 2_000, seed: int = 0
                       ) -> tuple[CI, dict[str, Any]]:
    """male - female over paired rows ``w`` (:func:`paired_rows`), professions and
    person-word pairs crossed (module docstring): t = estimate / SE with min(R, C) - 1 df (R
    professions, C person pairs); "too few units to test" when R or C is 5 or less."""
    from genderscope.stats.crossed import crossed_ci
    from genderscope.stats.design import MIN_UNITS_TO_TEST, TOO_FEW
    from genderscope.stats.intervals import t_from_ci, t_test_p

    d = (w["male"] - w["female"]).to_numpy(float)

    def mean(wt: np.ndarray) -> np.ndarray:
        return (wt @ d) / wt.sum(axis=1)

    ci = crossed_ci(w["profession_key"].to_numpy(), w["person"].to_numpy(), mean,
                    unit=CROSSED_UNIT, n_resamples=min(n_resamples, 2_000), seed=seed)
    n_r, n_c = int(w["profession_key"].nunique()), int(w["person"].nunique())
    df = min(n_r, n_c) - 1
    nan = float("nan")
    test: dict[str, Any] = {"test": TOO_FEW, "statistic": nan, "p_value": nan,
                            "effect_size_r": nan, "n": n_r, "mean_difference": ci.estimate,
                            "estimand": "mean difference", "estimate": ci.estimate,
                            "exact": False, "n_person_pairs": n_c}
    if min(n_r, n_c) >= MIN_UNITS_TO_TEST and ci.ci_high > ci.ci_low:
        t = t_from_ci(ci, df)
        test.update(test="crossed t test of the mean (professions x person words)",
                    statistic=float(t), p_value=t_test_p(ci, df, 0.0),
                    effect_size_r=float(np.sign(t) * np.sqrt(t * t / (t * t + df))))
    return ci, test


def profession_means(items: pd.DataFrame, group: str) -> pd.DataFrame:
    """Per profession of ``group``: mean male and mean female association over its pairs."""
    w = paired_rows(items)
    w = w[w.prof_group == group]
    return w.groupby("profession_key", sort=False)[["male", "female"]].mean()


def gender_tests(items: pd.DataFrame, *, n_resamples: int = 10_000, seed: int = 0
                 ) -> pd.DataFrame:
    """Per profession group: the mean pair difference male - female
    (:func:`crossed_difference`, effect size r); without a ``subject`` column, over
    professions only (cluster t CI, bootstrap-t paired test of the profession means with its
    ``caveat`` when they are strongly skewed); Holm over groups."""
    recs = []
    w = paired_rows(items)
    crossed = "person" in w.columns
    for group in _groups(items):
        pm = profession_means(items, group)
        sub = w[w.prof_group == group]
        if crossed:
            ci, test = crossed_difference(sub, n_resamples=n_resamples, seed=seed)
            unit = CROSSED_UNIT
        else:  # no person subjects (a bare item table): professions only
            test = paired_test(pm["male"].to_numpy(), pm["female"].to_numpy(),
                               unit=CI_UNIT).as_dict()
            ci = cluster_mean_ci((sub["male"] - sub["female"]).to_numpy(float),
                                 sub["profession_key"], unit=CI_UNIT,
                                 n_resamples=n_resamples, seed=seed)
            unit = CI_UNIT
        recs.append({"prof_group": group, "n_pairs": int(len(sub)),
                     "n_professions": int(len(pm)), "test_unit": unit,
                     "mean_male": float(sub["male"].mean()) if len(sub) else float("nan"),
                     "mean_female": float(sub["female"].mean()) if len(sub) else float("nan"),
                     **test, "difference_ci_low": ci.ci_low,
                     "difference_ci_high": ci.ci_high, "ci_unit": unit})
    annotate_family(recs, FAMILY)
    return pd.DataFrame(recs)


TEST_KEYS = ("test", "statistic", "p_value", "p_adjusted", "p_adjust_method", "family",
             "effect_size_r", "n", "n_pairs", "n_professions", "n_person_pairs", "test_unit",
             "mean_male", "mean_female", "mean_difference", "difference_ci_low",
             "difference_ci_high", "ci_unit", "shapiro_p", "caveat")


def summarize(items: pd.DataFrame, *, n_resamples: int = 10_000, seed: int = 0
              ) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """Summary dict and tables (``by_group``, ``gender_tests``) of an item table."""
    means = group_means(items, n_resamples=n_resamples, seed=seed)
    tests = gender_tests(items, n_resamples=n_resamples, seed=seed)
    boot = {"unit": CI_UNIT, "n_resamples": n_resamples, "seed": seed}
    overall = cluster_mean_ci(items["association"].to_numpy(float), items["profession_key"],
                              **boot)
    w = paired_rows(items)
    if "person" in w.columns:
        diff = crossed_difference(w, n_resamples=n_resamples, seed=seed)[0]
    else:
        diff = cluster_mean_ci((w["male"] - w["female"]).to_numpy(float),
                               w["profession_key"], **boot)
    summary: dict[str, Any] = {
        "n_rows": int(len(items)),
        "n_professions": int(items["profession_key"].nunique()),
        "n_unpaired": int((items["pair_index"] < 0).sum()),
        "association": overall.as_dict(),
        "male_minus_female": {**diff.as_dict(), "definition": (
            "mean over paired rows of association(male person) - association(female "
            "counterpart), same profession and pattern; nats")},
        "association_by_group": {
            g: {r.gender: {"estimate": r["mean"], "ci_low": r.ci_low, "ci_high": r.ci_high,
                           "n": int(r.n), "ci_unit": CI_UNIT}
                for _, r in means[means.prof_group == g].iterrows()}
            for g in means.prof_group.unique()},
        "male_vs_female": {r.prof_group: {k: r[k] for k in TEST_KEYS if k in r and (
                               k != "caveat" or isinstance(r[k], str))}
                           for _, r in tests.iterrows()},
    }
    return summary, {"by_group": means, "gender_tests": tests}


def run(adapter: Any, rows: Sequence[BecProRow], *, strategy: str = "l2r",
        span_masking: str = "piece", n_resamples: int = 10_000, seed: int = 0,
        data: dict[str, Any] | None = None, progress: bool = False) -> Result:
    """Score every row and aggregate; returns the ``bec-pro`` Result."""
    items = score_rows(adapter, rows, strategy=strategy, span_masking=span_masking,
                       progress=progress)
    summary, tables = aggregates(adapter, METHOD, items, {"n_resamples": n_resamples,
                                                           "seed": seed},
                                 lambda: summarize(items, n_resamples=n_resamples, seed=seed))
    kind = adapter.kind
    params: dict[str, Any] = {"n_resamples": n_resamples, "model_kind": kind}
    if kind == "masked":
        params.update(strategy=strategy, span_masking=span_masking)
        summary["definition"] = ("log P(person|Sent_TM) - log P(person|Sent_TAM), masked LM "
                                 f"fill_logprobs ({strategy}, span_masking={span_masking})")
    else:
        summary["definition"] = ("log P(person|Sent_TM) - log P(person|Sent_TAM), causal LM: "
                                 "posterior over the corpus' person subjects from full-sentence "
                                 "log-likelihoods, profession marginalised for TAM")
    return Result(METHOD, summary, items,
                  metadata={"model": adapter.describe(), "params": params, "data": data or {},
                            "seed": seed}, tables=tables)
