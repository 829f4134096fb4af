"""probe(): Kurita's bias score on a template, masked and causal, both slot orders."""

from __future__ import annotations

import numpy as np
import pytest

from genderscope.errors import GenderscopeError
from genderscope.measures.probe import probe
from genderscope.models.base import FillQuery


@pytest.mark.slow
def test_masked_definitions_and_order(tiny_bert) -> None:
    for template in ("GGG is a XXX.", "XXX is what GGG is."):
        res = probe(tiny_bert, template, ("he", "she"),
                    ["nurse", "housemaid", "good at programming"])
        items = res.items
        assert np.all(np.isfinite(items[["fill_bias", "prior_bias", "target_fill_bias"]]))
        # prior read from the GGG mask with the target masked, whatever the order
        gslot = template.replace("GGG", "{target}")
        for _, row in items.iterrows():
            t = row["target"]
            pri = tiny_bert.fill_logprobs([FillQuery(gslot.replace("XXX", f"[[{t}]]"), "he"),
                                           FillQuery(gslot.replace("XXX", f"[[{t}]]"), "she")])
            assert row["prior_bias"] == pytest.approx(pri[0] - pri[1], abs=1e-9)
            assert row["corrected_bias"] == pytest.approx(row["fill_bias"] - row["prior_bias"])
            tf = tiny_bert.fill_logprobs(
                [FillQuery(template.replace("GGG", g).replace("XXX", "{target}"), t)
                 for g in ("he", "she")])
            assert row["target_fill_bias"] == pytest.approx(tf[0] - tf[1], abs=1e-9)
    assert set(res.summary["corrected_bias"]) >= {"estimate", "ci_low", "ci_high"}


def test_prior_depends_on_masked_target_length(tiny_bert) -> None:
    res = probe(tiny_bert, "GGG is a XXX.", ("he", "she"), ["nurse", "housemaid"])
    # 'housemaid' is two pieces: its prior frame has two masks, so the priors differ
    assert res.items["prior_bias"].iloc[0] != res.items["prior_bias"].iloc[1]


def test_causal_definitions(tiny_gpt2) -> None:
    res = probe(tiny_gpt2, "GGG is a XXX.", ("he", "she"), ["nurse", "kindergarten teacher"])
    ll = tiny_gpt2.log_likelihood(["he is a nurse.", "she is a nurse.", "he is a", "she is a"])
    row = res.items.iloc[0]
    assert row["fill_bias"] == pytest.approx(ll[0].total - ll[1].total, abs=1e-5)
    # gender first: the prior is the prefix's likelihood (the marginal over all targets)
    assert row["prior_bias"] == pytest.approx(ll[2].total - ll[3].total, abs=1e-5)
    cont = tiny_gpt2.continuation_logprob([("he is a", " nurse."), ("she is a", " nurse.")])
    assert row["target_fill_bias"] == pytest.approx(cont[0] - cont[1], abs=1e-5)
    # chain rule: F = P + T, so the corrected bias equals the target-fill bias
    assert np.allclose(res.items["corrected_bias"], res.items["target_fill_bias"], atol=1e-4)


def test_causal_target_first(tiny_gpt2) -> None:
    res = probe(tiny_gpt2, "XXX is what GGG does.", ("he", "she"), ["nursing"])
    ll = tiny_gpt2.log_likelihood(["nursing is what he does.", "nursing is what she does.",
                                   "is what he does.", "is what she does."])
    row = res.items.iloc[0]
    assert row["fill_bias"] == pytest.approx(ll[0].total - ll[1].total, abs=1e-9)
    # target first: no marginal to read, the frame with the target deleted is the prior
    assert row["prior_bias"] == pytest.approx(ll[2].total - ll[3].total, abs=1e-9)
    assert row["target_fill_bias"] == pytest.approx(row["fill_bias"])


@pytest.mark.parametrize("template, match", [("he is a XXX.", "GGG"), ("GGG is a nurse.", "XXX"),
                                             ("GGG GGG XXX", "exactly once")])
def test_bad_templates(tiny_bert, template: str, match: str) -> None:
    with pytest.raises(GenderscopeError, match=match):
        probe(tiny_bert, template, ("he", "she"), ["nurse"])


def test_bad_words(tiny_bert) -> None:
    with pytest.raises(GenderscopeError, match="empty target"):
        probe(tiny_bert, "GGG is a XXX.", ("he", "she"), ["nurse", " "])
    with pytest.raises(GenderscopeError, match="two different"):
        probe(tiny_bert, "GGG is a XXX.", ("he", "He"), ["nurse"])


@pytest.mark.slow
def test_smollm2_probe_has_meaning(smollm2) -> None:
    """A real model: 'nurse' leans female and 'mechanic' male after prior correction."""
    res = probe(smollm2, "GGG is a XXX.", ("He", "She"), ["nurse", "mechanic"])
    nurse, mechanic = res.items["corrected_bias"]
    assert nurse < 0 < mechanic
