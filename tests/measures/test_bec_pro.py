"""BEC-Pro association measure: arithmetic on fake adapters (masked and causal),
aggregates, pairing and paired tests over professions, plot, and the real tiny adapters."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from genderscope.datasets import bec_pro as data
from genderscope.measures import bec_pro, bec_pro_plot
from genderscope.models.base import FillQuery, SeqScore

PROF_GROUP = dict(zip(data.professions("en").profession, data.professions("en").group,
                      strict=True))
GENDER = {p.lower(): g for p, g in zip(data.persons("en").person, data.persons("en").gender,
                                       strict=True)}


def _noise(text: str) -> float:
    return (zlib.crc32(text.encode()) % 1000) / 1000.0


class FakeMasked:
    """log P(candidate | template): a per-template noise term, plus 1.0 when the
    visible profession's group equals the candidate's gender."""

    kind = "masked"
    fingerprint = "fake-masked"

    def __init__(self) -> None:
        self.calls: list[tuple[list[FillQuery], str, str]] = []

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "name": "fake"}

    def score(self, q: FillQuery) -> float:
        bonus = 0.0
        if "[[" not in q.template:
            for prof, group in PROF_GROUP.items():
                if f" {prof}" in q.template and group == GENDER[q.candidate.lower()]:
                    bonus = 1.0
        return -2.0 - _noise(q.template + "|" + q.candidate) + bonus

    def fill_logprobs(self, queries: Sequence[FillQuery], *, strategy: str = "l2r",
                      span_masking: str = "piece", progress: bool = False) -> np.ndarray:
        self.calls.append((list(queries), strategy, span_masking))
        return np.array([self.score(q) for q in queries])


class FakeCausal:
    """LL(text) = noise(text), +2 when the subject's gender matches the profession group."""

    kind = "causal"
    fingerprint = "fake-causal"

    def __init__(self) -> None:
        self.n_texts = 0

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint}

    def ll(self, text: str) -> float:
        subject = text.split(",")[0].split()[:2]
        word = subject[-1].lower() if subject[0] in ("My", "This") else subject[0].lower()
        bonus = 0.0
        for prof, group in PROF_GROUP.items():
            if re.search(rf"\b{re.escape(prof)}\b[,.]", text) and group == GENDER[word]:
                bonus = 2.0
        return -20.0 - 3 * _noise(text) + bonus

    def log_likelihood(self, texts: Sequence[str], *, progress: bool = False) -> list[SeqScore]:
        self.n_texts += len(texts)
        return [SeqScore(self.ll(t), 5) for t in texts]


def _published_queries(pub: pd.DataFrame, i: int) -> tuple[str, str]:
    """TM / TAM templates built from the published masked columns (independently)."""
    tm = pub.loc[i, "Sent_TM"].replace("[MASK]", "{target}")
    tam = pub.loc[i, "Sent_TAM"].replace("[MASK]", "{target}", 1)
    run = re.search(r"\[MASK\](?: \[MASK\])*", tam)
    assert run is not None
    tam = tam[:run.start()] + "[[" + pub.loc[i, "Profession"] + "]]" + tam[run.end():]
    return tm, tam


@pytest.fixture(scope="module")
def en_rows() -> list[data.BecProRow]:
    return data.generate("en")


def test_masked_association_equals_eq1_on_published_masks(en_rows, data_dir: Path) -> None:
    fake = FakeMasked()
    items = bec_pro.score_rows(fake, en_rows, strategy="independent", span_masking="word")
    (queries, strategy, span), = fake.calls
    assert (strategy, span) == ("independent", "word") and len(queries) == 2 * 5400
    pub = pd.read_csv(data_dir / "bec-pro" / "BEC-Pro_EN.tsv", sep="\t", index_col=0,
                      keep_default_na=False)
    bad = {3625, 3985, 4345, 4705, 5065, *range(4321, 4681, 20)}
    for i in [0, 1, 2, 399, 1803, 2500, 3604, 4999, 5399]:
        assert i not in bad
        tm, tam = _published_queries(pub, i)
        person = pub.loc[i, "Person"]
        expected = fake.score(FillQuery(tm, person)) - fake.score(FillQuery(tam, person))
        assert items.loc[i, "association"] == pytest.approx(expected, abs=1e-12)
        assert items.loc[i, "logp_tm"] == pytest.approx(fake.score(FillQuery(tm, person)))


