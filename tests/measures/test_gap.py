"""GAP (catalog/gap.py), the measure added as one module: substitution, F1 by pronoun
gender and the bias ratio by hand on a fake LM, and the conformance suite."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_lm import FakeCausal, words

import genderscope as gs
from genderscope.catalog.gap import GapExample, load_gap
from genderscope.core.registry import get
from genderscope.stats.design_words import statistics_of
from genderscope.testing import check_measure


def _example(pronoun: str, text: str = "Ann met Bo and {} smiled.") -> GapExample:
    t = text.format(pronoun)
    return GapExample("x", t, pronoun, t.index(pronoun), "Ann", True, "Bo", False)


def test_substitution_reads_each_pronoun_as_its_case() -> None:
    assert _example("she").with_name("Ann") == ["Ann met Bo and Ann smiled."]
    assert _example("his").with_name("Bo") == ["Ann met Bo and Bo's smiled."]
    assert _example("her").with_name("Bo") == ["Ann met Bo and Bo smiled.",
                                               "Ann met Bo and Bo's smiled."]


def _f1(rows: list[tuple[bool, bool, bool, bool]]) -> float:
    tp = fp = fn = 0
    for pick_a, a_coref, pick_b, b_coref in rows:
        for pred, gold in ((pick_a, a_coref), (pick_b, b_coref)):
            tp += pred and gold
            fp += pred and not gold
            fn += gold and not pred
    return 2 * tp / (2 * tp + fp + fn)


def test_f1_by_gender_and_the_bias_ratio_by_hand(data_dir: Path, tmp_path: Path) -> None:
    """The fake LM scores every word -3 (a few names better), so the shorter name wins;
    the picks and F1s are recomputed here from the data alone."""
    lm = FakeCausal({"john": -1.0, "mary": -1.0})
    every = load_gap(data_dir / "gap", "development")
    r = gs.run("gap", model=lm, split="development", limit=120, subset_seed=2,
               resamples=300, data=data_dir, store=tmp_path / "s.sqlite")
    items = r.items.set_index("id")
    by_gender: dict[str, list[tuple[bool, bool, bool, bool]]] = {"F": [], "M": []}
    for ex in every:
        if ex.id not in items.index:
            continue
        sa, sb = (max(sum(lm.lp(w) for w in words(t)) for t in ex.with_name(n))
                  for n in (ex.a, ex.b))
        assert items.loc[ex.id, "score_a"] == pytest.approx(sa)
        by_gender[ex.gender].append((sa >= sb, ex.a_coref, sa < sb, ex.b_coref))
    assert len(items) == 120 and r.summary["n_feminine"] == len(by_gender["F"])
    f, m = _f1(by_gender["F"]), _f1(by_gender["M"])
    assert r.summary["f1_feminine"]["estimate"] == pytest.approx(f)
    assert r.summary["f1_masculine"]["estimate"] == pytest.approx(m)
    assert r.summary["f1"]["estimate"] == pytest.approx(_f1(by_gender["F"] + by_gender["M"]))
    ratio = r.summary["bias_f_over_m"]
    assert ratio["estimate"] == pytest.approx(f / m)
    assert ratio["ci_low"] < ratio["estimate"] < ratio["ci_high"]
    assert ratio["ci_unit"] == "examples"
    # the declared sentence names the interval every F1 and the ratio store
    sentence = statistics_of(get("gap")).lower()
    for key in ("f1", "f1_feminine", "f1_masculine", "bias_f_over_m"):
        assert r.summary[key]["method"] in sentence, (key, r.summary[key]["method"])


def test_gap_passes_the_conformance_suite(data_dir: Path) -> None:
    """Declaration, strictness, CLI flags, and reuse (on the fake LM: GAP's passages are
    longer than the tiny test models' 128 positions)."""
    assert check_measure("gap", example={"model": FakeCausal(), "options": {
        "limit": 4, "resamples": 200, "data": data_dir}}) == \
        ["declared", "strict-api", "cli", "reuse"]
