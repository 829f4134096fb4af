"""Balancing a caption or text corpus by gender per object (``genderscope debias
balance``): the data-side remedy of Zhao et al. (2017, EMNLP) and Wang et al. (2019,
"Balanced Datasets Are Not Enough", ICCV, Sec. 4); docs/measures/amplification.md.

Captions are labelled by the corpus measure's rules
(:func:`genderscope.measures.amplification.count_cooccurrences`); captions of no group,
of several, or with no object are kept and do not enter b(o, g).

- ``resample``: seeded undersampling of each object's larger groups to its smallest,
  repeated until no object is out of balance (exactly b(o, g) = 1/|G|);
- ``reweight``: a weight per caption by iterative proportional fitting (Deming & Stephan
  1940) until the largest relative gap is below ``tol`` (the remaining gap is reported).

:func:`corpus_bias`: per object max_g b(o, g) - 1/|G|, its mean with a percentile
bootstrap CI over objects.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.amplification import object_finder, tokens
from genderscope.stats import bootstrap_ci

METHODS = ("resample", "reweight")


@dataclass(frozen=True)
class Labels:
    """Each caption's gender group (index, or -1: none or several) and objects."""

    group: np.ndarray
    objects: list[tuple[int, ...]]
    groups: list[str]
    names: list[str]


def label(captions: Sequence[str], objects: Sequence[str],
          gender_words: dict[str, list[str]], *, plurals: bool = True) -> Labels:
    """Label captions by the corpus measure's rules (module docstring)."""
    groups = list(gender_words)
    word_group = {w: gi for gi, g in enumerate(groups) for w in gender_words[g]}
    find = object_finder(objects, plurals=plurals)
    group = np.full(len(captions), -1, dtype=np.int64)
    found: list[tuple[int, ...]] = []
    for ci, cap in enumerate(captions):
        toks = tokens(cap)
        present = {word_group[t] for t in toks if t in word_group}
        if len(present) == 1:
            group[ci] = present.pop()
        found.append(tuple(sorted(find(toks))))
    return Labels(group, found, groups, list(objects))


def counts(labels: Labels, weights: np.ndarray | None = None) -> np.ndarray:
    """c(o, g) (weighted when ``weights`` is given): (|O|, |G|)."""
    w = np.ones(len(labels.group)) if weights is None else np.asarray(weights, float)
    c = np.zeros((len(labels.names), len(labels.groups)))
    for i, (g, objs) in enumerate(zip(labels.group, labels.objects, strict=True)):
        if g >= 0:
            for o in objs:
                c[o, g] += w[i]
    return c


def resample(labels: Labels, *, seed: int = 0) -> np.ndarray:
    """Indices of the captions kept (in corpus order): every object exactly balanced
    (module docstring). Seeded: the same seed drops the same captions."""
    rng = random.Random(seed)
    keep = np.ones(len(labels.group), dtype=bool)
    by_object: dict[tuple[int, int], list[int]] = {}
    for i, (g, objs) in enumerate(zip(labels.group, labels.objects, strict=True)):
        if g >= 0:
            for o in objs:
                by_object.setdefault((o, int(g)), []).append(i)
    n_groups = len(labels.groups)
    changed = True
    while changed:
        changed = False
        for o in range(len(labels.names)):
            kept = [[i for i in by_object.get((o, g), []) if keep[i]] for g in range(n_groups)]
            target = min(len(k) for k in kept)
            for members in kept:
                if len(members) > target:
                    for i in rng.sample(members, len(members) - target):
                        keep[i] = False
                    changed = True
    return np.flatnonzero(keep)


