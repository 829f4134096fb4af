"""Kurita et al. (2019) LPBS: per-item arithmetic on fake adapters, pooled WEAT-style
effect size and permutation test, causal definitions, CLI, real tiny models."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from genderscope.datasets.templates import AttributeSet, LpbsTest, TargetSets, Template
from genderscope.measures import lpbs
from genderscope.models.base import FillQuery, SeqScore

MALE = {"he", "him", "boys", "men"}
CAREER = {"executive", "salary", "office"}


def _noise(text: str) -> float:
    return (zlib.crc32(text.encode()) % 1000) / 1000.0


class FakeMasked:
    """log P = noise(template, candidate) + 0.8 when a male word fills a template
    showing a career word (the attribute visible)."""

    kind = "masked"
    fingerprint = "fake"

    def __init__(self) -> None:
        self.queries: list[FillQuery] = []
        self.span_masking: list[str] = []

    def describe(self) -> dict[str, str]:
        return {"fingerprint": "fake"}

    def score(self, q: FillQuery) -> float:
        visible = "[[" not in q.template and any(w in q.template for w in CAREER)
        return -3.0 - _noise(q.template + q.candidate) + (0.8 if visible and
                                                          q.candidate in MALE else 0.0)

    def fill_logprobs(self, queries: Sequence[FillQuery], *, strategy: str = "l2r",
                      span_masking: str = "piece", progress: bool = False) -> np.ndarray:
        self.queries += list(queries)
        self.span_masking.append(span_masking)
        return np.array([self.score(q) for q in queries])


class FakeCausal:
    kind = "causal"
    fingerprint = "fake-causal"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def describe(self) -> dict[str, str]:
        return {"fingerprint": "fake-causal"}

    def ll(self, text: str) -> float:
        first = text.split()[0]
        return -10.0 - 2 * _noise(text) + (1.0 if first in MALE and
                                           any(w in text for w in CAREER) else 0.0)

    def log_likelihood(self, texts: Sequence[str], *, progress: bool = False) -> list[SeqScore]:
        self.texts += list(texts)
        return [SeqScore(self.ll(t), 4) for t in texts]


T1 = Template("GGG likes XXX.", TargetSets(("he",), ("she",)))
T2 = Template("GGG like XXX.", TargetSets(("boys", "men"), ("girls", "women")))
T3 = Template("the XXX belongs to GGG.", TargetSets(("him",), ("her",)))
TEST = LpbsTest("toy", (T1, T2, T3), AttributeSet("career", ("executive", "salary", "office")),
                AttributeSet("family", ("home", "wedding", "parents")))


def test_item_scores_match_kurita_definition() -> None:
    fake = FakeMasked()
    items = lpbs.item_scores(fake, [T1, T2, T3], ["salary", "home"], span_masking="word")
    assert fake.span_masking == ["word"]
    lp = fake.score
    row = items[(items.template_index == 1) & (items.attribute == "salary")].iloc[0]
    fm = math.log(math.exp(lp(FillQuery("{target} like salary.", "boys")))
                  + math.exp(lp(FillQuery("{target} like salary.", "men"))))
    ff = math.log(math.exp(lp(FillQuery("{target} like salary.", "girls")))
                  + math.exp(lp(FillQuery("{target} like salary.", "women"))))
    pm = math.log(math.exp(lp(FillQuery("{target} like [[salary]].", "boys")))
                  + math.exp(lp(FillQuery("{target} like [[salary]].", "men"))))
    pf = math.log(math.exp(lp(FillQuery("{target} like [[salary]].", "girls")))
                  + math.exp(lp(FillQuery("{target} like [[salary]].", "women"))))
    assert row.bias == pytest.approx(fm - ff)
    assert row.prior == pytest.approx(pm - pf)
    assert row.lpbs == pytest.approx((fm - ff) - (pm - pf))
    # attribute first: the prior still reads the gender slot ({target}), never the other mask
    row = items[(items.template_index == 2) & (items.attribute == "home")].iloc[0]
    want = (lp(FillQuery("the home belongs to {target}.", "him"))
            - lp(FillQuery("the home belongs to {target}.", "her"))
            - lp(FillQuery("the [[home]] belongs to {target}.", "him"))
            + lp(FillQuery("the [[home]] belongs to {target}.", "her")))
    assert row.lpbs == pytest.approx(want)


def test_word_level_effect_size_and_permutation() -> None:
    res = lpbs.run(FakeMasked(), TEST, n_permutations=2000, n_resamples=300, seed=3)
    items = res.items
    assert len(items) == 18 and set(items.set) == {"career", "family"}
    # one value per attribute word: its mean lpbs over the 3 templates
    wm = items.groupby(["set", "attribute"])["lpbs"].mean()
    x, y = wm["career"].to_numpy(), wm["family"].to_numpy()
    d = (x.mean() - y.mean()) / np.concatenate([x, y]).std(ddof=1)
    assert res.summary["effect_size"] == pytest.approx(d)
    assert res.summary["effect_size"] > 1.0  # planted male-career association
    perm = res.summary["permutation"]
    # words, not items, are re-partitioned: C(6, 3) = 20 partitions
    assert perm["exact"] and perm["n_permutations"] == math.comb(6, 3)
    assert perm["n_x"] == 3 and res.summary["test_unit"] == "words"
    assert res.summary["p_one_sided"] == pytest.approx(1 / 20)
    assert 0 < res.summary["p_two_sided"] <= 1
    by_t = res.tables["by_template"]
    assert list(by_t.template) == [T1.text, T2.text, T3.text]
    assert (by_t.effect_size > 0).all()
    assert (by_t.p_adjusted >= by_t.p_value).all() and set(by_t.p_adjust_method) == {"holm"}
    assert set(by_t.family) == {"lpbs per template"}
    mean = res.summary["mean_lpbs"]["career"]
    assert mean["estimate"] == pytest.approx(x.mean())
    assert mean["ci_unit"] == "words" and mean["n"] == 3  # bootstrap over the 3 words
    assert res.metadata["params"]["test"]["name"] == "toy"
    assert len(res.tables["by_word"]) == 6


def test_pooled_items_only_on_request() -> None:
    res = lpbs.run(FakeMasked(), TEST, n_permutations=2000, n_resamples=300, seed=3,
                   aggregation="pooled-items")
    items = res.items
    x = items.loc[items.set == "career", "lpbs"].to_numpy()
    y = items.loc[items.set == "family", "lpbs"].to_numpy()
    d = (x.mean() - y.mean()) / np.concatenate([x, y]).std(ddof=1)
    assert res.summary["effect_size"] == pytest.approx(d)
    assert res.summary["permutation"]["n_permutations"] == math.comb(18, 9)
    assert res.summary["mean_lpbs"]["career"]["ci_unit"] == "items"
    assert "anti-conservative" in res.summary["aggregation"]
    with pytest.raises(lpbs.GenderscopeError, match="aggregation"):
        lpbs.run(FakeMasked(), TEST, aggregation="items")


def test_attribute_word_in_both_sets_refused(tmp_path) -> None:
    bad = LpbsTest("bad", (T1,), AttributeSet("career", ("office", "salary")),
                   AttributeSet("family", ("home", "office")))
    with pytest.raises(lpbs.GenderscopeError, match="both sets.*office"):
        lpbs.run(FakeMasked(), bad)
    from genderscope.datasets.templates import load_tests
    from genderscope.errors import DataError
    f = tmp_path / "t.yaml"
    f.write_text("tests:\n  t:\n    targets: {male: [he], female: [she]}\n"
                 "    templates: ['GGG likes XXX.']\n"
                 "    attributes: {a: [office, home], b: [office, wedding]}\n")
    with pytest.raises(DataError, match="both attribute sets"):
        load_tests(f)


def test_random_permutations_when_exact_is_infeasible() -> None:
    words_x = tuple(f"x{i}" for i in range(25))
    words_y = tuple(f"y{i}" for i in range(25))
    big = LpbsTest("big", (T1,), AttributeSet("X", words_x), AttributeSet("Y", words_y))
    res = lpbs.run(FakeMasked(), big, n_permutations=500, n_resamples=200, seed=0)
    perm = res.summary["permutation"]
    assert not perm["exact"] and perm["n_permutations"] == 500
    again = lpbs.run(FakeMasked(), big, n_permutations=500, n_resamples=200, seed=0)
    assert again.summary["p_two_sided"] == res.summary["p_two_sided"]


def test_causal_definitions() -> None:
    fake = FakeCausal()
    items = lpbs.item_scores(fake, [T1, T2], ["salary", "home"])
    # the prior reads the prefix up to the attribute (the marginal over attributes)
    assert "he likes" in fake.texts and "boys like" in fake.texts
    assert "he likes." not in fake.texts
    ll = fake.ll
    row = items[(items.template_index == 1) & (items.attribute == "salary")].iloc[0]
    fill = np.logaddexp(ll("boys like salary."), ll("men like salary.")) - np.logaddexp(
        ll("girls like salary."), ll("women like salary."))
    prior = np.logaddexp(ll("boys like"), ll("men like")) - np.logaddexp(
        ll("girls like"), ll("women like"))
    assert row.bias == pytest.approx(fill) and row.prior == pytest.approx(prior)
    assert row.lpbs == pytest.approx(fill - prior)
    res = lpbs.run(FakeCausal(), TEST, n_permutations=1000, n_resamples=200)
    assert res.summary["effect_size"] > 0 and "strategy" not in res.metadata["params"]


def test_errors() -> None:
    with pytest.raises(lpbs.GenderscopeError, match="no templates"):
        lpbs.item_scores(FakeMasked(), [], ["a"])
    with pytest.raises(lpbs.GenderscopeError, match="no attribute words"):
        lpbs.item_scores(FakeMasked(), [T1], [])

    class Vectors:
        kind = "vectors"

    with pytest.raises(lpbs.GenderscopeError, match="masked or causal"):
        lpbs.item_scores(Vectors(), [T1], ["a"])
