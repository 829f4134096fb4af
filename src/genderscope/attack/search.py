"""Genetic search over word substitutions (Alzantot et al. 2018, Sec. 3, Algorithm 1).

An individual is the text's word tuple with some words substituted. Perturb(x) picks a
substitutable word (probability proportional to its candidates, unchanged words first),
tries every candidate and moves to the best only if it beats x's fitness (the paper's
``select_best_replacement``). Each generation stops at the goal, else keeps the best
member and breeds ``pop_size - 1`` children from parents drawn by softmax(fitness /
temperature) with a one-point crossover (GSoC 2019 variant), each then perturbed.
Population 60 and 20 generations as the paper (Sec. 4.1); ``max_queries`` (2,000,
``None`` for none) is genderscope's cap on the distinct texts asked, the original
included. Randomness comes only from the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from genderscope.attack.goal import Goal
from genderscope.errors import GenderscopeError

Words = tuple[str, ...]
Evaluate = Callable[[list[Words]], np.ndarray]
"""Word tuples -> class probabilities (rows)."""


@dataclass(frozen=True)
class SearchOutcome:
    success: bool
    words: Words
    probs: np.ndarray
    fitness: float
    generations: int
    stopped: str  # "goal", "generations", "queries"
    queries: int = 0  # distinct texts asked of the classifier, the original included


def _fittest_winner(goal: Goal, pop: list[Words], probs: np.ndarray, fit: np.ndarray,
                    generation: int, queries: int) -> SearchOutcome | None:
    """The fittest member of ``pop`` that reached the goal, as the search's outcome; None
    when none did."""
    reached = np.flatnonzero(goal.reached(probs))
    if not reached.size:
        return None
    win = int(reached[np.argmax(fit[reached])])
    return SearchOutcome(True, pop[win], probs[win], float(fit[win]), generation, "goal",
                         queries)


class _Budget(Exception):
    pass


class _Asker:
    """``evaluate`` that counts distinct texts and refuses a call past the budget."""

    def __init__(self, evaluate: Evaluate, original: Words, limit: int | None) -> None:
        self.evaluate, self.limit = evaluate, limit
        self.seen: set[Words] = {original}

    def __call__(self, batch: list[Words]) -> np.ndarray:
        new = set(batch) - self.seen
        if self.limit is not None and len(self.seen) + len(new) > self.limit:
            raise _Budget
        self.seen |= new
        return self.evaluate(batch)


class _Found(Exception):
    def __init__(self, words: Words, probs: np.ndarray) -> None:
        self.words, self.probs = words, probs


@dataclass
class GeneticSearch:
    """Alzantot et al.'s genetic attack (module docstring: settings and caps)."""

    pop_size: int = 60
    max_generations: int = 20
    max_queries: int | None = 2000
    temperature: float = 0.3

    def __post_init__(self) -> None:
        if self.pop_size < 1 or self.max_generations < 0:
            raise GenderscopeError("genetic search needs pop_size >= 1 and "
                                   "max_generations >= 0")
        if self.temperature <= 0:
            raise GenderscopeError(f"temperature must be > 0, got {self.temperature}")
        if self.max_queries is not None and self.max_queries < 1:
            raise GenderscopeError(f"max_queries must be >= 1, got {self.max_queries}")

    def run(self, original: Words, candidates: dict[int, list[str]], evaluate: Evaluate,
            goal: Goal, rng: np.random.Generator) -> SearchOutcome:
        """Search; ``candidates`` maps word index -> replacement words (non-empty);
        ``goal.p0`` holds the original text's probabilities (counted as one query)."""
        positions = sorted(i for i, c in candidates.items() if c)
        if not positions:
            raise GenderscopeError("genetic search needs at least one substitutable word")
        weights = np.array([len(candidates[i]) for i in positions], dtype=float)
        ask = _Asker(evaluate, original, self.max_queries)

        def perturb(x: Words, px: np.ndarray | None) -> tuple[Words, np.ndarray]:
            """Best single substitution of x if it gains fitness, else x (``px``: x's
            probabilities, or None to score x with its variants)."""
            free = np.array([x[i] == original[i] for i in positions])
            w = weights * free if free.any() else weights
            pos = positions[int(rng.choice(len(positions), p=w / w.sum()))]
            variants = [x[:pos] + (c,) + x[pos + 1:] for c in candidates[pos] if c != x[pos]]
            probs = ask(variants if px is not None else [x, *variants])
            if px is None:
                px, probs = probs[0], probs[1:]
                if goal.reached(px)[0]:  # the child itself changes the label
                    raise _Found(x, px)
            if not variants:  # every candidate already in place
                return x, px
            fit = goal.fitness(probs)
            reached = goal.reached(probs)
            if reached.any():  # stop on label change
                idx = np.flatnonzero(reached)
                win = int(idx[np.argmax(fit[idx])])
                raise _Found(variants[win], probs[win])
            best = int(np.argmax(fit))
            if fit[best] > goal.fitness(px)[0]:
                return variants[best], probs[best]
            return x, px

        def crossover(a: Words, b: Words) -> Words:
            if len(a) < 2:
                return a
            cut = int(rng.integers(1, len(a)))
            return a[:cut] + b[cut:]

        pop: list[Words] = []
        probs_list: list[np.ndarray] = []
        best_words, best_probs = original, goal.p0
        generation = 0
        try:
            for _ in range(self.pop_size):
                x, p = perturb(original, goal.p0)
                pop.append(x)
                probs_list.append(p)
            while True:
                probs = np.stack(probs_list)
                fit = goal.fitness(probs)
                elite = int(np.argmax(fit))
                best_words, best_probs = pop[elite], probs[elite]
                if won := _fittest_winner(goal, pop, probs, fit, generation, len(ask.seen)):
                    return won
                if generation >= self.max_generations:
                    return SearchOutcome(False, best_words, best_probs, float(fit[elite]),
                                         generation, "generations", len(ask.seen))
                generation += 1
                z = (fit - fit.max()) / self.temperature
                select = np.exp(z) / np.exp(z).sum()
                n_child = self.pop_size - 1
                p1 = rng.choice(len(pop), size=n_child, p=select)
                p2 = rng.choice(len(pop), size=n_child, p=select)
                new_pop, new_probs = [pop[elite]], [probs[elite]]
                for a, b in zip(p1, p2, strict=True):
                    child = crossover(pop[a], pop[b])
                    known = probs[a] if child == pop[a] else probs[b] if child == pop[b] else None
                    x, p = perturb(child, known)
                    new_pop.append(x)
                    new_probs.append(p)
                pop, probs_list = new_pop, new_probs
        except _Found as found:
            return SearchOutcome(True, found.words, found.probs,
                                 float(goal.fitness(found.probs)[0]), generation, "goal",
                                 len(ask.seen))
        except _Budget:
            if pop:
                probs = np.stack(probs_list)
                fit = goal.fitness(probs)
                if won := _fittest_winner(goal, pop, probs, fit, generation, len(ask.seen)):
                    return won
                elite = int(np.argmax(fit))
                best_words, best_probs = pop[elite], probs[elite]
            return SearchOutcome(False, best_words, best_probs,
                                 float(goal.fitness(best_probs)[0]), generation, "queries",
                                 len(ask.seen))
