"""The interval (and test) chosen from a measure's declared sampling design (issue 36).

A measure declares its design once (:class:`genderscope.core.design.Design`, the
``design=`` of its declaration) and asks :func:`infer` for its statistics, instead of
choosing its own. The choice, by estimand and by what is independent:

==========  ===========  ========================================  =====================
estimand    units        interval                                  test (``null`` given)
==========  ===========  ========================================  =====================
proportion  independent  Wilson score interval                     none
proportion  clustered    design-effect Wilson, t(K - 1) quantile   none
mean        independent  Student t over the units                  sign flip if paired
mean        clustered    cluster t (CR1), t(K - 1) quantile        none
median      independent  percentile bootstrap over the units       none
==========  ===========  ========================================  =====================

Why these:

- a proportion of independent 0/1 outcomes: Wilson (1927), whose coverage is close to
  nominal even for rare outcomes, where the Wald interval and a bootstrap of 0/1 values
  fail (Brown, Cai & DasGupta 2001, "Interval estimation for a binomial proportion",
  Statistical Science 16(2): Wilson or Jeffreys for small n); with no success it
  is [0, z^2 / (n + z^2)] (z^2 = 3.84 at 95 %), never [0, 0]. Its exact coverage
  oscillates with n and p (discreteness): 0.90-0.98 at n = 50-200, p = 0.01-0.05, and
  0.955-0.958 on average over p in [0.01, 0.05] (docs/calibration.md);
- a proportion over units that share a cluster (texts made from one template):
  :func:`genderscope.stats.resample.cluster_proportion_ci` (Korn & Graubard 1998's
  degrees-of-freedom adjusted effective sample size, with Wilson's limits; its docstring
  says why not a cluster bootstrap);
- a mean over independent units, few or many: Student's t interval, mean +- t(n - 1) s /
  sqrt(n). A percentile bootstrap over 8 units covers 0.87-0.89 (it uses normal-like
  quantiles and the n-divisor sd; issue 22, WEAT; issue 36, RIPA); at large n the two
  agree;
- a mean over clustered units: the CR1 cluster t interval (Cameron & Miller 2015, Sec.
  VI.B; :func:`genderscope.stats.resample.cluster_t_ci`);
- a median: the percentile bootstrap (a median's standard error has no simple plug-in
  estimate; Efron & Tibshirani 1993, Ch. 13).

Tests: where ``paired`` names what makes the sign of each unit's value arbitrary under no
effect (RIPA's pair order), the sign-flip test of mean ``null`` (Fisher 1935;
:mod:`genderscope.stats.signflip`: every sign vector up to 24 units, exact, else
``n_flips`` random ones). Other designs get no test here yet (their measures
still run their own, issue 36's later items), nor do effect sizes, ratios, clustered
medians or crossed designs get an interval: :func:`infer` raises ``NotImplementedError``
rather than guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genderscope.core.design import Design
from genderscope.stats.intervals import (
    CI,
    DEFAULT_RESAMPLES,
    bootstrap_ci,
    proportion_ci,
    t_mean_ci,
)
from genderscope.stats.resample import cluster_mean_ci, cluster_proportion_ci
from genderscope.stats.signflip import DEFAULT_FLIPS, SignFlipResult, sign_flip_test


@dataclass(frozen=True)
class Inference:
    """The interval :func:`infer` chose, and its test where one applies."""

    ci: CI
    test: SignFlipResult | None = None
    """The test of ``null`` (None: no test for this design, or no ``null`` given)."""

    def as_dict(self) -> dict[str, Any]:
        """The interval's fields, and ``p_value``, ``exact``, ``n_flips`` when tested."""
        out: dict[str, Any] = self.ci.as_dict()
        if self.test is not None:
            out.update({"p_value": self.test.p_two_sided, "exact": self.test.exact,
                        "n_flips": self.test.n_flips})
        return out


def infer(design: Design, values: np.ndarray | Sequence[float],
          clusters: Sequence[object] | np.ndarray | None = None, *, null: float | None = None,
          confidence: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES,
          n_flips: int = DEFAULT_FLIPS, seed: int = 0) -> Inference:
    """The interval (and test) of ``design``'s estimand over ``values`` (module docstring).

    ``values``: one per unit (0/1 for a proportion; NaNs dropped). ``clusters``: one label
    per value, required when ``design.clusters`` is set and refused otherwise (the design,
    not the call, says what is independent). ``null``: the value a test compares with
    (None: no test). ``n_resamples`` and ``seed``: the bootstrap of a median; ``n_flips``
    and ``seed``: a sign-flip test too large to enumerate.
    """
    v = np.asarray(values, dtype=float).reshape(-1)
    if (clusters is None) != (design.clusters is None):
        raise ValueError(f"design {design.describe()!r}: "
                         + ("cluster labels are required" if clusters is None else
                            "got cluster labels, but the design declares independent "
                            f"{design.unit} (declare clusters=...)"))
    if design.crossed:
        raise NotImplementedError(f"design {design.describe()!r}: crossed designs are not "
                                  "chosen here yet (issue 36)")
    c = None
    if clusters is not None:
        c = np.asarray(list(clusters), dtype=object)
        if c.size != v.size:
            raise ValueError(f"{c.size} cluster labels for {v.size} values")
    if design.estimand == "proportion":
        if np.any((v != 0) & (v != 1) & ~np.isnan(v)):
            raise ValueError(f"design {design.describe()!r}: values must be 0 or 1")
        if c is not None:
            return Inference(cluster_proportion_ci(v, c, unit=design.clusters or "clusters",
                                                   confidence=confidence))
        return Inference(_wilson(v, unit=design.unit, confidence=confidence))
    if design.estimand == "mean":
        if c is not None:
            return Inference(cluster_mean_ci(v, c, unit=design.clusters or "clusters",
                                             confidence=confidence))
        ci = t_mean_ci(v, confidence=confidence, unit=design.unit)
        test = None
        if null is not None and design.paired is not None:
            test = sign_flip_test(v - null, n_flips=n_flips, seed=seed)
        return Inference(ci, test)
    if design.estimand == "median" and c is None:
        return Inference(bootstrap_ci(v, np.median, confidence=confidence,
                                      n_resamples=n_resamples, seed=seed, unit=design.unit))
    raise NotImplementedError(f"design {design.describe()!r}: no interval is chosen for it "
                              "here yet (issue 36)")


def _wilson(v: np.ndarray, *, unit: str, confidence: float) -> CI:
    """Wilson's interval of the 0/1 values ``v`` (NaNs dropped), unit named."""
    x = v[~np.isnan(v)]
    ci = proportion_ci(int(x.sum()), int(x.size), confidence=confidence)
    return CI(ci.estimate, ci.ci_low, ci.ci_high, confidence, ci.n, ci.method, unit)
