"""Log-probability bias score tests (Kurita et al. 2019, "Measuring Bias in
Contextualized Word Representations", Sec. 4 and Sec. 5 / Table 1; docs/measures/lpbs.md).

Per item (template, attribute word a), male and female target sets M, F fill ``GGG``
(masked LM ``fill_logprobs``, nats; a set's probabilities summed, as Kurita's
``bias_score``)::

    fill(G)  = log sum_{g in G} P(g at GGG | XXX = a)
    prior(G) = log sum_{g in G} P(g at GGG | XXX masked)
    bias = fill(M) - fill(F);  prior = prior(M) - prior(F);  lpbs = bias - prior

A causal LM uses full-sentence log-likelihoods instead (the ``probe``'s definitions,
:func:`genderscope.measures.probe.causal_prior_text`): fill(G) = log sum exp LL(s(g, a)).

WEAT-style effect size (Sec. 5): the unit is the attribute word, so each word's lpbs is
averaged over templates (table ``by_word``), d = (mean_X - mean_Y) / std_{X u Y} (ddof 1)
with a permutation test over words; set means have t intervals over words.
``aggregation="pooled-items"`` permutes (template, word) items as the authors' notebook
does; that test is anti-conservative (tests/stats/test_calibration.py). Per-template
effect sizes form the Holm family "lpbs per template".
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
from genderscope.measures._lm import model_kind
from genderscope.measures.probe import causal_prior_text
from genderscope.models.base import FillQuery
from genderscope.results import Result
from genderscope.stats import (
    adjust_pvalues,
    bootstrap_ci,
    difference_of_sums_test,
    t_mean_ci,
)

METHOD = "lpbs"
AGGREGATIONS = ("words", "pooled-items")
"""``words``: word means over templates, words permuted (default, valid);
``pooled-items``: items pooled over templates and permuted (replication notebook;
anti-conservative, see module docstring)."""


def _check_aggregation(aggregation: str) -> None:
    if aggregation not in AGGREGATIONS:
        raise GenderscopeError(f"LPBS aggregation must be one of {', '.join(AGGREGATIONS)}, "
                               f"got {aggregation!r}")


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
    if model_kind(adapter, "LPBS") == "masked":
        return masked_item_scores(adapter, templates, attributes, strategy=strategy,
                                  span_masking=span_masking, progress=progress)
    return causal_item_scores(adapter, templates, attributes, progress=progress)


def word_means(items: pd.DataFrame, column: str = "lpbs") -> pd.DataFrame:
    """Per attribute word: ``column`` averaged over templates (set, attribute, value, n)."""
    g = items.groupby(["set", "attribute"], sort=False)[column]
    return g.agg(["mean", "size"]).reset_index().rename(
        columns={"mean": column, "size": "n_templates"})


def effect(items: pd.DataFrame, x: str, y: str, *, column: str = "lpbs",
           n_permutations: int = 10_000, seed: int = 0,
           aggregation: str = "words") -> dict[str, Any]:
    """WEAT-style effect size and permutation p of ``column`` between sets x and y
    (``aggregation`` as :data:`AGGREGATIONS`)."""
    _check_aggregation(aggregation)
    units = word_means(items, column) if aggregation == "words" else items
    sx = units.loc[units.set == x, column].to_numpy()
    sy = units.loc[units.set == y, column].to_numpy()
    res = difference_of_sums_test(sx, sy, n_permutations=n_permutations, seed=seed)
    return {**res.as_dict(), "mean_x": float(sx.mean()), "mean_y": float(sy.mean()),
            "test_unit": "words" if aggregation == "words" else "items"}


def check_sets(test: LpbsTest) -> None:
    """An attribute word may not be in both sets (it would be compared with itself)."""
    both = sorted(set(test.x.words) & set(test.y.words))
    if both:
        raise GenderscopeError(f"LPBS test {test.name!r}: attribute word(s) in both sets "
                               f"{test.x.name!r} and {test.y.name!r}: {', '.join(both)}")


def run(adapter: Any, test: LpbsTest, *, strategy: str = "l2r", span_masking: str = "piece",
        n_permutations: int = 10_000, n_resamples: int = 10_000, seed: int = 0,
        aggregation: str = "words", data: dict[str, Any] | None = None,
        progress: bool = False) -> Result:
    """Run one LPBS test; returns the ``lpbs`` Result (items: template x word;
    ``aggregation`` as :data:`AGGREGATIONS`)."""
    check_sets(test)
    _check_aggregation(aggregation)
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
    kw = {"n_permutations": n_permutations, "seed": seed}
    main = effect(items, x, y, aggregation=aggregation, **kw)
    uncorrected = effect(items, x, y, column="bias", aggregation=aggregation, **kw)
    per_template = []
    for ti, t in enumerate(test.templates):
        sub = items[items.template_index == ti]
        e = effect(sub, x, y, **kw)
        per_template.append({"template": t.text, "male": ",".join(t.targets.male),
                             "female": ",".join(t.targets.female), **e,
                             "p_value": e["p_two_sided"]})
    by_template = pd.DataFrame(per_template)
    by_template["p_adjusted"] = adjust_pvalues(by_template["p_value"].to_numpy(float))
    by_template["p_adjust_method"] = "holm"
    by_template["family"] = "lpbs per template"
    by_word = word_means(items)
    unit = "words" if aggregation == "words" else "items"
    means = {}
    for name in (x, y):
        source = by_word if aggregation == "words" else items
        vals = source.loc[source.set == name, "lpbs"].to_numpy()
        means[name] = (t_mean_ci(vals, unit=unit) if aggregation == "words" else
                       bootstrap_ci(vals, n_resamples=n_resamples, seed=seed,
                                    unit=unit)).as_dict()
    summary = {
        "test": test.name, "x": x, "y": y, "n_templates": len(test.templates),
        "n_items": int(len(items)),
        "n_words": {x: int((by_word.set == x).sum()), y: int((by_word.set == y).sum())},
        "effect_size": main["effect_size"], "p_one_sided": main["p_one_sided"],
        "p_two_sided": main["p_two_sided"], "test_unit": unit, "permutation": main,
        "mean_lpbs": means, "uncorrected_bias_effect": uncorrected,
        "aggregation": ("attribute-word means over templates; words permuted, set means "
                        "with t intervals over words" if aggregation == "words" else
                        "items pooled over templates (Kurita et al. 2019 replication "
                        "notebook); anti-conservative when words recur across templates"),
    }
    params = {"strategy": strategy, "span_masking": span_masking, "model_kind": adapter.kind,
              "n_permutations": n_permutations, "n_resamples": n_resamples,
              "aggregation": aggregation, "test": test.describe()}
    if adapter.kind == "causal":
        params.pop("strategy")
        params.pop("span_masking")
    return Result(METHOD, summary, items,
                  metadata={"model": adapter.describe(), "params": params, "data": data or {},
                            "seed": seed},
                  tables={"by_template": by_template, "by_word": by_word})
