"""BiasAmp-> (Wang & Russakovsky 2021, "Directional Bias Amplification", ICML, eq. 2):
worked examples computed by hand from the paper's definitions, the corpus form in both
directions, and its option on the two-corpus measure (off by default: earlier runs and
their keys are unchanged)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import genderscope as gs
from genderscope.measures.amplification import bias_amplification
from genderscope.measures.amplification_directional import (
    directional_amplification,
    directional_from_counts,
)

GW = {"man": ["man"], "woman": ["woman"]}

# eight instances: attribute (man, woman) and one task t
A_TRUE = np.array([[1, 0]] * 4 + [[0, 1]] * 4)
T_TRUE = np.array([[1], [1], [1], [0], [1], [0], [0], [0]])


def test_worked_example_attribute_to_task() -> None:
    """P(man) = P(t) = .5, P(man, t) = 3/8 > 1/4: y_man = 1; P(woman, t) = 1/8: y_woman = 0.
    The model predicts t for every man and no woman: D_man = 1 - 3/4 = .25, D_woman =
    0 - 1/4 = -.25; terms .25 and -(-.25) = .25; BiasAmp A->T = .25."""
    t_pred = np.array([[1]] * 4 + [[0]] * 4)
    value, terms = directional_amplification(A_TRUE, T_TRUE, A_TRUE, t_pred, direction="A->T")
    np.testing.assert_allclose(terms, [[0.25], [0.25]])
    assert value == pytest.approx(0.25)


def test_worked_example_task_to_attribute() -> None:
    """The instances with t are 1, 2, 3 (men) and 5 (a woman): P(man | t) = .75. The model
    calls all four men: D_man = 1 - .75 = .25, D_woman = 0 - .25 = -.25: BiasAmp T->A = .25.
    Calling them all women instead: D_man = -.75 (y = 1: -.75), D_woman = +.75 (y = 0:
    -.75): -.75, the same size of change towards the under-represented group counts
    against amplification."""
    a_pred = np.array([[1, 0]] * 5 + [[0, 1]] * 3)
    value, _ = directional_amplification(A_TRUE, T_TRUE, a_pred, T_TRUE, direction="T->A")
    assert value == pytest.approx(0.25)
    flipped = np.array([[0, 1]] * 8)
    value, terms = directional_amplification(A_TRUE, T_TRUE, flipped, T_TRUE,
                                             direction="T->A")
    np.testing.assert_allclose(terms, [[-0.75], [-0.75]])
    assert value == pytest.approx(-0.75)


def test_perfect_predictions_amplify_nothing() -> None:
    for d in ("A->T", "T->A"):
        assert directional_amplification(A_TRUE, T_TRUE, A_TRUE, T_TRUE, direction=d)[0] == 0.0
    with pytest.raises(ValueError, match="direction"):
        directional_amplification(A_TRUE, T_TRUE, A_TRUE, T_TRUE, direction="both")


TRAIN = ["man cooking"] + ["woman cooking"] * 3 + ["man ball"] * 3 + ["woman ball"]
GENERATED = ["woman cooking"] * 4 + ["man ball"] * 2 + ["woman ball"] * 2 + ["man running"] * 2


def test_corpus_form_by_hand() -> None:
    """Training: cooking 1 man / 3 women, ball 3 / 1, n* = (4, 4); y: cooking-woman and
    ball-man. Output: cooking 0 / 4, ball 2 / 2, n~ = (4, 6).
    T->A: cooking D = (-.25, +.25) -> (.25 + .25) / 2 = .25; ball D = (-.25, +.25) ->
    (-.25 - .25) / 2 = -.25; mean 0.
    A->T: cooking D_man = 0/4 - 1/4 (y 0: +.25), D_woman = 4/6 - 3/4 (y 1: -1/12) -> 1/12;
    ball D_man = 2/4 - 3/4 (y 1: -.25), D_woman = 2/6 - 1/4 (y 0: -1/12) -> -1/6;
    mean -1/24. Zhao: +.25 - .25 = 0."""
    c_train = np.array([[1, 3], [3, 1]])
    c_out = np.array([[0, 4], [2, 2]])
    n_train, n_out = np.array([4, 4]), np.array([4, 6])
    t2a = directional_from_counts(c_train, c_out, n_train, n_out, direction="T->A")
    a2t = directional_from_counts(c_train, c_out, n_train, n_out, direction="A->T")
    np.testing.assert_allclose(t2a, [0.25, -0.25])
    np.testing.assert_allclose(a2t, [1 / 12, -1 / 6])
    res = bias_amplification(TRAIN, GENERATED, ["cooking", "ball"], GW, n_resamples=200,
                             directional=True)
    s = res.summary
    assert s["biasamp_t_to_a"]["estimate"] == pytest.approx(0.0)
    assert s["biasamp_a_to_t"]["estimate"] == pytest.approx(-1 / 24)
    assert s["biasamp_a_to_t"]["direction"] == "A->T"
    assert s["mean_bias_amplification"]["estimate"] == pytest.approx(0.0)
    assert s["group_totals"] == {"training": [4, 4], "output": [4, 6]}
    items = res.items.set_index("object")
    assert items.loc["cooking", "biasamp_a_to_t"] == pytest.approx(1 / 12)


def test_corpus_form_matches_the_instance_form_on_one_corpus() -> None:
    """With the training captions as the output, both forms give 0, and the corpus form's
    y agrees with the instance definition on the training captions."""
    res = bias_amplification(TRAIN, TRAIN, ["cooking", "ball"], GW, n_resamples=200,
                             directional=True)
    assert res.summary["biasamp_t_to_a"]["estimate"] == 0.0
    assert res.summary["biasamp_a_to_t"]["estimate"] == 0.0


def test_off_by_default_and_keyed_when_on(tmp_path: Path) -> None:
    (tmp_path / "train.txt").write_text("\n".join(TRAIN) + "\n")
    (tmp_path / "gen.txt").write_text("\n".join(GENERATED) + "\n")
    (tmp_path / "objects.txt").write_text("cooking\nball\n")
    kw = {"train": tmp_path / "train.txt", "generated": tmp_path / "gen.txt",
          "objects": tmp_path / "objects.txt", "store": tmp_path / "s.sqlite"}
    plain = gs.run("bias-amplification", None, **kw)
    assert "biasamp_t_to_a" not in plain.summary and "biasamp_t_to_a" not in plain.items
    both = gs.run("bias-amplification", None, directional=True, **kw)
    assert both.metadata.get("reused") is not True
    assert both.summary["biasamp_a_to_t"]["estimate"] == pytest.approx(-1 / 24)
    assert both.metadata["cache_key"] != plain.metadata["cache_key"]
