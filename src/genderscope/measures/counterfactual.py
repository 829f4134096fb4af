"""Counterfactual gender-swap flip test for text classifiers (docs/measures/robustness.md).

Every gendered word is swapped (:class:`genderscope.swap.GenderSwapper`) and the
classifier asked about both versions; with ``y = argmax p(x)``:

- label flip: ``argmax p(x') != y``; the *flip rate* is the share of swapped texts whose
  label flips (Garg et al. 2019, counterfactual token fairness, Sec. 3);
- ``delta = p_y(x') - p_y(x)`` (probability, in [-1, 1]): mean and max of ``|delta|``,
  and the signed mean.

Directions ``m2f``, ``f2m``, ``mixed`` and ``all``; texts with no gendered word are
counted (``n_unswappable``) and left out. The flip rate's interval is the one
:func:`genderscope.stats.design.infer` picks for its :data:`DESIGN` (Wilson over texts,
or the design-effect Wilson over templates given ``clusters``); means of |delta| and
delta: percentile bootstrap over texts or cluster t over templates (clipped to [0, 1] and
[-1, 1], which hold the true mean: coverage unchanged); the max has no CI;
m2f - f2m differences: a two-group (cluster) bootstrap. Texts (templates) that all give
the same value give no interval (NaN bounds, ``no_interval``), never the point [x, x]
(:func:`genderscope.stats.intervals.no_spread`); a flip rate of 0 or 1 keeps Wilson's
interval. No p-values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from genderscope.core.design import Design
from genderscope.errors import DataError
from genderscope.models.classifier import Classifier
from genderscope.results import Result
from genderscope.stats import bootstrap_ci
from genderscope.stats.design import infer
from genderscope.stats.intervals import no_spread
from genderscope.stats.resample import cluster_bootstrap_ci, cluster_totals

DIRECTIONS = ("m2f", "f2m", "mixed")
DESIGN = Design("proportion", unit="texts")
"""The flip rate's design: a proportion of independent texts (the declaration's
``design``, catalog/classifiers.py; with ``clusters``, the same clustered by templates)."""
CLUSTERS = "templates"


class Swapper(Protocol):
    def swap(self, text: str) -> Any: ...

    def direction(self, text: str) -> str: ...


def _swapped_text(out: Any) -> str:
    return out if isinstance(out, str) else out.text


def diff_ci(a: np.ndarray, b: np.ndarray, *, n_resamples: int = 10_000, seed: int = 0,
            confidence: float = 0.95) -> dict[str, float | int | str]:
    """mean(a) - mean(b) with an independent two-group percentile bootstrap CI; none
    (NaN bounds, ``no_interval``) when both groups' values are all the same."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        nan = float("nan")
        return {"estimate": nan, "ci_low": nan, "ci_high": nan, "n_a": int(a.size),
                "n_b": int(b.size), "method": "two-group percentile bootstrap"}
    rng = np.random.default_rng(seed)
    ma = a[rng.integers(0, a.size, (n_resamples, a.size))].mean(axis=1)
    mb = b[rng.integers(0, b.size, (n_resamples, b.size))].mean(axis=1)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(ma - mb, [alpha, 1 - alpha])
    why: dict[str, str] = {}
    if np.ptp(ma - mb) == 0:  # every text of both groups alike: [d, d] is no interval
        lo = hi = float("nan")
        why = {"no_interval": no_spread(int(a.size + b.size), "texts")}
    return {"estimate": float(a.mean() - b.mean()), "ci_low": float(lo), "ci_high": float(hi),
            "confidence": confidence, "n_a": int(a.size), "n_b": int(b.size),
            "method": "two-group percentile bootstrap", "ci_unit": "texts", **why}


