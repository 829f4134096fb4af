"""BEC-Pro association scores (Bartl, Nissim & Gatt 2020, Sec. 4, eq. 1).

Per BEC-Pro row (a sentence with a person word and a profession)::

    association = log P(person | Sent_TM) - log P(person | Sent_TAM)

in nats (natural log). ``Sent_TM`` masks the person word (the profession is
visible); ``Sent_TAM`` also masks the profession, so the second term is the
person word's prior in that sentence frame. A positive score means the
profession makes the person word more likely than the frame alone.

**Masked LMs** answer both terms with ``fill_logprobs``: the person word fills
the ``{target}`` slot (multi-piece person words scored by ``strategy``, "l2r"
by default) and in Sent_TAM the profession is a ``[[hidden]]`` span, masked
with one ``[MASK]`` per wordpiece (``span_masking="piece"``, default) or one per
whitespace word as in Bartl et al.'s code and the published ``Sent_TAM``
column (``span_masking="word"``).

**Causal LMs** cannot see a mask, so P(person | context) is defined from
full-sentence log-likelihoods LL(s) over a closed world (documented in
docs/measures/bec_pro.md). Let T be the row's template, S the person subjects
of the corpus (e.g. "He", "My son"; 18 in BEC-Pro) and F_T the profession
strings that occur with T. With s(q, f) the sentence of T with subject q and
profession f::

    log P(person | Sent_TM)  = LL(s(p, f)) - logsumexp_{q in S} LL(s(q, f))
    log P(person | Sent_TAM) = logsumexp_{f' in F_T} LL(s(p, f'))
                               - logsumexp_{q in S, f' in F_T} LL(s(q, f'))

i.e. the model's posterior of the person among the corpus' person subjects,
given the profession (TM), or with the profession marginalised over the
corpus' professions (TAM). Their difference is a pointwise mutual information
of person and profession in that frame, the quantity eq. 1 estimates.

Aggregates: mean association by person gender x profession group with
percentile-bootstrap 95% CIs; per profession group, male vs female person rows
compared with :func:`genderscope.stats.paired_test` (Shapiro-Wilk chooses the
paired t-test or the Wilcoxon signed-rank test, effect size r), as Bartl et al.
do (Sec. 4). Rows are paired as the corpus pairs them: same profession
(``Profession_EN`` for German), same pattern, counterpart person words (the
j-th male row of a profession with its j-th female row). :func:`compare`
compares two runs (before/after fine-tuning, two models) row by row.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from genderscope.datasets.bec_pro import BecProRow, fill_template
from genderscope.errors import GenderscopeError
from genderscope.models.base import FillQuery
from genderscope.results import Result
from genderscope.stats import bootstrap_ci, paired_test

METHOD = "bec-pro"
GENDERS = ("male", "female")
GROUP_ORDER = ("male", "female", "balanced")
ITEM_KEY = ("sentence", "person")


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


def pair_index(rows: Sequence[BecProRow]) -> np.ndarray:
    """j for the j-th row of its (profession, gender) in corpus order (pairing key)."""
    seen: dict[tuple[str, str], int] = {}
    out = np.empty(len(rows), dtype=int)
    for k, r in enumerate(rows):
        key = (r.profession_key, r.gender)
        out[k] = seen.get(key, 0)
        seen[key] = out[k] + 1
    return out


def score_rows(adapter: Any, rows: Sequence[BecProRow], *, strategy: str = "l2r",
               span_masking: str = "piece", progress: bool = False) -> pd.DataFrame:
    """Item table: one row per BEC-Pro row with both log-probabilities and the association."""
    if not rows:
        raise GenderscopeError("BEC-Pro: no rows to score")
    kind = getattr(adapter, "kind", None)
    if kind == "masked":
        tm, tam = masked_logprobs(adapter, rows, strategy=strategy, span_masking=span_masking,
                                  progress=progress)
    elif kind == "causal":
        tm, tam = causal_logprobs(adapter, rows, progress=progress)
    else:
        raise GenderscopeError(f"BEC-Pro needs a masked or causal language model, got {kind!r}")
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
    """Mean association per person gender x profession group, with bootstrap 95% CIs."""
    recs = []
    for group in _groups(items):
        for gender in GENDERS:
            vals = items.loc[(items.prof_group == group) & (items.gender == gender), "association"]
            ci = bootstrap_ci(vals.to_numpy(), n_resamples=n_resamples, seed=seed)
            recs.append({"prof_group": group, "gender": gender, "n": ci.n, "mean": ci.estimate,
                         "ci_low": ci.ci_low, "ci_high": ci.ci_high})
    return pd.DataFrame(recs)


def paired_by_gender(items: pd.DataFrame, group: str) -> tuple[np.ndarray, np.ndarray]:
    """Male and female associations of one profession group, aligned pair by pair."""
    sub = items[items.prof_group == group]
    key = ["profession_key", "pair_index"]
    m = sub[sub.gender == "male"].set_index(key)["association"]
    f = sub[sub.gender == "female"].set_index(key)["association"]
    both = m.index.intersection(f.index)
    return m.loc[both].to_numpy(), f.loc[both].to_numpy()


def gender_tests(items: pd.DataFrame) -> pd.DataFrame:
    """Per profession group: male vs female person words, paired test and effect size r."""
    recs = []
    for group in _groups(items):
        m, f = paired_by_gender(items, group)
        t = paired_test(m, f)
        recs.append({"prof_group": group, "n_pairs": t.n, "mean_male": float(np.mean(m))
                     if m.size else float("nan"), "mean_female": float(np.mean(f))
                     if f.size else float("nan"), **t.as_dict()})
    return pd.DataFrame(recs)


def summarize(items: pd.DataFrame, *, n_resamples: int = 10_000, seed: int = 0
              ) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """Summary dict and tables (``by_group``, ``gender_tests``) of an item table."""
    means = group_means(items, n_resamples=n_resamples, seed=seed)
    tests = gender_tests(items)
    overall = bootstrap_ci(items["association"].to_numpy(), n_resamples=n_resamples, seed=seed)
    summary: dict[str, Any] = {
        "n_rows": int(len(items)),
        "association": overall.as_dict(),
        "association_by_group": {
            g: {r.gender: {"estimate": r["mean"], "ci_low": r.ci_low, "ci_high": r.ci_high,
                           "n": int(r.n)} for _, r in means[means.prof_group == g].iterrows()}
            for g in means.prof_group.unique()},
        "male_vs_female": {r.prof_group: {k: r[k] for k in (
            "test", "statistic", "p_value", "effect_size_r", "n_pairs", "mean_male",
            "mean_female", "mean_difference", "shapiro_p")} for _, r in tests.iterrows()},
    }
    return summary, {"by_group": means, "gender_tests": tests}


def run(adapter: Any, rows: Sequence[BecProRow], *, strategy: str = "l2r",
        span_masking: str = "piece", n_resamples: int = 10_000, seed: int = 0,
        data: dict[str, Any] | None = None, progress: bool = False) -> Result:
    """Score every row and aggregate; returns the ``bec-pro`` Result."""
    items = score_rows(adapter, rows, strategy=strategy, span_masking=span_masking,
                       progress=progress)
    summary, tables = summarize(items, n_resamples=n_resamples, seed=seed)
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


# -- before / after ------------------------------------------------------
def compare(before: Result, after: Result, *, n_resamples: int = 10_000, seed: int = 0
            ) -> Result:
    """Row-by-row comparison of two BEC-Pro runs (e.g. before and after fine-tuning).

    Rows are matched on (sentence, person). Per person gender x profession group:
    mean association before and after, the mean change (after - before) with a
    bootstrap CI, and a paired test of after vs before (Shapiro-Wilk chooses
    paired t or Wilcoxon; effect size r), as Bartl et al. compare BERT before
    and after fine-tuning (Sec. 5).
    """
    for name, res in (("before", before), ("after", after)):
        if res.method != METHOD:
            raise GenderscopeError(f"compare: the {name} run is {res.method!r}, not {METHOD!r}")
    cols = [*ITEM_KEY, "gender", "prof_group", "association"]
    merged = before.items[cols].merge(after.items[[*ITEM_KEY, "association"]], on=list(ITEM_KEY),
                                      suffixes=("_before", "_after"), validate="one_to_one")
    if merged.empty:
        raise GenderscopeError("compare: the two runs share no BEC-Pro rows")
    merged["change"] = merged["association_after"] - merged["association_before"]
    recs = []
    summary: dict[str, Any] = {"n_rows": int(len(merged)), "by_group": {}}
    for group in _groups(merged):
        for gender in GENDERS:
            sub = merged[(merged.prof_group == group) & (merged.gender == gender)]
            if sub.empty:
                continue
            ci = bootstrap_ci(sub["change"].to_numpy(), n_resamples=n_resamples, seed=seed)
            t = paired_test(sub["association_after"].to_numpy(),
                            sub["association_before"].to_numpy())
            rec = {"prof_group": group, "gender": gender, "n": int(len(sub)),
                   "mean_before": float(sub["association_before"].mean()),
                   "mean_after": float(sub["association_after"].mean()),
                   "change": ci.estimate, "change_ci_low": ci.ci_low,
                   "change_ci_high": ci.ci_high, "test": t.test, "p_value": t.p_value,
                   "effect_size_r": t.effect_size_r}
            recs.append(rec)
            summary["by_group"].setdefault(group, {})[gender] = {
                "mean_before": rec["mean_before"], "mean_after": rec["mean_after"],
                "change": ci.as_dict(), "test": t.as_dict()}
    overall = bootstrap_ci(merged["change"].to_numpy(), n_resamples=n_resamples, seed=seed)
    summary["change"] = overall.as_dict()
    meta = {"before": {"model": before.metadata.get("model"),
                       "run_id": before.metadata.get("run_id")},
            "after": {"model": after.metadata.get("model"),
                      "run_id": after.metadata.get("run_id")},
            "params": {"n_resamples": n_resamples}, "seed": seed}
    return Result(f"{METHOD}-compare", summary, merged, metadata=meta,
                  tables={"change_by_group": pd.DataFrame(recs)})


# -- plot ------------------------------------------------------
COLOURS = {"male": "#0072B2", "female": "#E69F00"}  # Okabe-Ito blue / orange
MARKERS = {"male": "o", "female": "s"}


def plot(result: Result, path: str | Path, *, title: str | None = None) -> list[Path]:
    """Mean association (95% CI) by profession group and person gender; writes
    ``path`` with suffix .png and .svg and returns both paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = result.tables.get("by_group")
    if table is None or table.empty:
        table = group_means(result.items, n_resamples=2000)
    groups = list(dict.fromkeys(table.prof_group))
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    for k, gender in enumerate(GENDERS):
        sub = table[table.gender == gender].set_index("prof_group").reindex(groups)
        x = np.arange(len(groups)) + (k - 0.5) * 0.25
        yerr = np.vstack([sub["mean"] - sub.ci_low, sub.ci_high - sub["mean"]])
        ax.errorbar(x, sub["mean"], yerr=yerr, fmt=MARKERS[gender], color=COLOURS[gender],
                    capsize=4, label=f"{gender} person words")
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xticks(np.arange(len(groups)))
    ax.set_xticklabels([f"{g} professions" for g in groups])
    ax.set_ylabel("association (nats), mean and 95% CI")
    model = result.metadata.get("model", {})
    if isinstance(model, dict):
        name = str(model.get("name") or Path(str(model.get("source") or "")).name
                   or model.get("fingerprint", ""))
    else:
        name = str(model)
    ax.set_title(title or f"BEC-Pro association, {name}"[:80], fontsize=10)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    base = Path(path).with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    out = [base.with_suffix(".png"), base.with_suffix(".svg")]
    for p in out:
        fig.savefig(p, dpi=150)
    plt.close(fig)
    return out
