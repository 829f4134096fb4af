"""Language-model filter on substitutions (fluency constraint).

A candidate ``c`` for word ``i`` survives when a causal LM finds the altered window at
least ``threshold`` (default 0.25) times as probable as the original::

    log P(window with c) - log P(original window) >= log(threshold)

The window is the ``size`` words before and after word ``i``. Alzantot et al. (2018,
Sec. 3) rank candidates with the Google 1B LM given one word on each side; the GSoC 2019
gender attack drops alterations below 25 % of the original. A text's windows are scored
in one batched call and cached.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from genderscope.attack.text import WordText, match_case
from genderscope.errors import GenderscopeError

TextScorer = Callable[[list[str]], Sequence[float]]
"""``f(texts) -> total log-likelihood per text`` (nats)."""


def lm_scorer(lm: Any) -> TextScorer:
    """Adapt a causal LM adapter (``log_likelihood(texts) -> [SeqScore]``) to a scorer."""
    if not hasattr(lm, "log_likelihood"):
        raise GenderscopeError(f"{type(lm).__name__} cannot score texts: the LM filter "
                               "needs a causal LM with log_likelihood()")

    def score(texts: list[str]) -> list[float]:
        return [s.total for s in lm.log_likelihood(texts)]

    return score


def check_lm_filter_options(threshold: float, window: int) -> None:
    """The LM filter's threshold must be a probability ratio in (0, 1] and its window at
    least one word (NaN or a negative value would switch the filter off silently)."""
    if not 0 < threshold <= 1:  # also False for NaN
        raise GenderscopeError(f"--lm-threshold must be in (0, 1], got {threshold}")
    if window < 1:
        raise GenderscopeError(f"--lm-window must be >= 1 word, got {window}")


class LMFilter:
    """Keep the candidates whose altered window is within ``threshold`` of the original.

    Args:
        scorer: texts -> total log-likelihood (nats), see :func:`lm_scorer`.
        threshold: minimum probability ratio altered/original, in (0, 1].
        window: words of context on each side.
        batched: score all windows of a text in one call (else one call per window).
        name: for metadata (e.g. the LM fingerprint).
    """

    def __init__(self, scorer: TextScorer, *, threshold: float = 0.25, window: int = 3,
                 batched: bool = True, name: str = "lm") -> None:
        check_lm_filter_options(threshold, window)
        self.scorer = scorer
        self.threshold = float(threshold)
        self.log_threshold = math.log(threshold)
        self.window = int(window)
        self.batched = batched
        self.name = name
        self._cache: dict[str, float] = {}
        self.scored = 0

    def describe(self) -> dict[str, object]:
        return {"lm": self.name, "threshold": self.threshold, "window": self.window,
                "batched": self.batched}

    def filter(self, text: WordText, candidates: dict[int, list[str]]) -> dict[int, list[str]]:
        """Per word index, the candidates (cased like the original) that pass."""
        words = text.words
        jobs: list[tuple[int, str, str, str]] = []  # index, candidate, orig window, alt window
        for i, cands in candidates.items():
            orig = text.window(words, i, self.window)
            for c in cands:
                alt = list(words)
                alt[i] = match_case(words[i], c)
                jobs.append((i, alt[i], orig, text.window(alt, i, self.window)))
        self._score({w for job in jobs for w in job[2:]})
        kept: dict[int, list[str]] = {i: [] for i in candidates}
        for i, c, orig, alt in jobs:
            if self._cache[alt] - self._cache[orig] >= self.log_threshold:
                kept[i].append(c)
        return kept

    def _score(self, windows: set[str]) -> None:
        todo = sorted(w for w in windows if w not in self._cache)
        if not todo:
            return
        groups = [todo] if self.batched else [[w] for w in todo]
        for group in groups:
            self.scored += len(group)
            vals = np.asarray(list(self.scorer(group)), dtype=float)
            if vals.shape != (len(group),) or not np.isfinite(vals).all():
                raise GenderscopeError(f"LM scorer {self.name} returned {vals.shape} "
                                       f"(finite: {bool(np.isfinite(vals).all())}) for "
                                       f"{len(group)} windows")
            self._cache.update(zip(group, vals.tolist(), strict=True))
