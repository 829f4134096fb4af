"""Small fake language models that follow the adapter contract
(genderscope.models.base), for testing measure arithmetic by hand.

Every word has a fixed log-probability (``scores``, default ``default``), so a
sentence's score is the sum over its words, and a masked fill's score is the
candidate's word score. Calls are recorded for assertions."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from genderscope.models.base import SLOT, FillQuery, SeqScore

_TOK = re.compile(r"\w+|[^\w\s]")


def words(text: str) -> list[str]:
    return _TOK.findall(text.lower())


class _Base:
    fingerprint = "fake"

    def __init__(self, scores: dict[str, float] | None = None, default: float = -3.0) -> None:
        self.scores = dict(scores or {})
        self.default = default
        self.calls: list[tuple[str, int]] = []

    def lp(self, word: str) -> float:
        return float(self.scores.get(word.lower(), self.default))

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        return [words(t) for t in texts]

    def describe(self) -> dict[str, object]:
        return {"fingerprint": self.fingerprint, "kind": self.kind, "name": "fake"}


class FakeMasked(_Base):
    kind = "masked"
    fingerprint = "fake-masked"

    def fill_logprobs(self, queries: Sequence[FillQuery], *, strategy: str = "l2r",
                      span_masking: str = "piece", progress: bool = False) -> np.ndarray:
        self.calls.append(("fill", len(queries)))
        for q in queries:
            assert q.template.count(SLOT) == 1
        return np.array([sum(self.lp(w) for w in words(q.candidate)) for q in queries])

    def pseudo_log_likelihood(self, texts: Sequence[str], *,
                              positions: Sequence[Sequence[bool] | None] | None = None,
                              progress: bool = False) -> list[SeqScore]:
        self.calls.append(("pll", len(texts)))
        out = []
        for i, t in enumerate(texts):
            toks = words(t)
            pos = positions[i] if positions is not None else None
            if pos is not None:
                assert len(pos) == len(toks), "positions must match tokenize()"
            lps = [self.lp(w) for k, w in enumerate(toks) if pos is None or pos[k]]
            out.append(SeqScore(float(sum(lps)), len(lps), tuple(lps), tuple(toks)))
        return out


    def span_logprobs(self, texts: Sequence[str], spans, *, rule: str = "l2r",
                      progress: bool = False) -> list[np.ndarray]:
        """One log-probability per word overlapping a span (any rule)."""
        self.calls.append(("span:" + rule, len(texts)))
        return [np.array([self.lp(m.group()) for m in _TOK.finditer(t)
                          if any(m.start() < b and m.end() > a for a, b in sp)])
                for t, sp in zip(texts, spans, strict=True)]


class FakeCausal(_Base):
    kind = "causal"
    fingerprint = "fake-causal"

    def log_likelihood(self, texts: Sequence[str], *, progress: bool = False) -> list[SeqScore]:
        self.calls.append(("ll", len(texts)))
        out = []
        for t in texts:
            toks = words(t)
            lps = [self.lp(w) for w in toks]
            out.append(SeqScore(float(sum(lps)), len(lps), tuple(lps), tuple(toks)))
        return out

    def continuation_logprob(self, pairs: Sequence[tuple[str, str]], *,
                             progress: bool = False) -> np.ndarray:
        return np.array([sum(self.lp(w) for w in words(c)) for _, c in pairs])
