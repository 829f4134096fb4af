"""Attack goals: what the search maximises and when it stops.

- untargeted (default): fitness = p0[y] - p[y], the drop of the original
  label's probability; reached when the predicted label is no longer ``y``.
- targeted: fitness = p[t] - p0[t], the rise of the target label's
  probability; reached when ``t`` is predicted.

``y = argmax p0`` is the classifier's original prediction (not the gold label).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Goal:
    """Fitness and success test for one text (``p0``: original probabilities)."""

    p0: np.ndarray
    target: int | None = None

    @property
    def label(self) -> int:
        return int(np.argmax(self.p0))

    def fitness(self, probs: np.ndarray) -> np.ndarray:
        probs = np.atleast_2d(probs)
        if self.target is None:
            return self.p0[self.label] - probs[:, self.label]
        return probs[:, self.target] - self.p0[self.target]

    def reached(self, probs: np.ndarray) -> np.ndarray:
        pred = np.atleast_2d(probs).argmax(axis=1)
        if self.target is None:
            return pred != self.label
        return pred == self.target
