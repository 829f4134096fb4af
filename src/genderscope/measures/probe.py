"""Kurita et al. (2019) log-probability bias score on one template (docs/measures/probe.md).

A template holds a gender slot ``GGG`` and a target slot ``XXX`` ("GGG is a XXX."); a
gender pair fills GGG, a target XXX. Masked LM (Kurita et al. 2019, Sec. 3), in nats,
positive = leans male:

- fill bias      F = log p(male | GGG masked, target present) - log p(female | ...)
- prior bias     P = the same with the target masked too (one mask per wordpiece)
- corrected bias C = F - P (Kurita's "increased log probability" score)
- target-fill    T = log p(target | GGG = male) - log p(target | GGG = female).

Causal LM, from total log-likelihoods LL (:mod:`genderscope.models.causal`): F =
LL(T[male, target]) - LL(T[female, target]); P = the same for the prefix up to the target
slot when GGG comes first (the exact marginal over targets), else for the template with
the target slot deleted; C = F - P; T by continuation log-probability when GGG comes
first, else equal to F. With GGG first, F = P + T by the chain rule, so C = T.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from genderscope.core.design import Design
from genderscope.errors import GenderscopeError
from genderscope.measures._lm import model_kind
from genderscope.models.base import FillQuery
from genderscope.results import Result
from genderscope.stats.design import infer
from genderscope.stats.intervals import CI

GENDER_SLOT = "GGG"
TARGET_SLOT = "XXX"
DESIGN = Design("mean", unit="targets")
"""The probe's sampling design: a mean over independent targets, whose values need not
be symmetric (:func:`genderscope.stats.design.infer`: the bootstrap-t interval; Student's
t at 5 or fewer targets)."""
PROBE_RESAMPLES = 9_999
"""Bootstrap-t resamples of each mean."""


def mean_ci(values: np.ndarray | Sequence[float], seed: int = 0) -> CI:
    """The mean over targets with the interval :data:`DESIGN` gets: the equal-tailed
    bootstrap-t (Hall 1988) over targets (its coverage under skew: docs/calibration.md).
    """
    return infer(DESIGN, values, n_resamples=PROBE_RESAMPLES, seed=seed).ci


def check_template(template: str) -> None:
    """Raise a one-line error unless the template has exactly one GGG and one XXX."""
    for slot in (GENDER_SLOT, TARGET_SLOT):
        n = template.count(slot)
        if n != 1:
            raise GenderscopeError(f"template {template!r} must contain {slot} exactly once "
                                   f"(found {n})")


def check_words(words: Sequence[str], what: str) -> list[str]:
    out = [w.strip() for w in words]
    if not out:
        raise GenderscopeError(f"no {what} given")
    for w in out:
        if not w:
            raise GenderscopeError(f"empty {what} in {list(words)!r}")
        if GENDER_SLOT in w or TARGET_SLOT in w or "{" in w or "[[" in w:
            raise GenderscopeError(f"{what} {w!r} contains a reserved marker")
    return out


def _fill(template: str, gender: str, target: str) -> str:
    return template.replace(GENDER_SLOT, gender).replace(TARGET_SLOT, target)


def causal_prior_text(template: str, gender: str) -> str:
    """The text whose log-likelihood is a causal LM's prior for ``gender``: the template
    up to the target slot when GGG comes first (the marginal over all targets), else the
    template with the target slot (and the space before it) deleted."""
    if template.index(GENDER_SLOT) < template.index(TARGET_SLOT):
        return template.split(TARGET_SLOT)[0].rstrip(" ").replace(GENDER_SLOT, gender)
    text = template.replace(GENDER_SLOT, gender)
    return re.sub(r"\s*" + TARGET_SLOT, "", text, count=1).strip()


def masked_scores(adapter: object, template: str, male: str, female: str,
                  targets: Sequence[str], strategy: str = "l2r",
                  progress: bool = False) -> pd.DataFrame:
    """Per-target F, P, C, T for a masked LM (one batched call)."""
    queries: list[FillQuery] = []
    for t in targets:
        with_target = template.replace(GENDER_SLOT, "{target}").replace(TARGET_SLOT, t)
        prior = template.replace(GENDER_SLOT, "{target}").replace(TARGET_SLOT, f"[[{t}]]")
        for g in (male, female):
            queries.append(FillQuery(with_target, g))
            queries.append(FillQuery(prior, g))
        for g in (male, female):
            queries.append(FillQuery(template.replace(GENDER_SLOT, g)
                                     .replace(TARGET_SLOT, "{target}"), t))
    lp = adapter.fill_logprobs(queries, strategy=strategy, progress=progress)  # type: ignore[attr-defined]
    rows = []
    for i, t in enumerate(targets):
        m_t, m_p, f_t, f_p, m_tf, f_tf = lp[6 * i:6 * i + 6]
        fill, prior = m_t - f_t, m_p - f_p
        rows.append({"target": t, "logp_male": m_t, "logp_female": f_t,
                     "prior_logp_male": m_p, "prior_logp_female": f_p,
                     "fill_bias": fill, "prior_bias": prior, "corrected_bias": fill - prior,
                     "target_logp_male": m_tf, "target_logp_female": f_tf,
                     "target_fill_bias": m_tf - f_tf})
    return pd.DataFrame(rows)


def causal_scores(adapter: object, template: str, male: str, female: str,
                  targets: Sequence[str], progress: bool = False) -> pd.DataFrame:
    """Per-target F, P, C, T for a causal LM from sentence log-likelihoods."""
    texts: list[str] = []
    for t in targets:
        texts += [_fill(template, male, t), _fill(template, female, t)]
    priors = [causal_prior_text(template, male), causal_prior_text(template, female)]
    scores = adapter.log_likelihood(texts + priors, progress=progress)  # type: ignore[attr-defined]
    ll = np.array([s.total for s in scores])
    prior = ll[-2] - ll[-1]
    gender_first = template.index(GENDER_SLOT) < template.index(TARGET_SLOT)
    cont = None
    if gender_first:
        head, tail = template.split(TARGET_SLOT)
        pairs = []
        for t in targets:
            for g in (male, female):
                prefix = head.replace(GENDER_SLOT, g).rstrip(" ")
                sep = head[len(head.rstrip(" ")):]
                pairs.append((prefix, sep + t + tail))
        cont = adapter.continuation_logprob(pairs, progress=progress)  # type: ignore[attr-defined]
    rows = []
    for i, t in enumerate(targets):
        fill = ll[2 * i] - ll[2 * i + 1]
        tfb = (cont[2 * i] - cont[2 * i + 1]) if cont is not None else fill
        rows.append({"target": t, "ll_male": ll[2 * i], "ll_female": ll[2 * i + 1],
                     "fill_bias": fill, "prior_bias": prior, "corrected_bias": fill - prior,
                     "target_fill_bias": tfb})
    return pd.DataFrame(rows)


def probe(adapter: object, template: str, pair: tuple[str, str], targets: Sequence[str], *,
          strategy: str = "l2r", seed: int = 0, progress: bool = False) -> Result:
    """Gender-fill, prior, prior-corrected and target-fill bias of ``targets`` in one
    template (module docstring); summary = mean of each over the targets with a bootstrap-t
    95% CI over targets (:func:`mean_ci`, seeded by ``seed``).
    """
    check_template(template)
    male, female = check_words(pair, "gender word")
    if male.lower() == female.lower():
        raise GenderscopeError(f"gender pair needs two different words, got {male!r} twice")
    targets = check_words(targets, "target")
    kind = model_kind(adapter, "probe")
    if kind == "masked":
        items = masked_scores(adapter, template, male, female, targets, strategy, progress)
    else:
        items = causal_scores(adapter, template, male, female, targets, progress)
    cols = ("fill_bias", "prior_bias", "corrected_bias", "target_fill_bias")
    summary = {c: mean_ci(items[c].to_numpy(), seed=seed).as_dict() for c in cols}
    summary["n_targets"] = len(targets)
    meta = {"model": adapter.describe(),  # type: ignore[attr-defined]
            "params": {"template": template, "male": male, "female": female,
                       "strategy": strategy if kind == "masked" else None},
            "seed": seed,
            "citation": "Kurita et al. 2019, Measuring Bias in Contextualized Word "
                        "Representations, Sec. 3"}
    return Result("probe", summary, items, meta)
