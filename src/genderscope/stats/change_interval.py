"""The interval and test of a before/after change measured on several independent samples
(the word sets of a word-vector metric; :mod:`genderscope.measures.vector_change`).

Each unit u (a word) is measured twice, before and after; m_u is the midpoint of its two
measurements and d_u their difference. The change D varies with the positions m (which
words were drawn) and with the differences d (their noise), so (law of total variance)

    Var(D) = E[Var(D | m)] + Var(E[D | m]).

V_0, Student's variance over each sample of the units' own contributions (the change
with only u moved, every other unit at its midpoint;
:func:`genderscope.stats.jackknife.infer_samples`' null variance), estimates the first
term without bias, the whole variance under no change. V_c, the infinitesimal
jackknife's variance less the noise products its squares count (Goodman 1960), estimates
the sum of both terms. V_c - V_0 estimates a variance, which is >= 0, so

    V = V_0 + max(0, V_c - V_0) = max(V_0, V_c)

(a non-negative variance component truncated at 0 once, as an ANOVA estimate: Searle,
Casella & McCulloch 1992, "Variance Components", Wiley), over all samples together, not
per sample (each per-sample maximum is biased upward: docs/statistics.md). The interval is
estimate +- t(df) sqrt(V), df Satterthwaite's over the samples of the one chosen; the test
of ``null`` is the t test with V_0 (infer_samples').
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from genderscope.core.design import Design
from genderscope.stats.design import Inference
from genderscope.stats.jackknife import (
    crossed_unit,
    jackknife_variance,
    null_t_test,
    variance_ci,
)


def infer_change(design: Design, estimate: float, derivatives: Mapping[str, np.ndarray],
                 own: Mapping[str, np.ndarray],
                 corrections: Mapping[str, np.ndarray] | None = None, *,
                 null: float = 0.0, confidence: float = 0.95) -> Inference:
    """The interval and test of a change whose ``design`` is a crossed mean (module
    docstring). Per sample (word set), per unit: ``derivatives``, the change's derivative
    with respect to the unit's weight; ``corrections``, the noise its square carries;
    ``own``, the unit's own contribution centred within its sample. A derivative that is not
    finite gives NaN bounds."""
    unit = crossed_unit(design, own)
    v_0 = jackknife_variance(own)  # each variance once: the test's and the interval's
    v_c = jackknife_variance(derivatives, corrections)
    base, df_0 = variance_ci(estimate, v_0, confidence=confidence, unit=unit)
    test = null_t_test(base, df_0, null, int(base.n_units or 0))
    if np.isfinite(v_c.variance) and not v_c.variance > v_0.variance:
        return Inference(base, test)  # V_0's interval
    ci, _ = variance_ci(estimate, v_c, confidence=confidence, unit=unit)
    return Inference(ci, test)


__all__ = ["infer_change"]
