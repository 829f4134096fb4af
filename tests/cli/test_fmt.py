"""The CLI's one number format (issue 35): :func:`genderscope.cli.common.fmt` and
:func:`~genderscope.cli.common.ci_text` print what the commands' own copies printed
(BEC-Pro's small numbers in scientific notation, the robustness tables' ``n/a``, the
vector-debias table's signs)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from genderscope.cli.commands.robustness import counterfactual_tables
from genderscope.cli.common import ci_text, console, fmt, p_text
from genderscope.results import Result

NAN = math.nan


@pytest.mark.parametrize(("value", "how", "shown"), [
    (0.12345, {}, "0.123"), (2, {}, "2.000"), ("gender", {}, "gender"), (None, {}, "None"),
    (NAN, {}, "nan"), (0.12345, {"nd": 1}, "0.1"), (0.00004, {}, "0.000"),
    (0.00004, {"small": "e"}, "4.0e-05"), (-0.0004, {"small": "e"}, "-4.0e-04"),
    (0.0, {"small": "e"}, "0.000"), (0.002, {"small": "e"}, "0.002"),
    (0.004, {"nd": 2, "small": "e"}, "4.0e-03"), (NAN, {"small": "e"}, "nan"),
    (0.000123456, {"small": "g"}, "0.000123"), (0.5, {"sign": True}, "+0.500"),
    (-0.5, {"sign": True}, "-0.500"), (None, {"missing": "n/a"}, "n/a"),
    (NAN, {"missing": "n/a"}, "n/a"), (1, {"missing": "n/a"}, "1.000"),
])
def test_fmt(value: object, how: dict, shown: str) -> None:
    nd = how.pop("nd", 3)
    assert fmt(value, nd, **how) == shown


def test_ci_text() -> None:
    e = {"estimate": 0.25, "ci_low": -0.125, "ci_high": NAN}
    assert ci_text(e) == "0.250 [-0.125, nan]"
    assert ci_text(e, 1) == "0.2 [-0.1, nan]"
    assert ci_text(e, sign=True) == "+0.250 [-0.125, +nan]"
    assert ci_text(e, missing="n/a") == "0.250 [-0.125, n/a]"
    assert ci_text({"estimate": NAN, "ci_low": 0.0, "ci_high": 1.0}) == "nan [0.000, 1.000]"
    assert ci_text({"estimate": NAN, "ci_low": 0.0, "ci_high": 1.0}, missing="n/a") == "n/a"
    assert ci_text({"estimate": None}) == "n/a" and ci_text(None) == "-"


def test_the_counterfactual_table_shows_n_a_for_an_empty_group() -> None:
    """A swap direction no text had: NaN rate, None bounds (as the store reads NaN back)."""
    empty = {"n": 0, "flip_rate": {"estimate": NAN, "ci_low": None, "ci_high": None},
             "mean_abs_delta": {"estimate": NAN, "ci_low": None, "ci_high": None},
             "max_abs_delta": None}
    full = {"n": 3, "flip_rate": {"estimate": 1 / 3, "ci_low": 0.06, "ci_high": 0.79},
            "mean_abs_delta": {"estimate": 0.2, "ci_low": 0.1, "ci_high": None},
            "max_abs_delta": 0.45}
    summary = {"n_swapped": 3, "n_texts": 4, "all": full, "m2f": full, "f2m": empty,
               "mixed": empty, "m2f_minus_f2m": {"flip_rate": empty["flip_rate"],
                                                  "mean_abs_delta": empty["mean_abs_delta"]}}
    with console.capture() as printed:
        for t in counterfactual_tables(Result("counterfactual", summary, pd.DataFrame())):
            console.print(t)
    text = printed.get()
    assert "0.333 [0.060, 0.790]" in text and "0.200 [0.100, n/a]" in text
    assert "0.450" in text and "nan" not in text and text.count("n/a") >= 8


@pytest.mark.parametrize(("value", "shown"), [
    (0.012345, "0.012"), (1.0, "1"), (3e-7, "3e-07"), (None, "–"), (NAN, "–"), ("x", "–"),
])
def test_p_text(value: object, shown: str) -> None:
    """The p-values of the BEC-Pro, LPBS and pronoun tables: two significant digits, a
    dash where there is none (BEC-Pro's copy printed ``None`` and ``nan``)."""
    assert p_text(value) == shown