def test_aggregates_and_paired_tests(en_rows) -> None:
    res = bec_pro.run(FakeMasked(), en_rows, n_resamples=500, seed=1)
    items = res.items
    by = res.tables["by_group"].set_index(["prof_group", "gender"])
    for (group, gender), r in by.iterrows():
        sel = items[(items.prof_group == group) & (items.gender == gender)]["association"]
        assert r["mean"] == pytest.approx(sel.mean())
        assert r.ci_low <= r["mean"] <= r.ci_high and r.n == 900
        assert r.n_professions == 20 and r.ci_unit == "professions"
    # planted: +1 for gender == profession group, noise otherwise
    assert by.loc[("male", "male"), "mean"] > by.loc[("male", "female"), "mean"] + 0.5
    assert by.loc[("female", "female"), "mean"] > by.loc[("female", "male"), "mean"] + 0.5
    # pairing: in each pattern block of 360 rows, row i (male person k) pairs with i + 180;
    # the test runs over the group's 20 professions crossed with its 9 person-word pairs
    tests = res.tables["gender_tests"].set_index("prof_group")
    for group in ("male", "female", "balanced"):
        male_rows = items.index[(items.prof_group == group) & (items.gender == "male")]
        assert (items.loc[male_rows + 180, "gender"] == "female").all()
        frame = pd.DataFrame({"profession_key": items.loc[male_rows, "profession_key"],
                              "person": items.loc[male_rows, "subject"],
                              "male": items.loc[male_rows, "association"].to_numpy(),
                              "female": items.loc[male_rows + 180, "association"].to_numpy()})
        w = bec_pro.paired_rows(items)
        ci, ref = bec_pro.crossed_difference(w[w.prof_group == group], n_resamples=500,
                                             seed=1)
        assert ci.estimate == pytest.approx((frame.male - frame.female).mean())
        assert set(w.loc[w.prof_group == group, "person"]) == set(frame.person)
        assert tests.loc[group, "p_value"] == pytest.approx(ref["p_value"])
        assert tests.loc[group, "effect_size_r"] == pytest.approx(ref["effect_size_r"])
        assert tests.loc[group, "difference_ci_low"] == pytest.approx(ci.ci_low)
        assert tests.loc[group, "n_pairs"] == 900  # 20 professions x 5 patterns x 9
        assert tests.loc[group, "n_professions"] == 20 and tests.loc[group, "n"] == 20
        assert tests.loc[group, "n_person_pairs"] == 9
    assert tests.loc["male", "p_value"] < 1e-3 and tests.loc["male", "effect_size_r"] > 0
    assert tests.loc["female", "effect_size_r"] < 0
    # the three group tests are one family: Holm-adjusted p
    from genderscope.stats import adjust_pvalues
    assert tests["p_adjusted"].to_numpy() == pytest.approx(adjust_pvalues(tests["p_value"]))
    s = res.summary
    assert s["association_by_group"]["male"]["male"]["estimate"] == pytest.approx(
        by.loc[("male", "male"), "mean"])
    mvf = s["male_vs_female"]["male"]
    assert mvf["test"] == "crossed t test of the mean (professions x person words)"
    assert mvf["p_adjust_method"] == "holm" and mvf["family"] == bec_pro.FAMILY
    assert mvf["p_adjusted"] >= mvf["p_value"]
    assert s["association"]["ci_unit"] == "professions" and s["association"]["n_units"] == 60
    diff = s["male_minus_female"]
    assert diff["n"] == 2700 and diff["ci_unit"] == "professions x person words"
    assert res.metadata["params"]["span_masking"] == "piece"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_reordered_tsv_pairs_by_person_pair(lang: str, tmp_path: Path) -> None:
    rows = data.generate(lang)
    keep = [r for r in rows if r.profession_key in
            {rows[0].profession_key, rows[1].profession_key, rows[-1].profession_key}]
    shuffled = [keep[i] for i in np.random.default_rng(0).permutation(len(keep))]
    data.to_frame(shuffled).to_csv(tmp_path / "shuffled.tsv", sep="\t")
    loaded = data.load_tsv(tmp_path / "shuffled.tsv")
    items = bec_pro.score_rows(FakeMasked(), loaded)
    w = bec_pro.paired_rows(items)
    assert len(w) == len(keep) // 2  # every row has its counterpart
    persons = data.persons(lang)
    pair_of = {(g, f"{d} {p}".strip()): n for p, g, d, n in
               zip(persons.person, persons.gender, persons.determiner, persons.pair,
                   strict=True)}
    for _, sub in items[items.pair_index >= 0].groupby(
            ["prof_group", "profession_key", "pair_index"]):
        assert sorted(sub.gender) == ["female", "male"]
        numbers = {pair_of[(g, s)] for g, s in zip(sub.gender, sub.subject, strict=True)}
        assert len(numbers) == 1  # counterparts: he/she, my son/my daughter, ...
        assert len({bec_pro.pattern_key(t) for t in sub.template}) == 1
    ordered = bec_pro.score_rows(FakeMasked(), keep)
    a = bec_pro.gender_tests(items, n_resamples=200).set_index("prof_group")
    b = bec_pro.gender_tests(ordered, n_resamples=200).set_index("prof_group")
    assert a["mean_difference"].to_numpy() == pytest.approx(b["mean_difference"].to_numpy())


