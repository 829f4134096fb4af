"""Our swaps of GAP against Bartl et al.'s published flipped GAP."""

from __future__ import annotations

import pytest

from genderscope.swap import GenderSwapper
from genderscope.swap.fidelity import compare_swaps, gap_fidelity


@pytest.fixture(scope="module")
def fidelity(data_dir):
    return gap_fidelity(data_dir, GenderSwapper(tagger="heuristic"))


def test_gap_pronoun_and_word_agreement_floor(fidelity):
    assert fidelity.n_docs == 4454
    assert fidelity.n_compared >= 4400
    assert fidelity.category("pronoun")["agreement"] >= 0.95
    assert fidelity.category("her")["agreement"] >= 0.93
    assert fidelity.category("gendered word")["agreement"] >= 0.85
    assert fidelity.category("name")["change_agreement"] >= 0.6
    assert fidelity.token_agreement >= 0.94


def test_compare_swaps_counts():
    sw = GenderSwapper(names=False, tagger="heuristic")
    originals = [("a", "He saw her."), ("b", "The man left."), ("c", "no ref")]
    refs = {"a": "She saw his.", "b": "The man left."}
    f = compare_swaps(originals, refs, sw)
    assert f.n_docs == 2 and f.n_compared == 2
    her = f.category("her")
    assert her["either_changed"] == 1 and her["exact"] == 0  # we say "him", ref "his"
    word = f.category("gendered word")
    assert word["ours_changed"] == 1 and word["ref_changed"] == 0 and word["agreement"] == 0
    pron = f.category("pronoun")
    assert pron["agreement"] == 1.0