def cluster_diff_ci(swapped: pd.DataFrame, column: str, *, n_resamples: int = 10_000,
                    seed: int = 0, confidence: float = 0.95) -> dict[str, Any]:
    """Mean of ``column`` over m2f texts minus over f2m texts, with a percentile cluster
    bootstrap over the ``template`` of each text (both directions' texts of a template
    drawn together; :func:`genderscope.stats.resample.cluster_bootstrap_ci`)."""
    d = swapped["direction"].to_numpy()
    v = swapped[column].to_numpy(dtype=float)
    m, f = (d == "m2f").astype(float), (d == "f2m").astype(float)
    tot = cluster_totals(swapped["template"].tolist(), np.column_stack([v * m, m, v * f, f]))

    def stat(t: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return t[:, 0] / t[:, 1] - t[:, 2] / t[:, 3]

    ci = cluster_bootstrap_ci(tot, stat, unit=CLUSTERS, n_items=int(m.sum() + f.sum()),
                              confidence=confidence, n_resamples=n_resamples, seed=seed)
    return {**ci.as_dict(), "n_a": int(m.sum()), "n_b": int(f.sum())}


def flip_test(texts: Sequence[str], classifier: Classifier, swapper: Swapper, *,
              gold: Sequence[Any] | None = None, n_examples: int = 10,
              n_resamples: int = 10_000, seed: int = 0,
              clusters: Sequence[Any] | None = None) -> Result:
    """Run the flip test on ``texts``: a Result with an ``examples`` table. ``clusters``:
    the template (any label) of each text, when texts share templates: the intervals are
    then over templates (module docstring), and the item table has a ``template`` column."""
    texts = list(texts)
    if not texts:
        raise DataError("flip test: no texts to test")
    if gold is not None and len(gold) != len(texts):
        raise DataError(f"flip test: {len(gold)} gold labels for {len(texts)} texts")
    if clusters is not None and len(clusters) != len(texts):
        raise DataError(f"flip test: {len(clusters)} templates for {len(texts)} texts")
    swapped = [_swapped_text(swapper.swap(t)) for t in texts]
    direction = [swapper.direction(t) for t in texts]
    changed = np.array([s != t for s, t in zip(swapped, texts, strict=True)])
    probs = classifier.predict_proba(texts + [s for s, c in zip(swapped, changed, strict=True)
                                              if c])
    p = probs[: len(texts)]
    p_sw = p.copy()
    p_sw[changed] = probs[len(texts):]
    y = p.argmax(axis=1)
    y_sw = p_sw.argmax(axis=1)
    rows = np.arange(len(texts))
    delta = p_sw[rows, y] - p[rows, y]
    labels = classifier.labels or [str(i) for i in range(p.shape[1])]
    items = pd.DataFrame({
        "text_id": rows, "direction": [d if c else "none" for d, c in
                                       zip(direction, changed, strict=True)],
        "swapped": changed, "text": texts, "swapped_text": swapped,
        "label": [labels[i] for i in y], "label_swapped": [labels[i] for i in y_sw],
        "p_label": p[rows, y], "p_label_swapped": p_sw[rows, y], "delta": delta,
        "abs_delta": np.abs(delta), "flip": (y != y_sw) & changed,
    })
    if gold is not None:
        items.insert(1, "gold", [str(g) for g in gold])
    if clusters is not None:
        items.insert(1, "template", list(clusters))
    sw = items[items["swapped"]]
    summary: dict[str, Any] = {"n_texts": len(texts), "n_swapped": int(changed.sum()),
                               "n_unswappable": int((~changed).sum())}
    groups = {"all": sw, **{d: sw[sw["direction"] == d] for d in DIRECTIONS}}
    design = DESIGN if clusters is None else DESIGN.clustered(CLUSTERS)

    def mean_ci(g: pd.DataFrame, column: str) -> dict[str, Any]:
        values = g[column].to_numpy(dtype=float)
        if clusters is None:
            return bootstrap_ci(values, n_resamples=n_resamples, seed=seed,
                                unit="texts").as_dict()
        return infer(Design("mean", unit="texts", clusters=CLUSTERS), values,
                     g["template"].tolist(),
                     bounds=(0.0 if column == "abs_delta" else -1.0, 1.0)).as_dict()

    for name, g in groups.items():
        absd = g["abs_delta"].to_numpy(dtype=float)
        summary[name] = {
            "n": len(g),
            "flip_rate": infer(design, g["flip"].to_numpy(dtype=float),
                               None if clusters is None else g["template"].tolist()
                               ).as_dict(),
            "mean_abs_delta": mean_ci(g, "abs_delta"),
            "mean_delta": mean_ci(g, "delta"),
            "max_abs_delta": float(absd.max()) if len(g) else float("nan"),
        }
    def m2f_minus_f2m(column: str) -> dict[str, Any]:
        if clusters is not None:
            return cluster_diff_ci(sw, column, n_resamples=n_resamples, seed=seed)
        return diff_ci(groups["m2f"][column].to_numpy(float),
                       groups["f2m"][column].to_numpy(float), n_resamples=n_resamples, seed=seed)

    summary["m2f_minus_f2m"] = {"flip_rate": m2f_minus_f2m("flip"),
                                "mean_abs_delta": m2f_minus_f2m("abs_delta")}
    if gold is not None:
        summary["accuracy_original"] = float(np.mean(items["label"] == items["gold"]))
        summary["accuracy_swapped"] = float(np.mean(items["label_swapped"] == items["gold"]))
    examples = sw.sort_values(["abs_delta", "text_id"], ascending=[False, True]).head(n_examples)
    examples = examples[["text_id", "direction", "text", "swapped_text", "label",
                         "label_swapped", "p_label", "p_label_swapped", "delta"]]
    metadata = {"model": classifier.describe(),
                "swapper": swapper.describe() if hasattr(swapper, "describe") else
                type(swapper).__name__,
                "params": {"n_examples": n_examples, "n_resamples": n_resamples},
                "seed": seed, "classifier_queries": classifier.queries}
    return Result("counterfactual", summary, items, metadata, {"examples": examples})
