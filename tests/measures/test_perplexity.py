"""``perplexity``: held-out perplexity, its CI, and compare between a model and its
debiased folder."""

from __future__ import annotations

import math

import numpy as np
import pytest

import genderscope as gs

SENTENCES = [f"the {w} said that the work was done well today ." for w in (
    "nurse", "doctor", "teacher", "engineer", "mechanic", "secretary", "farmer", "baker",
    "driver", "writer", "painter", "singer", "dancer", "lawyer")]


@pytest.fixture()
def corpus(tmp_path):
    f = tmp_path / "held_out.txt"
    f.write_text("\n".join(s.capitalize() for s in SENTENCES) + "\n", encoding="utf-8")
    return str(f)


def test_perplexity_matches_log_likelihoods(tiny_gpt2_dir, tmp_path, corpus):
    from genderscope.engine import plan_of
    from genderscope.models.loading import load_lm

    lm = load_lm(tiny_gpt2_dir)
    r = gs.run("perplexity", model=lm, corpus=corpus, limit=12, subset_seed=1,
               store=tmp_path / "s.sqlite")
    sents = list(r.items["sentence"])
    assert len(sents) == 12 and all(len(s.split()) >= 6 for s in sents)
    scores = load_lm(tiny_gpt2_dir).log_likelihood(sents)
    want = math.exp(-sum(s.total for s in scores) / sum(s.n_tokens for s in scores))
    ci = r.summary["perplexity"]
    assert ci["estimate"] == pytest.approx(want, rel=1e-9)
    assert ci["ci_low"] < want < ci["ci_high"]
    assert r.metadata["params"]["from_document"] == 0
    # default held-out text: GAP's validation split, never read by debias --limit <= 4000
    plan, _ = plan_of("perplexity", {"limit": 5})
    assert plan.inputs[1]["from_document"] == 4000 and len(plan.inputs[0]) == 5
    assert np.allclose(r.items["nll_per_token"],
                       [-s.total / s.n_tokens for s in scores])


def test_perplexity_of_a_masked_lm_is_pseudo_perplexity(tiny_bert, tmp_path, corpus):
    r = gs.run("perplexity", model=tiny_bert, corpus=corpus, limit=3,
               store=tmp_path / "s.sqlite")
    assert "pseudo-perplexity" in r.summary and r.summary["n_sentences"] == 3


@pytest.mark.slow
def test_compare_perplexity_before_after_self_debias(tiny_gpt2_dir, tmp_path, corpus):
    from genderscope.lm_debias.estimate import debias_lm

    debias_lm("self-debias", tiny_gpt2_dir, tmp_path / "sd", prefixes=["sexist: "])
    store = tmp_path / "s.sqlite"
    before = gs.run("perplexity", model=str(tiny_gpt2_dir), corpus=corpus, limit=10,
                    store=store)
    after = gs.run("perplexity", model=str(tmp_path / "sd"), corpus=corpus, limit=10,
                   store=store)
    cmp = gs.compare(before, after, store=store)
    row = cmp.tables["change_by_group"].iloc[-1]
    diff = after.items["nll_per_token"] - before.items["nll_per_token"]
    assert row["change"] == pytest.approx(float(diff.mean()))
    assert row["p_value"] == row["p_value"]  # a paired test ran


def test_perplexity_bad_input(tmp_path):
    from genderscope.errors import GenderscopeError

    f = tmp_path / "short.txt"
    f.write_text("Too short.\n", encoding="utf-8")
    with pytest.raises(GenderscopeError, match="no sentence"):
        gs.run("perplexity", model="unused", corpus=str(f))
    with pytest.raises(GenderscopeError, match="none from"):
        gs.run("perplexity", model="unused", corpus=str(f), from_document=5)
