"""The gender-analogy attack on one text: transformation + constraint + goal + search.

1. Split the text into words (:class:`~genderscope.attack.text.WordText`).
2. For each substitutable word, candidates along the chosen gender direction
   (:class:`~genderscope.attack.transformation.AnalogyNeighbours` or any
   ``f(word, direction)``), cased like the original word.
3. Optional LM filter (:class:`~genderscope.attack.constraint.LMFilter`),
   with the original text as context, all windows of the text in one batch.
4. No word left with a candidate: the text is *not attackable* (counted
   apart, never a failure).
5. Genetic search (:class:`~genderscope.attack.search.GeneticSearch`) against
   the goal (drop of the original label, or a target label).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from genderscope.attack.constraint import LMFilter
from genderscope.attack.goal import Goal
from genderscope.attack.search import GeneticSearch, Words
from genderscope.attack.text import WordText, match_case
from genderscope.attack.transformation import DIRECTIONS, STOP_WORDS, NeighbourFn, substitutable
from genderscope.errors import GenderscopeError
from genderscope.models.classifier import Classifier

SUCCESS, FAILURE, NOT_ATTACKABLE = "success", "failure", "not attackable"


@dataclass
class AttackOutcome:
    """Result of attacking one text in one direction."""

    status: str
    direction: str
    original: str
    adversarial: str | None
    orig_label: int
    adv_label: int
    p_orig: float  # P(original label | original text)
    p_adv: float  # P(original label | adversarial text)
    words_changed: int
    changes: list[tuple[str, str]] = field(default_factory=list)
    n_words: int = 0
    n_substitutable: int = 0  # words with >= 1 candidate before the LM filter
    n_positions: int = 0  # words with >= 1 candidate after the LM filter
    n_candidates: int = 0  # candidates after the LM filter, all positions
    queries: int = 0  # distinct texts this attack needed classified (original and cache
    #                   hits included): independent of the order texts are attacked in
    requests: int = 0  # texts asked of the classifier adapter (repeats included)
    evaluated: int = 0  # texts the classifier model ran on (the rest came from its cache;
    #                     depends on what earlier attacks cached)
    seconds: float = 0.0
    generations: int = 0
    stopped: str = ""


def _text_key(text: str) -> tuple[int, int]:
    """Two 32-bit words of the text's SHA-256: its part of the random stream's seed."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:8], "little")


class GenderAttack:
    """Attack texts with gender-analogy substitutions.

    Args:
        classifier: the model under attack.
        neighbours: ``f(word, direction) -> candidates`` (lowercase).
        lm_filter: fluency constraint, or ``None`` for none.
        search: the genetic search settings.
        seed: base seed; each (text content, direction) gets its own stream, so a
            text's result does not depend on where it stands in a list.
        target: class index to reach (targeted attack), or ``None``.
        skip_words: words never substituted.
    """

    def __init__(self, classifier: Classifier, neighbours: NeighbourFn, *,
                 lm_filter: LMFilter | None = None, search: GeneticSearch | None = None,
                 seed: int = 0, target: int | None = None,
                 skip_words: frozenset[str] = STOP_WORDS) -> None:
        self.classifier = classifier
        self.neighbours = neighbours
        self.lm_filter = lm_filter
        self.search = search or GeneticSearch()
        self.seed = int(seed)
        self.target = target
        self.skip_words = skip_words

    def candidates(self, text: WordText, direction: str) -> tuple[dict[int, list[str]], int]:
        """Filtered candidates per word index, and the count of words with any candidate."""
        words = text.words
        raw: dict[int, list[str]] = {}
        for i, w in enumerate(words):
            if not substitutable(w, self.skip_words):
                continue
            cands = [match_case(w, c) for c in self.neighbours(w, direction)]
            cands = [c for c in dict.fromkeys(cands) if c != w]
            if cands:
                raw[i] = cands
        n_raw = len(raw)
        if self.lm_filter is not None and raw:
            raw = self.lm_filter.filter(text, raw)
        return {i: c for i, c in raw.items() if c}, n_raw

    def attack(self, text: str, direction: str, index: int = 0) -> AttackOutcome:
        """Attack one text. Its random stream comes from ``seed``, the text's content
        (SHA-256) and the direction; ``index`` is ignored (kept for old callers)."""
        if direction not in DIRECTIONS:
            raise GenderscopeError(f"unknown direction {direction!r}; use one of "
                                   f"{sorted(DIRECTIONS)}")
        clf = self.classifier
        t0 = time.perf_counter()
        q0, r0 = clf.queries, clf.requests
        wt = WordText.parse(text)
        p0 = clf.predict_proba([text])[0]
        goal = Goal(p0, self.target)
        y = goal.label
        cands, n_raw = self.candidates(wt, direction)
        base = dict(direction=direction, original=text, orig_label=y, p_orig=float(p0[y]),
                    n_words=len(wt.words), n_substitutable=n_raw, n_positions=len(cands),
                    n_candidates=sum(len(c) for c in cands.values()))
        already = self.target is not None and y == self.target
        if already or not cands:  # nothing to search: the original text is the answer
            return AttackOutcome(status="already target" if already else NOT_ATTACKABLE,
                                 adversarial=text if already else None, adv_label=y,
                                 p_adv=float(p0[y]), words_changed=0, queries=1,
                                 evaluated=clf.queries - q0, requests=clf.requests - r0,
                                 seconds=time.perf_counter() - t0, **base)

        def evaluate(batch: list[Words]) -> np.ndarray:
            return clf.predict_proba([wt.render(w) for w in batch])

        rng = np.random.default_rng([self.seed, *_text_key(text),
                                     list(DIRECTIONS).index(direction)])
        out = self.search.run(wt.words, cands, evaluate, goal, rng)
        changes = [(a, b) for a, b in zip(wt.words, out.words, strict=True) if a != b]
        return AttackOutcome(
            status=SUCCESS if out.success else FAILURE,
            adversarial=wt.render(out.words) if out.success else None,
            adv_label=int(np.argmax(out.probs)), p_adv=float(out.probs[y]),
            words_changed=len(changes) if out.success else 0,
            changes=changes if out.success else [],
            queries=out.queries, evaluated=clf.queries - q0, requests=clf.requests - r0,
            seconds=time.perf_counter() - t0, generations=out.generations,
            stopped=out.stopped, **base)

    def attack_many(self, texts: Sequence[str], directions: Sequence[str] = tuple(DIRECTIONS),
                    progress: object | None = None) -> list[AttackOutcome]:
        """Attack every text in every direction (``progress(done)`` after each)."""
        outs: list[AttackOutcome] = []
        for i, text in enumerate(texts):
            for d in directions:
                outs.append(self.attack(text, d, i))
                if callable(progress):
                    progress(len(outs))
        return outs
