"""How many simulations a calibration test runs: a CI-sized run and the full run.

A calibration test is parametrised by :func:`runs`: its ``ci`` variant runs in every test
run but the fast loop (``-m "not slow"``; CI runs it), its ``full`` variant is marked
``calibration_full`` (and ``slow``), which ``pyproject.toml``'s ``addopts`` deselects;
``python -m pytest -m calibration_full`` runs the full variants (as
``scripts/calibration_table.py`` runs the page's rows). Both draw the same
seeded simulations, the CI run a prefix of the full one.

The full run asserts the bar itself (a false-positive rate in [0.03, 0.07], a coverage in
[0.93, 0.97]). The CI run is smaller, so its rate carries more Monte-Carlo error; it
asserts that the rate's 95 % Wilson interval (Wilson 1927) reaches the bar, i.e. that the
run is consistent with a calibrated statistic. It still fails where the statistic is
miscalibrated by more than about two Monte-Carlo standard errors, 2 sqrt(r (1 - r) / n):
at 300 runs a coverage of 0.90 or a false-positive rate of 0.10 fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import pytest

FULL = (pytest.mark.slow, pytest.mark.calibration_full)
"""The marks of a full-size calibration run."""


Z = NormalDist().inv_cdf(0.975)


def wilson(rate: float, n: int, z: float = Z) -> tuple[float, float]:
    """95 % Wilson score interval of a rate observed over ``n`` runs."""
    if n <= 0:
        return 0.0, 1.0
    denom = 1.0 + z * z / n
    centre = (rate + z * z / (2 * n)) / denom
    half = z * (rate * (1 - rate) / n + z * z / (4 * n * n)) ** 0.5 / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Runs:
    """The number of simulations of one variant, whether it is the full run, and the
    full run's number."""

    sims: int
    full: bool
    full_sims: int

    def of(self, n: int) -> int:
        """A secondary loop of ``n`` runs in the full variant, scaled to this one (at
        least 20)."""
        return n if self.full else max(20, min(n, round(n * self.sims / self.full_sims)))

    def meets(self, rate: float, bar: tuple[float, float], n: int | None = None) -> bool:
        """Full run: ``rate`` lies in ``bar``. CI run: its Wilson interval over ``n``
        (default: ``sims``) runs reaches the bar."""
        if self.full:
            return bar[0] <= rate <= bar[1]
        lo, hi = wilson(rate, self.sims if n is None else n)
        return lo <= bar[1] and hi >= bar[0]

    def below(self, rate: float, limit: float, n: int | None = None) -> bool:
        """Full run: ``rate < limit``. CI run: the Wilson interval reaches below it."""
        if self.full:
            return rate < limit
        return wilson(rate, self.sims if n is None else n)[0] < limit

    def above(self, rate: float, limit: float, n: int | None = None) -> bool:
        """Full run: ``rate > limit``. CI run: the Wilson interval reaches above it."""
        if self.full:
            return rate > limit
        return wilson(rate, self.sims if n is None else n)[1] > limit


def runs(ci: int, full: int) -> list:
    """``pytest.mark.parametrize("runs", runs(ci, full))``: the CI-sized variant (id
    ``ci-N``, marked ``slow``: CI runs it, the contributors' fast loop does not) and the
    full one (id ``full-N``, marked ``calibration_full`` and ``slow``)."""
    return [pytest.param(Runs(ci, False, full), id=f"ci-{ci}", marks=pytest.mark.slow),
            pytest.param(Runs(full, True, full), id=f"full-{full}", marks=FULL)]


def runs_for(cases: list[tuple], ci: int, full: int | list[int]) -> list:
    """:func:`runs` for each case of a parametrised test: ``(*case, runs)`` with the ids of
    both; ``full`` may give each case its own full size."""
    fulls = full if isinstance(full, list) else [full] * len(cases)
    return [pytest.param(*case, *p.values, marks=p.marks,
                         id="-".join(map(str, case)) + f"-{p.id}")
            for case, f in zip(cases, fulls, strict=True) for p in runs(ci, f)]
