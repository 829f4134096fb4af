"""Genetic search over word substitutions (Alzantot et al. 2018, sec. 3, Algorithm 1).

An individual is the text's word tuple with some words substituted.

- Perturb(x): pick a substitutable word at random, with probability proportional
  to its number of candidates, preferring words not yet changed; try every
  candidate at that position and keep the variant with the best fitness
  (one classifier query per candidate, de-duplicated by the classifier cache).
- Initial population: ``pop_size`` perturbations of the original text
  (random single-word alterations).
- Each generation: stop when a member reaches the goal (label change); else keep
  the best member (elitism), draw ``pop_size - 1`` parent pairs with
  probability softmax(fitness / temperature), cross them over at one random
  cut point between the first and last word (GSoC 2019 variant of the
  paper's uniform crossover), and mutate each child by one more alteration.
- Stops after ``max_generations`` or once the classifier has answered
  ``max_queries`` new texts for this attack. Randomness comes only from the
  ``numpy.random.Generator`` passed in, so a seed fixes the result.
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


class _Budget(Exception):
    pass


class _Found(Exception):
    def __init__(self, words: Words, probs: np.ndarray) -> None:
        self.words, self.probs = words, probs


@dataclass
class GeneticSearch:
    """Alzantot et al.'s genetic attack; parameters as in the paper's sec. 4.1 (S=20,
    G=20 there; fewer generations by default here because a CPU classifier is slow)."""

    pop_size: int = 20
    max_generations: int = 10
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
            goal: Goal, rng: np.random.Generator,
            queries_used: Callable[[], int] = lambda: 0) -> SearchOutcome:
        """Search; ``candidates`` maps word index -> replacement words (non-empty)."""
        positions = sorted(i for i, c in candidates.items() if c)
        if not positions:
            raise GenderscopeError("genetic search needs at least one substitutable word")
        weights = np.array([len(candidates[i]) for i in positions], dtype=float)
        start_q = queries_used()

        def check_budget() -> None:
            if self.max_queries is not None and queries_used() - start_q >= self.max_queries:
                raise _Budget

        def perturb(x: Words) -> tuple[Words, np.ndarray]:
            free = np.array([x[i] == original[i] for i in positions])
            w = weights * free if free.any() else weights
            pos = positions[int(rng.choice(len(positions), p=w / w.sum()))]
            variants = [x[:pos] + (c,) + x[pos + 1:] for c in candidates[pos] if c != x[pos]]
            variants = variants or [x]  # every candidate already in place
            probs = evaluate(variants)
            fit = goal.fitness(probs)
            reached = goal.reached(probs)
            if reached.any():  # stop on label change
                idx = np.flatnonzero(reached)
                win = int(idx[np.argmax(fit[idx])])
                raise _Found(variants[win], probs[win])
            best = int(np.argmax(fit))
            return variants[best], probs[best]

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
                check_budget()
                x, p = perturb(original)
                pop.append(x)
                probs_list.append(p)
            while True:
                probs = np.stack(probs_list)
                fit = goal.fitness(probs)
                reached = goal.reached(probs)
                elite = int(np.argmax(fit))
                best_words, best_probs = pop[elite], probs[elite]
                if reached.any():
                    idx = np.flatnonzero(reached)
                    win = int(idx[np.argmax(fit[idx])])
                    return SearchOutcome(True, pop[win], probs[win], float(fit[win]),
                                         generation, "goal")
                if generation >= self.max_generations:
                    return SearchOutcome(False, best_words, best_probs, float(fit[elite]),
                                         generation, "generations")
                generation += 1
                z = (fit - fit.max()) / self.temperature
                select = np.exp(z) / np.exp(z).sum()
                n_child = self.pop_size - 1
                p1 = rng.choice(len(pop), size=n_child, p=select)
                p2 = rng.choice(len(pop), size=n_child, p=select)
                new_pop, new_probs = [pop[elite]], [probs[elite]]
                for a, b in zip(p1, p2, strict=True):
                    check_budget()
                    x, p = perturb(crossover(pop[a], pop[b]))
                    new_pop.append(x)
                    new_probs.append(p)
                pop, probs_list = new_pop, new_probs
        except _Found as found:
            return SearchOutcome(True, found.words, found.probs,
                                 float(goal.fitness(found.probs)[0]), generation, "goal")
        except _Budget:
            if pop:
                probs = np.stack(probs_list)
                fit = goal.fitness(probs)
                reached = goal.reached(probs)
                if reached.any():
                    idx = np.flatnonzero(reached)
                    win = int(idx[np.argmax(fit[idx])])
                    return SearchOutcome(True, pop[win], probs[win], float(fit[win]),
                                         generation, "goal")
                elite = int(np.argmax(fit))
                best_words, best_probs = pop[elite], probs[elite]
            return SearchOutcome(False, best_words, best_probs,
                                 float(goal.fitness(best_probs)[0]), generation, "queries")
