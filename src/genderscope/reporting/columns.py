"""Readable names, with units, for the item columns a report's highlights show (the
stored item tables keep their short names: ``sent_more`` on the page reads
"more stereotypical sentence"). Log-likelihoods and log-probability differences are in
nats (natural logarithm)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

COLUMNS: dict[str, str] = {
    "sent_more": "more stereotypical sentence",
    "sent_less": "less stereotypical sentence",
    "score_more": "log-likelihood, more stereotypical (nats)",
    "score_less": "log-likelihood, less stereotypical (nats)",
    "score_stereotype": "log-likelihood, stereotype (nats)",
    "score_anti_stereotype": "log-likelihood, anti-stereotype (nats)",
    "prof_group": "profession group",
    "association": "association (nats)",
    "nll_per_token": "negative log-likelihood per token (nats)",
    "n_tokens": "tokens",
    "rel_ppl_female": "relative perplexity, female pronoun",
    "rel_ppl_male": "relative perplexity, male pronoun",
    "gap": "gap: female − male relative perplexity",
    "corrected_bias": "prior-corrected bias (nats)",
    "fill_bias": "target-fill bias (nats)",
    "prior_bias": "prior bias (nats)",
    "lpbs": "log-probability bias score (nats)",
    "anti_stereotype": "anti-stereotype",
    "value": "value",
}
"""Short column name -> the words and unit a reader sees."""



def readable(df: pd.DataFrame, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """``df`` with its columns renamed for a reader (unknown names: underscores become
    spaces); ``columns``: a card's own names, where its column means something else than
    :data:`COLUMNS` says (:attr:`genderscope.reporting.entry.Card.columns`)."""
    names = {**COLUMNS, **(columns or {})}
    return df.rename(columns={c: names.get(str(c), str(c).replace("_", " "))
                              for c in df.columns})
