"""Every measure says its interval and test in words, generated from its declared design
where it has one (issue 36 item 6): :func:`genderscope.stats.design.describe` and
:func:`~genderscope.stats.design_words.statistics_of`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from genderscope.core.design import Design
from genderscope.core.registry import declarations
from genderscope.stats.design import Inference, infer, infer_totals
from genderscope.stats.design_words import describe, statistics_of


def test_every_measure_states_its_interval_and_test() -> None:
    """A sentence for every registry entry; one declaring a design gets the sentence
    generated from it first (its own ``statistics`` may only add to it)."""
    missing, worded = [], []
    for name, d in declarations().items():
        text = statistics_of(d)
        if not text:
            missing.append(name)
            continue
        low = text.lower()
        if "test" not in low or not ("interval" in low or "bootstrap" in low):
            worded.append(name)
        if d.design is not None:
            assert text.startswith(describe(d.design)), name
    assert not missing, f"no statistics sentence: {missing}"
    assert not worded, f"no interval or no test named: {worded}"


def test_a_design_s_sentence_changes_with_it() -> None:
    """The generated sentence follows the declared design (not a fixed text)."""
    d = declarations()["counterfactual"]
    assert d.design is not None
    clustered = describe(d.design.clustered("templates"))
    assert clustered != describe(d.design) and "templates" in clustered
    assert "pair order" in describe(Design("mean", unit="word pairs", paired="pair order"))


_RNG = np.random.default_rng(0)
_CLUSTERS = np.repeat(np.arange(10), 4)
_ZERO_ONE = _RNG.integers(0, 2, 40).astype(float)
_VALUES = _RNG.normal(0.3, 1.0, 40)
_GROUPS = np.array(["x"] * 20 + ["y"] * 20)


@pytest.mark.parametrize(("design", "call"), [
    (Design("proportion", unit="texts"), lambda d: infer(d, _ZERO_ONE, null=0.5)),
    (Design("proportion", unit="texts", clusters="templates"),
     lambda d: infer(d, _ZERO_ONE, _CLUSTERS, null=0.5)),
    (Design("mean", unit="texts", clusters="templates"),
     lambda d: infer(d, _VALUES, _CLUSTERS, null=0.0)),
    (Design("mean", unit="word pairs", paired="pair order"),
     lambda d: infer(d, _VALUES, null=0.0)),
    (Design("mean", unit="texts"), lambda d: infer(d, _VALUES, null=0.0, n_resamples=500)),
    (Design("median", unit="texts"), lambda d: infer(d, _VALUES, n_resamples=500)),
    (Design("effect-size", unit="words"), lambda d: infer(d, _VALUES, groups=_GROUPS)),
    (Design("effect-size", unit="sentences", clusters="source words"),
     lambda d: infer(d, _VALUES, _CLUSTERS, groups=_GROUPS)),
    (Design("ratio", unit="answers", clusters="questions"),
     lambda d: infer_totals(d, np.c_[_CLUSTERS % 3 + 1, _CLUSTERS % 4 + 2].astype(float),
                            lambda t: t[:, 0] / t[:, 1], null=0.5)),
])
def test_the_sentence_names_what_infer_does(design: Design,
                                             call: Callable[[Design], Inference]) -> None:
    """describe(design) names the interval method infer reports, and the test it runs
    given a null value (or says there is none)."""
    res = call(design)
    text = describe(design).lower()
    assert res.ci.method.lower() in text, (res.ci.method, text)
    assert (design.clusters or design.unit) in text
    if res.test is None:
        assert "test: none" in text or "no test" in text
    else:
        assert res.test_name.split(" of ")[0].replace(" (exact)", "") in text, res.test_name


def test_declared_designs_are_the_ones_the_measures_pass_to_infer() -> None:
    """The sentence is generated from the declaration; the numbers come from the design
    the measure code passes to ``infer`` (it may not import the catalog): the two agree."""
    import importlib

    found = declarations()
    for name, module in (("probe", "probe"), ("counterfactual", "counterfactual"),
                         ("ripa", "embedding_metrics.ripa")):
        measure = importlib.import_module(f"genderscope.measures.{module}")
        assert found[name].design == measure.DESIGN, name
