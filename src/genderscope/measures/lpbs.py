"""Log-probability bias score tests (Kurita et al. 2019, "Measuring Bias in
Contextualized Word Representations", Sec. 4 and Sec. 5 / Table 1).

Per item = (template, attribute word a), with male and female target sets M, F
filling ``GGG``. Masked LM (``fill_logprobs``, nats)::

    fill(G)   = log sum_{g in G} P(g at GGG | XXX = a)        (target present)
    prior(G)  = log sum_{g in G} P(g at GGG | XXX masked)     (one mask per wordpiece)
    bias      = fill(M) - fill(F)            gender-fill bias
    prior     = prior(M) - prior(F)          the same with the attribute masked
    lpbs      = bias - prior                 prior-corrected bias (Kurita's "log
                                             probability bias score", Sec. 4)

Several words in a set (e.g. boys, men) are pooled by summing their
probabilities, as Kurita et al.'s ``bias_score`` does.

Causal LM: the definitions of the ``probe`` (genderscope.measures.probe), extended
to sets. With LL(s) the full-sentence log-likelihood of the template filled with
g and a, and LL(s(g, -)) that of the prior text of the probe
(:func:`genderscope.measures.probe.causal_prior_text`: the template up to the
attribute slot when the gender comes first, "he is interested in", the exact
marginal over all attributes; else the template with the attribute deleted)::

    fill(G)  = log sum_{g in G} exp LL(s(g, a))
    prior(G) = log sum_{g in G} exp LL(s(g, -))

so ``bias`` = log P(M|s_a) - log P(F|s_a) with P normalised over M u F, and
``prior`` the same for the prior texts.

**WEAT-style effect size** (Kurita et al., Sec. 5, Table 1): X and Y are the two
attribute sets (e.g. career vs family). As in the authors' replication notebook
(``weat_result_replication.ipynb``), items are *pooled over templates*: every
(template, word) pair of X is one observation, likewise for Y, and

    d = (mean_X lpbs - mean_Y lpbs) / std_{X u Y} lpbs      (sample std, ddof=1)

with a permutation test of the difference (:func:`genderscope.stats.
difference_of_sums_test`: exact over all re-partitions when there are at most
200,000, else 10,000 seeded random ones; one-sided p for mean_X > mean_Y and
two-sided p). Per-template effect sizes are reported too (table ``by_template``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from genderscope.datasets.templates import (
    ATTRIBUTE_SLOT,
    GENDER_SLOT,
    LpbsTest,
    Template,
)
from genderscope.errors import GenderscopeError
from genderscope.measures.probe import causal_prior_text
from genderscope.models.base import FillQuery
from genderscope.results import Result
from genderscope.stats import bootstrap_ci, difference_of_sums_test

METHOD = "lpbs"


def _slot_query(template: Template, attribute: str, hide: bool) -> str:
    fill = f"[[{attribute}]]" if hide else attribute
    return template.text.replace(GENDER_SLOT, "{target}").replace(ATTRIBUTE_SLOT, fill)


def masked_item_scores(adapter: Any, templates: Sequence[Template],
                       attributes: Sequence[str], *, strategy: str = "l2r",
                       span_masking: str = "piece", progress: bool = False) -> pd.DataFrame:
    """bias / prior / lpbs for every template x attribute word, in one adapter call."""
    queries: list[FillQuery] = []
    layout: list[tuple[int, str, int, int, int, int]] = []
    for ti, t in enumerate(templates):
        for a in attributes:
            base = len(queries)
            for hide in (False, True):
                queries += [FillQuery(_slot_query(t, a, hide), g) for g in t.targets.male]
                queries += [FillQuery(_slot_query(t, a, hide), g) for g in t.targets.female]
            layout.append((ti, a, base, len(t.targets.male), len(t.targets.female),
                           len(t.targets.male) + len(t.targets.female)))
    lp = np.asarray(adapter.fill_logprobs(queries, strategy=strategy, span_masking=span_masking,
                                          progress=progress), dtype=np.float64)
    recs = []
    for ti, a, base, nm, _nf, nt in layout:
        fm = logsumexp(lp[base:base + nm])
        ff = logsumexp(lp[base + nm:base + nt])
        pm = logsumexp(lp[base + nt:base + nt + nm])
        pf = logsumexp(lp[base + nt + nm:base + 2 * nt])
        recs.append({"template_index": ti, "attribute": a, "fill_male": fm, "fill_female": ff,
                     "prior_male": pm, "prior_female": pf})
    return _finish(pd.DataFrame(recs), templates)


def causal_item_scores(adapter: Any, templates: Sequence[Template],
                       attributes: Sequence[str], *, progress: bool = False) -> pd.DataFrame:
    """bias / prior / lpbs for a causal LM from full-sentence log-likelihoods."""
    texts: list[str] = []
    for t in templates:
        genders = (*t.targets.male, *t.targets.female)
        texts += [causal_prior_text(t.text, g) for g in genders]
        for a in attributes:
            texts += [t.fill(g, a) for g in genders]
    scores = adapter.log_likelihood(texts, progress=progress)
    ll = np.array([s.total for s in scores], dtype=np.float64)
    recs = []
    pos = 0
    for ti, t in enumerate(templates):
        nm, nt = len(t.targets.male), len(t.targets.male) + len(t.targets.female)
        frame = ll[pos:pos + nt]
        pm, pf = logsumexp(frame[:nm]), logsumexp(frame[nm:])
        pos += nt
        block = ll[pos:pos + nt * len(attributes)].reshape(len(attributes), nt)
        pos += nt * len(attributes)
        for ai, a in enumerate(attributes):
            recs.append({"template_index": ti, "attribute": a,
                         "fill_male": logsumexp(block[ai, :nm]),
                         "fill_female": logsumexp(block[ai, nm:]),
                         "prior_male": pm, "prior_female": pf})
    return _finish(pd.DataFrame(recs), templates)


def _finish(df: pd.DataFrame, templates: Sequence[Template]) -> pd.DataFrame:
    df.insert(1, "template", [templates[i].text for i in df.template_index])
    df["bias"] = df.fill_male - df.fill_female
    df["prior"] = df.prior_male - df.prior_female
    df["lpbs"] = df.bias - df.prior
    return df


def item_scores(adapter: Any, templates: Sequence[Template], attributes: Sequence[str], *,
                strategy: str = "l2r", span_masking: str = "piece",
                progress: bool = False) -> pd.DataFrame:
    """Per-item prior-corrected gender-fill bias for a masked or causal LM."""
    if not templates:
        raise GenderscopeError("LPBS: no templates")
    if not attributes:
        raise GenderscopeError("LPBS: no attribute words")
    kind = getattr(adapter, "kind", None)
    if kind == "masked":
        return masked_item_scores(adapter, templates, attributes, strategy=strategy,
                                  span_masking=span_masking, progress=progress)
    if kind == "causal":
        return causal_item_scores(adapter, templates, attributes, progress=progress)
    raise GenderscopeError(f"LPBS needs a masked or causal language model, got {kind!r}")


def effect(items: pd.DataFrame, x: str, y: str, *, column: str = "lpbs",
           n_permutations: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """WEAT-style effect size and permutation p of ``column`` between sets x and y."""
    sx = items.loc[items.set == x, column].to_numpy()
    sy = items.loc[items.set == y, column].to_numpy()
    res = difference_of_sums_test(sx, sy, n_permutations=n_permutations, seed=seed)
    return {**res.as_dict(), "mean_x": float(sx.mean()), "mean_y": float(sy.mean())}


def run(adapter: Any, test: LpbsTest, *, strategy: str = "l2r", span_masking: str = "piece",
        n_permutations: int = 10_000, n_resamples: int = 10_000, seed: int = 0,
        data: dict[str, Any] | None = None, progress: bool = False) -> Result:
    """Run one LPBS test; returns the ``lpbs`` Result (items: template x word)."""
    words = list(dict.fromkeys((*test.x.words, *test.y.words)))
    scores = item_scores(adapter, test.templates, words, strategy=strategy,
                         span_masking=span_masking, progress=progress)
    parts = []
    for aset in (test.x, test.y):
        sub = scores[scores.attribute.isin(aset.words)].copy()
        sub.insert(0, "set", aset.name)
        parts.append(sub)
    items = pd.concat(parts, ignore_index=True)
    x, y = test.x.name, test.y.name
    main = effect(items, x, y, n_permutations=n_permutations, seed=seed)
    uncorrected = effect(items, x, y, column="bias", n_permutations=n_permutations, seed=seed)
    per_template = []
    for ti, t in enumerate(test.templates):
        sub = items[items.template_index == ti]
        e = effect(sub, x, y, n_permutations=n_permutations, seed=seed)
        per_template.append({"template": t.text, "male": ",".join(t.targets.male),
                             "female": ",".join(t.targets.female), **e})
    means = {}
    for name in (x, y):
        vals = items.loc[items.set == name, "lpbs"].to_numpy()
        means[name] = bootstrap_ci(vals, n_resamples=n_resamples, seed=seed).as_dict()
    summary = {
        "test": test.name, "x": x, "y": y, "n_templates": len(test.templates),
        "n_items": int(len(items)),
        "effect_size": main["effect_size"], "p_one_sided": main["p_one_sided"],
        "p_two_sided": main["p_two_sided"], "permutation": main,
        "mean_lpbs": means, "uncorrected_bias_effect": uncorrected,
        "aggregation": "items pooled over templates (Kurita et al. 2019 replication notebook)",
    }
    params = {"strategy": strategy, "span_masking": span_masking, "model_kind": adapter.kind,
              "n_permutations": n_permutations, "n_resamples": n_resamples,
              "test": test.describe()}
    if adapter.kind == "causal":
        params.pop("strategy")
        params.pop("span_masking")
    return Result(METHOD, summary, items,
                  metadata={"model": adapter.describe(), "params": params, "data": data or {},
                            "seed": seed},
                  tables={"by_template": pd.DataFrame(per_template)})
