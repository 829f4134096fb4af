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
  makes a sign-flip test of mean 0 exact.

This module is core: it imports nothing of genderscope.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

ESTIMANDS = ("proportion", "mean", "median", "effect-size", "ratio")
"""The estimands a design may declare."""


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
