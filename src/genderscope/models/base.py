"""Questions a measure may ask a model, as plain data types and protocols.

Masked LMs (:class:`~genderscope.models.masked.MaskedLM`) answer

- :meth:`fill_logprobs`: log P(candidate | sentence) at a slot, for many
  :class:`FillQuery` at once (multi-wordpiece candidates scored by a named
  strategy, other spans hidden by one mask per wordpiece);
- :meth:`pseudo_log_likelihood`: PLL of sentences (Salazar et al. 2020),
  optionally over a subset of token positions;
- :meth:`span_logprobs`: log P of the pieces covering character spans of a
  text, under a named rule (left to right with later pieces masked or left
  out, or each piece masked alone);
- :meth:`tokenize`: the word pieces of sentences (to choose PLL positions).

Causal LMs (:class:`~genderscope.models.causal.CausalLM`) answer

- :meth:`log_likelihood`: total and per-token log-likelihood of texts, given
  the adapter's (explicit, recorded) start-of-text token;
- :meth:`continuation_logprob`: log P(continuation | prefix).

All log-probabilities are natural logarithms (nats). Every adapter has a
``fingerprint`` (model id + revision, or SHA-256 of the weights file) used
as the cache key, and ``describe()`` for result metadata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

SLOT = "{target}"
"""Marks the slot a candidate fills in a :class:`FillQuery` template."""

HIDE_RE = re.compile(r"\[\[(.+?)\]\]")
"""``[[words]]`` in a template: words hidden behind masks (one per wordpiece)."""

Strategy = Literal["l2r", "independent", "first-piece"]
SpanMasking = Literal["piece", "word"]

STRATEGIES: tuple[str, ...] = ("l2r", "independent", "first-piece")

SpanRule = Literal["l2r", "l2r-drop", "pll"]
SPAN_RULES: tuple[str, ...] = ("l2r", "l2r-drop", "pll")


@dataclass(frozen=True)
class FillQuery:
    """log P(``candidate`` fills ``{target}`` in ``template``).

    ``template`` holds exactly one ``{target}`` slot and any number of
    ``[[hidden words]]`` spans, which are replaced by masks (one per wordpiece
    with ``span_masking="piece"``, one per whitespace word with ``"word"``, as
    Bartl et al.'s original code did). Example, Kurita's prior for "he" with the
    target masked: ``FillQuery("{target} is a [[housemaid]].", "he")``.
    """

    template: str
    candidate: str

    def __post_init__(self) -> None:
        if self.template.count(SLOT) != 1:
            raise ValueError(f"FillQuery template must contain {SLOT} exactly once: "
                             f"{self.template!r}")
        if not self.candidate.strip():
            raise ValueError("FillQuery candidate is empty")


@dataclass(frozen=True)
class SeqScore:
    """Log-likelihood of one text: ``total`` = sum of ``token_logprobs`` (nats) over
    ``n_tokens`` scored tokens; ``perplexity`` = exp(-total / n_tokens)."""

    total: float
    n_tokens: int
    token_logprobs: tuple[float, ...] = field(default=(), repr=False)
    tokens: tuple[str, ...] = field(default=(), repr=False)

    @property
    def mean(self) -> float:
        return self.total / self.n_tokens if self.n_tokens else float("nan")

    @property
    def perplexity(self) -> float:
        return float(np.exp(-self.mean)) if self.n_tokens else float("nan")
