"""The plain data types of the questions a measure asks a model (:class:`FillQuery`,
:class:`SeqScore`) and the names of the scoring strategies and span rules.

Masked LMs (:class:`~genderscope.models.masked.MaskedLM`) answer ``fill_logprobs`` (log
P(candidate | sentence) at a slot), ``pseudo_log_likelihood`` (Salazar et al. 2020),
``span_logprobs`` and ``tokenize``; causal LMs
(:class:`~genderscope.models.causal.CausalLM`) ``log_likelihood`` (given the adapter's
recorded start token) and ``continuation_logprob``. All log-probabilities are natural
logarithms (nats). Every adapter has a ``fingerprint`` (model id + revision, or SHA-256 of
the weights), the cache key, and ``describe()`` for result metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

SLOT = "{target}"
"""Marks the slot a candidate fills in a :class:`FillQuery` template."""

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
