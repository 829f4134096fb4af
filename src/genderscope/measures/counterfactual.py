"""Counterfactual gender-swap flip test for text classifiers.

Every gendered word of an input is swapped to the other gender (the CDS
swapper, :class:`genderscope.swap.GenderSwapper`) and the classifier is asked
about both versions. With ``y = argmax p(x)`` the original prediction:

- label flip: ``argmax p(x') != y``; the *flip rate* is the share of swapped
  texts whose label flips (Garg et al. 2019, "counterfactual token fairness",
  sec. 3; Kusner et al. 2017's counterfactual fairness in its text form);
- ``delta = p_y(x') - p_y(x)``, the change of the predicted class's probability
  (unit: probability, in [-1, 1]); summaries are the mean and max of
  ``|delta|``, and the signed mean.

Texts are grouped by direction: ``m2f`` (only male words, swapped to female),
``f2m`` (only female words), ``mixed`` (both) and ``all``. Texts without a
gendered word are counted (``n_unswappable``) and left out of every rate.
CIs: percentile bootstrap over texts (``genderscope.stats.bootstrap_ci``) for
the flip rate and mean |delta|; the max has no CI (the bootstrap of a maximum
is inconsistent). The m2f - f2m difference of flip rate and of mean |delta|
gets an independent two-group bootstrap CI. Unit of resampling: the text
(``ci_unit: "texts"``); no p-values, so no multiplicity family.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from genderscope.errors import DataError
from genderscope.models.classifier import Classifier
from genderscope.results import Result
from genderscope.stats import bootstrap_ci

DIRECTIONS = ("m2f", "f2m", "mixed")


class Swapper(Protocol):
    def swap(self, text: str) -> Any: ...

    def direction(self, text: str) -> str: ...


def _swapped_text(out: Any) -> str:
    return out if isinstance(out, str) else out.text


def diff_ci(a: np.ndarray, b: np.ndarray, *, n_resamples: int = 10_000, seed: int = 0,
            confidence: float = 0.95) -> dict[str, float | int | str]:
    """mean(a) - mean(b) with an independent two-group percentile bootstrap CI."""
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
    return {"estimate": float(a.mean() - b.mean()), "ci_low": float(lo), "ci_high": float(hi),
            "confidence": confidence, "n_a": int(a.size), "n_b": int(b.size),
            "method": "two-group percentile bootstrap", "ci_unit": "texts"}


def flip_test(texts: Sequence[str], classifier: Classifier, swapper: Swapper, *,
              gold: Sequence[Any] | None = None, n_examples: int = 10,
              n_resamples: int = 10_000, seed: int = 0) -> Result:
    """Run the flip test on ``texts``; returns a Result with an ``examples`` table."""
    texts = list(texts)
    if not texts:
        raise DataError("flip test: no texts to test")
    if gold is not None and len(gold) != len(texts):
        raise DataError(f"flip test: {len(gold)} gold labels for {len(texts)} texts")
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
    sw = items[items["swapped"]]
    summary: dict[str, Any] = {"n_texts": len(texts), "n_swapped": int(changed.sum()),
                               "n_unswappable": int((~changed).sum())}
    groups = {"all": sw, **{d: sw[sw["direction"] == d] for d in DIRECTIONS}}
    for name, g in groups.items():
        flips = g["flip"].to_numpy(dtype=float)
        absd = g["abs_delta"].to_numpy(dtype=float)
        summary[name] = {
            "n": len(g),
            "flip_rate": bootstrap_ci(flips, n_resamples=n_resamples, seed=seed,
                                      unit="texts").as_dict(),
            "mean_abs_delta": bootstrap_ci(absd, n_resamples=n_resamples, seed=seed,
                                           unit="texts").as_dict(),
            "mean_delta": bootstrap_ci(g["delta"].to_numpy(dtype=float),
                                       n_resamples=n_resamples, seed=seed,
                                       unit="texts").as_dict(),
            "max_abs_delta": float(absd.max()) if len(g) else float("nan"),
        }
    m2f, f2m = groups["m2f"], groups["f2m"]
    summary["m2f_minus_f2m"] = {
        "flip_rate": diff_ci(m2f["flip"].to_numpy(float), f2m["flip"].to_numpy(float),
                             n_resamples=n_resamples, seed=seed),
        "mean_abs_delta": diff_ci(m2f["abs_delta"].to_numpy(float),
                                  f2m["abs_delta"].to_numpy(float),
                                  n_resamples=n_resamples, seed=seed),
    }
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
