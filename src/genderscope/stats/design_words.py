"""The interval and test :mod:`genderscope.stats.design` chooses for a declared design,
in words: the "Interval and test" sentences of the docs/measures pages
(``scripts/options_tables.py``), kept beside the chooser's own names so they cannot drift
(tests/engine/test_statistics_sentences.py checks them against what :func:`infer`
returns)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from genderscope.core.design import Design
from genderscope.stats.design import MIN_UNITS_TO_TEST

if TYPE_CHECKING:
    from genderscope.core.declaration import Declaration


def describe(design: Design) -> str:
    """The interval and the test :func:`infer` (or, for a ``ratio``, :func:`infer_totals`;
    for a crossed mean, :func:`genderscope.stats.jackknife.infer_samples`) gives
    ``design``, in two sentences (module docstring; the docs/measures pages)."""
    unit, k = design.unit, design.clusters
    few = f"none below {MIN_UNITS_TO_TEST} {k or unit}"
    if design.crossed:
        return (f"Interval: the infinitesimal-jackknife t interval (Satterthwaite df) of "
                f"the mean of {unit}, crossed with {' and '.join(design.crossed)}, each an "
                "independent sample. Test of a null value: the same t statistic with its "
                "variance under the null.")
    if design.estimand == "proportion":
        if k:
            return (f"Interval: the design-effect Wilson interval of the proportion of "
                    f"{unit}, clustered by {k} (Wilson's limits at the effective sample "
                    f"size, t(K - 1) over the K {k}; Korn & Graubard 1998). Test: none.")
        return (f"Interval: Wilson's score interval of the proportion of independent "
                f"{unit}. Test: none.")
    if design.estimand == "mean":
        if k:
            return (f"Interval: the cluster t interval (CR1) of the mean of {unit} over the "
                    f"K {k}, t(K - 1). Test of a null value: the cluster t test "
                    f"of the same statistic ({few}).")
        if design.paired:
            return (f"Interval: Student's t interval of the mean over independent {unit}. "
                    f"Test of a null value: the sign-flip test over {unit} ({design.paired} "
                    f"makes each sign arbitrary under no effect; exact up to 24 {unit}, "
                    f"else seeded random flips; {few}).")
        return (f"Interval: the bootstrap-t interval of the mean over independent {unit} "
                f"(Student's t at {MIN_UNITS_TO_TEST - 1} or fewer). Test of a null value: "
                f"the bootstrap-t test of the mean ({few}).")
    if design.estimand == "effect-size":
        return (f"Interval: the noncentral t interval of the standardised difference "
                f"(Hedges & Olkin 1985, Ch. 5) over the {k or unit}"
                + (f" ({unit} clustered by {k})" if k else "") + ". The design chooses "
                "no test.")
    if design.estimand == "ratio":
        return (f"Interval: the linearised cluster t interval (CR1) of a smooth "
                f"function (a ratio, a difference of rates) of the totals of {unit} over "
                f"the K {k or unit}, t(K - 1). Test of a null "
                f"value: the cluster t test of the same linearisation ({few}).")
    if design.estimand == "median" and not k:
        return (f"Interval: the percentile bootstrap of the median over independent "
                f"{unit}. Test: none.")
    return f"Interval: none is chosen for a {design.describe()} yet. Test: none."


def statistics_of(declaration: Declaration) -> str:
    """A measure's interval and test in words: the sentence :func:`describe` generates
    from its declared ``design``, followed by its declared ``statistics`` (what the design
    does not say); without a design, its ``statistics`` alone ("" when it declares
    none)."""
    parts = [describe(declaration.design) if declaration.design is not None else "",
             declaration.statistics or ""]
    return " ".join(" ".join(p.split()) for p in parts if p)
