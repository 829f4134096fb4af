"""Language-modelling cost: perplexity of held-out text (what a debiasing technique costs
the model; Meade et al. 2022, Sec. 6).

For sentences with log-likelihoods LL_i over N_i scored tokens (causal LM: given the start
token; masked LM: pseudo-log-likelihood, Salazar et al. 2020)::

    perplexity = exp(-Σ LL_i / Σ N_i)          (token-weighted)

with a percentile bootstrap CI over sentences. Items carry ``nll_per_token`` = -LL_i / N_i
(nats), which ``genderscope compare`` pairs between two models sharing a tokenizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from genderscope.measures._lm import describe
from genderscope.results import Result


def _ppl(nll: np.ndarray, ntok: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.exp(nll.sum(axis=axis) / ntok.sum(axis=axis))


def run_perplexity(lm: Any, sentences: Sequence[str], *, n_resamples: int = 10_000,
                   seed: int = 0, progress: bool = False,
                   params: dict[str, Any] | None = None) -> Result:
    """Perplexity of ``sentences`` under ``lm`` (see module doc)."""
    from scipy import stats

    if lm.kind == "causal":
        scores = lm.log_likelihood(list(sentences), progress=progress)
        what = "perplexity"
    else:
        scores = lm.pseudo_log_likelihood(list(sentences), progress=progress)
        what = "pseudo-perplexity"
    items = pd.DataFrame({"sentence_id": range(len(sentences)), "sentence": list(sentences),
                          "ll": [s.total for s in scores],
                          "n_tokens": [s.n_tokens for s in scores]})
    items = items[items["n_tokens"] > 0].reset_index(drop=True)
    items["nll_per_token"] = -items["ll"] / items["n_tokens"]
    nll = -items["ll"].to_numpy(float)
    ntok = items["n_tokens"].to_numpy(float)
    est = float(_ppl(nll, ntok))
    if len(items) >= 2 and np.ptp(nll / ntok) > 0:
        boot = stats.bootstrap((nll, ntok), _ppl, paired=True, vectorized=True,
                               n_resamples=n_resamples, method="percentile",
                               rng=np.random.default_rng(seed))
        lo, hi = float(boot.confidence_interval.low), float(boot.confidence_interval.high)
    else:
        lo = hi = est
    summary = {what: {"estimate": est, "ci_low": lo, "ci_high": hi, "confidence": 0.95,
                      "n": int(len(items)), "method": "percentile bootstrap",
                      "ci_unit": "sentences"},
               "nll_per_token": float(nll.sum() / ntok.sum()),
               "n_sentences": int(len(items)), "n_tokens": int(ntok.sum()),
               "definition": f"{what} = exp(-sum LL / sum scored tokens) over held-out "
                             "sentences (nats)"}
    meta = {"model": describe(lm), "params": {**(params or {}), "n_resamples": n_resamples},
            "seed": seed}
    return Result("perplexity", summary, items, metadata=meta)