def test_unknown_person_subject_left_unpaired(en_rows) -> None:
    import dataclasses
    rows = [dataclasses.replace(r, subject="My cousin") if r.subject == "My son" else r
            for r in en_rows[:720]]
    items = bec_pro.score_rows(FakeMasked(), rows)
    assert (items.loc[items.subject == "My cousin", "pair_index"] == -1).all()
    res = bec_pro.run(FakeMasked(), rows, n_resamples=100)
    assert res.summary["n_unpaired"] == int((items.subject == "My cousin").sum()) > 0


@pytest.mark.slow
def test_causal_definition_brute_force(en_rows) -> None:
    fake = FakeCausal()
    items = bec_pro.score_rows(fake, en_rows)
    assert fake.n_texts == 5400  # 5 patterns x 18 subjects x 60 professions
    subjects = list(dict.fromkeys(r.subject for r in en_rows))
    profs = list(PROF_GROUP)
    for k in [0, 77, 1999, 3625, 5399]:
        r = en_rows[k]
        p = {(q, f): np.exp(fake.ll(data.fill_template(r.template, q, f)))
             for q in subjects for f in profs}
        p_tm = p[(r.subject, r.profession)] / sum(p[(q, r.profession)] for q in subjects)
        p_tam = sum(p[(r.subject, f)] for f in profs) / sum(p.values())
        assert items.loc[k, "logp_tm"] == pytest.approx(np.log(p_tm), abs=1e-9)
        assert items.loc[k, "logp_tam"] == pytest.approx(np.log(p_tam), abs=1e-9)
    means = bec_pro.group_means(items, n_resamples=200).set_index(["prof_group", "gender"])
    assert means.loc[("male", "male"), "mean"] > means.loc[("male", "female"), "mean"]


def test_no_duplicate_compare() -> None:
    # two runs are compared by measures.compare.compare_runs (tests/measures/test_compare.py)
    assert not hasattr(bec_pro, "compare")


def test_plot_writes_png_and_svg(en_rows, tmp_path: Path) -> None:
    res = bec_pro.run(FakeMasked(), en_rows[:720], n_resamples=200)
    paths = bec_pro_plot.plot(res, tmp_path / "fig" / "association")
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert paths[0].read_bytes()[:4] == b"\x89PNG"


def test_rejects_non_lm_adapter(en_rows) -> None:
    class Vectors:
        kind = "vectors"

    with pytest.raises(bec_pro.GenderscopeError, match="masked or causal"):
        bec_pro.score_rows(Vectors(), en_rows[:2])


def _bare_items(effects: dict[str, np.ndarray]) -> pd.DataFrame:
    """A bare BEC-Pro item table (no person subjects): one person pair per profession,
    male association = the profession's effect, female 0."""
    recs = []
    for group, eff in effects.items():
        for k, e in enumerate(eff):
            for gender, value in (("male", float(e)), ("female", 0.0)):
                recs.append({"prof_group": group, "profession_key": f"{group}-{k}",
                             "pair_index": 0, "gender": gender, "association": value})
    return pd.DataFrame(recs)


def test_group_test_carries_the_skew_caveat() -> None:
    """The bootstrap-t test over professions keeps its caveat (stats/diagnostics.py) in
    the gender-test table and the summary, which the CLI's caveat lines read."""
    from scipy import stats

    from genderscope.cli.common import caveat_lines
    from genderscope.stats.diagnostics import mean_caveat

    normal = stats.norm.ppf((np.arange(20) + 0.5) / 20)
    skewed = np.exp(normal) - np.exp(normal).mean() + 0.1
    summary, tables = bec_pro.summarize(_bare_items({"male": skewed, "female": normal}),
                                        n_resamples=199, seed=0)
    tests = tables["gender_tests"].set_index("prof_group")
    text = mean_caveat(skewed, "professions")
    assert text is not None and "20 professions" in text
    assert tests.loc["male", "test"] == "bootstrap-t test of the mean"
    assert tests.loc["male", "caveat"] == text and pd.isna(tests.loc["female", "caveat"])
    assert summary["male_vs_female"]["male"]["caveat"] == text
    assert "caveat" not in summary["male_vs_female"]["female"]
    assert caveat_lines(summary) == [f"caveat: male_vs_female.male: {text}"]
    plain, _ = bec_pro.summarize(_bare_items({"female": normal}), n_resamples=199)
    assert "caveat" not in plain["male_vs_female"]["female"] and not caveat_lines(plain)