def reweight(labels: Labels, *, tol: float = 1e-9, max_iter: int = 1000
             ) -> tuple[np.ndarray, dict[str, Any]]:
    """Weights (mean 1 over the weighted captions' original count; captions outside
    the counts keep 1) and a report: iterations, the largest remaining relative gap
    between an object's groups, and the objects that cannot be balanced."""
    w = np.ones(len(labels.group))
    c = counts(labels)
    lone = [labels.names[o] for o in range(len(c)) if c[o].sum() > 0 and (c[o] == 0).any()]
    fixable = [o for o in range(len(c)) if (c[o] > 0).all()]
    members = {(o, g): [] for o in fixable for g in range(len(labels.groups))}
    for i, (g, objs) in enumerate(zip(labels.group, labels.objects, strict=True)):
        if g >= 0:
            for o in objs:
                if (o, int(g)) in members:
                    members[(o, int(g))].append(i)
    gap, it = 0.0, 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        for o in fixable:
            cur = np.array([w[members[(o, g)]].sum() for g in range(len(labels.groups))])
            target = cur.mean()
            for g in range(len(labels.groups)):
                w[members[(o, g)]] *= target / cur[g]
        c = counts(labels, w)
        gap = max((float((c[o].max() - c[o].min()) / c[o].max()) for o in fixable),
                  default=0.0)
        if gap <= tol:
            break
    return w, {"iterations": it, "max_relative_gap": gap, "unbalanceable": lone}


def corpus_bias(labels: Labels, weights: np.ndarray | None = None, *, seed: int = 0,
                n_resamples: int = 10_000) -> dict[str, Any]:
    """Mean skew over the objects seen with a gender (module docstring), with its CI,
    and the per-object b(o, g)."""
    c = counts(labels, weights)
    tot = c.sum(axis=1)
    seen = tot > 0
    if not seen.any():
        raise DataError("no object of the list co-occurs with a gender group in the corpus")
    b = c[seen] / tot[seen, None]
    skew = b.max(axis=1) - 1.0 / len(labels.groups)
    ci = bootstrap_ci(skew, n_resamples=n_resamples, seed=seed, unit="objects")
    per = {labels.names[o]: dict(zip(labels.groups, map(float, row), strict=True))
           for o, row in zip(np.flatnonzero(seen), b, strict=True)}
    return {"mean_skew": {**ci.as_dict(), "estimate": float(skew.mean())},
            "n_objects": int(seen.sum()), "b": per}


def balance(captions: Sequence[str], objects: Sequence[str],
            gender_words: dict[str, list[str]], *, method: str = "resample", seed: int = 0,
            plurals: bool = True, n_resamples: int = 10_000) -> dict[str, Any]:
    """Balance ``captions`` (module docstring). Returns ``captions`` (the balanced
    corpus; all of them for ``reweight``), ``kept`` (their indices in ``captions``),
    ``weights`` (``reweight`` only), ``before``
    and ``after`` (:func:`corpus_bias`) and ``report`` (counts, or the fitting's)."""
    if method not in METHODS:
        raise GenderscopeError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if not captions:
        raise DataError("the corpus is empty")
    labels = label(captions, objects, gender_words, plurals=plurals)
    before = corpus_bias(labels, seed=seed, n_resamples=n_resamples)
    if method == "resample":
        kept = resample(labels, seed=seed)
        sub = Labels(labels.group[kept], [labels.objects[i] for i in kept], labels.groups,
                     labels.names)
        c = counts(sub)
        out: dict[str, Any] = {
            "captions": [captions[i] for i in kept], "weights": None,
            "kept": [int(i) for i in kept],
            "report": {"captions_before": len(captions), "captions_after": int(len(kept)),
                       "dropped": int(len(captions) - len(kept)),
                       "objects_emptied": [labels.names[o] for o in range(len(c))
                                           if before["b"].get(labels.names[o])
                                           and c[o].sum() == 0]}}
        try:
            out["after"] = corpus_bias(sub, seed=seed, n_resamples=n_resamples)
        except DataError:
            raise DataError("balancing leaves no object with a gender: every object is "
                            "seen with one gender group only") from None
    else:
        w, report = reweight(labels)
        out = {"captions": list(captions), "weights": w.tolist(),
               "kept": list(range(len(captions))),
               "report": {"captions": len(captions), **report},
               "after": corpus_bias(labels, w, seed=seed, n_resamples=n_resamples)}
    out["before"] = before
    out["method"] = method
    out["seed"] = seed
    return out
