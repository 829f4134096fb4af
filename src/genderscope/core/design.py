"""The sampling design of a measure's headline statistic (issue 36, item 1).

A measure declares once *what* its headline number estimates and *what varies
independently* in its data; :func:`genderscope.stats.design.infer` reads the declaration
and picks the interval (and, where one applies, the test). The design is a field of the
measure's :class:`~genderscope.core.declaration.Declaration` (``design=``); the measure
code passes the same design to ``stats`` (it may not import the catalog).

Vocabulary (one value per *unit* unless ``clusters`` is given):

- ``estimand``: what the number is. ``proportion``: the share of units with a 0/1
  outcome (e.g. texts whose label flips); ``mean``: the mean of unit values;
  ``median``; ``effect-size`` (a standardised difference, e.g. WEAT's d); ``ratio`` (of
  two groups' statistics, e.g. F1(F) / F1(M)).
- ``unit``: what one value is (``texts``, ``word pairs``, ...): the unit of
  independence when ``clusters`` is None, and the ``ci_unit`` of the interval.
- ``clusters``: what units share, when they are not independent (``templates``: texts
  made from one template share its wording): inference is then over clusters.
- ``crossed``: further random factors crossed with the units (``attribute words`` of an
  association test, ``person words`` of BEC-Pro), each a source of variance the
  interval should count. Declared for the record; :mod:`genderscope.stats.design` does
  not choose for crossed designs yet and says so.
- ``paired``: what makes a value a paired difference whose sign is arbitrary under no
  effect (``pair order``: swapping a RIPA word pair flips the sign of its value), which
  makes a sign-flip test of mean 0 exact. A difference whose sign is *not* arbitrary
  under the null (after - before of a debiased model, male - female of BEC-Pro: the null
  is a mean of 0, not a symmetric distribution) declares no ``paired``; its mean is
  tested studentised (bootstrap-t), which keeps its size under skew.
- ``tolerance``: the numerical precision of the values (:class:`Tolerance`): two values
  that differ by less are the same number computed twice (batching, padding, device,
  dtype), so a before/after difference within it is a tie, never evidence of a change.

This module is core: it imports nothing of genderscope.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

ESTIMANDS = ("proportion", "mean", "median", "effect-size", "ratio")
"""The estimands a design may declare."""


@dataclass(frozen=True)
class Tolerance:
    """Two values ``a`` and ``b`` are equal within the scoring's numerical precision when
    ``|a - b| <= atol + rtol * max(|a|, |b|)`` (in the values' own units)."""

    atol: float = 0.0
    rtol: float = 0.0

    def __post_init__(self) -> None:
        if not (self.atol >= 0 and self.rtol >= 0):
            raise ValueError(f"tolerance: atol and rtol must be >= 0, got {self}")

    def describe(self) -> str:
        """``|difference| <= 1e-04 + 1e-05 x |value|``."""
        return f"|difference| <= {self.atol:.0e} + {self.rtol:.0e} x |value|"


SCORE_TOLERANCE = Tolerance(atol=1e-4, rtol=1e-5)
"""The precision of a value computed from float32 scores (log-probabilities in nats,
cosine similarities, classifier probabilities): a float32 sum of a few tens of
log-probabilities of magnitude 1-10 carries rounding of order 1e-6 to 1e-5 (float32's
epsilon is 1.2e-7), and a different batch or padding reorders the sums; rescoring
CrowS-Pairs with a tiny GPT-2 at batch size 1 and 16 moved item margins by up to
2.4e-6 nats (tests/stats/test_numerical_ties.py). 1e-4 nats is a probability ratio of
1.0001, far below any effect a measure reports. The default of every measure that
declares none."""

SENTENCE_TOLERANCE = Tolerance(atol=1e-2, rtol=1e-5)
"""The precision of a sum of a sentence's token log-probabilities (nats) and of a
difference of two such sums (a CrowS-Pairs margin): the rounding of every token's term
adds up, and a forward pass on another device or in another batch computes each term in
another order. Measured on SmolLM2-135M (float32, the 262 CrowS-Pairs gender pairs,
``python benchmarks/device_precision.py --device cuda --limit 262 --only crows-pairs``,
NVIDIA H200, benchmarks/results/device/precision-h200-crows.txt): CPU vs CUDA moved
margins by up to 1.6e-3 nats (median 4.4e-5), one sequence per batch vs the default on
CUDA by up to 1.4e-3, and the one-sentence-at-a-time loop of
``benchmarks/bench_crows_pairs.py`` vs the engine by up to 2.6e-3 over all 1,508 pairs;
with 1e-4, 16 of 200 pairs rescored on CUDA read as a change (precision-h200.txt).
1e-2 nats is a probability ratio of 1.01; bfloat16 moved the same margins by a median of
0.16 nats (a change, as it should read). The default of every sentence-scored
measure (``sentence_scored=True``: CrowS-Pairs, StereoSet, ABC) that declares no design."""


@dataclass(frozen=True)
class Design:
    """How a measure's headline values were sampled (module docstring)."""

    estimand: str
    """One of :data:`ESTIMANDS`."""
    unit: str = "items"
    """What one value is (the unit of independence when ``clusters`` is None)."""
    clusters: str | None = None
    """What units share (``templates``), or None: units are independent."""
    crossed: tuple[str, ...] = ()
    """Random factors crossed with the units (none: the units are the only sample)."""
    paired: str | None = None
    """What pairs a value so that its sign is arbitrary under no effect, or None."""
    tolerance: Tolerance = SCORE_TOLERANCE
    """The values' numerical precision: differences within it are ties."""

    def __post_init__(self) -> None:
        if self.estimand not in ESTIMANDS:
            raise ValueError(f"design: estimand must be one of {ESTIMANDS}, got "
                             f"{self.estimand!r}")
        if not self.unit:
            raise ValueError("design: unit must name what one value is")
        if isinstance(self.crossed, str):  # a lone name, not its characters
            object.__setattr__(self, "crossed", (self.crossed,))
        object.__setattr__(self, "crossed", tuple(self.crossed))

    def clustered(self, clusters: str) -> Design:
        """The same design with units grouped by ``clusters`` (e.g. ``"templates"``)."""
        return replace(self, clusters=clusters)

    def describe(self) -> str:
        """One line: ``proportion of texts, clustered by templates``."""
        text = f"{self.estimand} of {self.unit}"
        if self.clusters:
            text += f", clustered by {self.clusters}"
        if self.crossed:
            text += f", crossed with {' and '.join(self.crossed)}"
        if self.paired:
            text += f", paired by {self.paired}"
        return text
