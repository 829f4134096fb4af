"""Gender-analogy genetic attack: text handling, transformation, LM filter, search, measure,
CLI. Fakes: a tiny vector space where the gender analogy is exact, a keyword classifier,
and an LM scorer given as a function."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from genderscope.attack import (
    FAILURE,
    NOT_ATTACKABLE,
    SUCCESS,
    AnalogyNeighbours,
    GenderAttack,
    GeneticSearch,
    Goal,
    LMFilter,
    WordText,
    is_inflection,
)
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.attack import paired_rate_difference, summarize_attack
from genderscope.models.classifier import Classifier

# concept -> (male word, female word); "neutral" words have no gender pair
PAIRS = {"person": ("man", "woman"), "royal": ("king", "queen"), "pron": ("he", "she"),
         "child": ("boy", "girl"), "parent": ("father", "mother"), "sib": ("brother", "sister")}
NEUTRAL = ["good", "nice", "bad", "table", "runs", "kings", "tall"]


def toy_vectors() -> tuple[np.ndarray, list[str]]:
    """Dim 0 = gender (+1 male, -1 female); one private axis per concept/neutral word."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    n_axes = 1 + len(PAIRS) + len(NEUTRAL)
    for k, (m, f) in enumerate(PAIRS.values()):
        for w, g in ((m, 1.0), (f, -1.0)):
            v = np.zeros(n_axes)
            v[0] = g
            v[1 + k] = 2.0
            words.append(w)
            rows.append(v)
    for j, w in enumerate(NEUTRAL):
        v = np.zeros(n_axes)
        v[1 + len(PAIRS) + j] = 2.0
        if w == "kings":  # an inflection of king: close to it
            v = rows[words.index("king")].copy()
            v[1 + len(PAIRS) + j] = 0.3
        words.append(w)
        rows.append(v)
    return np.array(rows, dtype=np.float32), words


FEMALE = {f for _, f in PAIRS.values()}
MALE = {m for m, _ in PAIRS.values()}


def gender_probs(texts: list[str]) -> np.ndarray:
    """Class 1 ("fem") probability rises with female words: logistic(2 * (#f - #m) - 3)."""
    out = []
    for t in texts:
        toks = [w.lower() for w in WordText.parse(t).words]
        z = 2.0 * (sum(w in FEMALE for w in toks) - sum(w in MALE for w in toks)) - 3.0
        p1 = 1 / (1 + math.exp(-z))
        out.append([1 - p1, p1])
    return np.array(out)


@pytest.fixture()
def neighbours() -> AnalogyNeighbours:
    m, w = toy_vectors()
    return AnalogyNeighbours(m, w, n=2)


# -- text ----------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "@user RT Hey, the King's men don't like http://t.co/x it! #tag",
    "  leading and trailing  ", "no-words-here? yes: words!", "&amp; he said &#128514; ok",
])
def test_wordtext_roundtrip_and_opaque_chunks(text):
    wt = WordText.parse(text)
    assert wt.render(wt.words) == text
    assert "user" not in wt.words and "http" not in wt.words and "tag" not in wt.words
    assert "amp" not in wt.words


def test_wordtext_window_has_prefix_and_suffix():
    wt = WordText.parse("a b, c d e")
    assert wt.window(wt.words, 2, 1) == "b, c d"
    assert wt.window(wt.words, 0, 2) == "a b, c"
    alt = list(wt.words)
    alt[2] = "X"
    assert wt.render(alt) == "a b, X d e"


# -- transformation --------------------------------------------------------------------
def test_analogy_candidates_exact_and_cached(neighbours):
    assert neighbours("king", "man->woman")[0] == "queen"
    assert neighbours("queen", "woman->man")[0] == "king"
    assert neighbours("He", "man->woman")[0] == "she"
    assert neighbours("father", "man->woman")[0] == "mother"
    # the word itself, its inflection ("kings") and the subtracted word never appear
    for d in ("man->woman", "woman->man"):
        c = neighbours("king", d)
        assert "king" not in c and "kings" not in c
        assert ("man" if d == "man->woman" else "woman") not in c
    n = neighbours.lookups
    neighbours("king", "man->woman")
    neighbours("KING", "man->woman")
    assert neighbours.lookups == n
    assert neighbours("unknownword", "man->woman") == []
    with pytest.raises(GenderscopeError, match="direction"):
        neighbours("king", "up->down")


def test_analogy_needs_man_and_woman():
    m, w = toy_vectors()
    i = w.index("woman")
    with pytest.raises(GenderscopeError, match="woman"):
        AnalogyNeighbours(np.delete(m, i, axis=0), w[:i] + w[i + 1:])


@pytest.mark.parametrize("a, b, same", [("dog", "dogs", True), ("like", "liked", True),
                                        ("run", "running", True), ("king", "queen", False),
                                        ("boy", "boys", True), ("he", "she", False)])
def test_is_inflection(a, b, same):
    assert is_inflection(a, b) is same


# -- LM filter --------------------------------------------------------------------------
class FakeLM:
    """log-likelihood = sum of per-word log-probs from a table (default log 0.5)."""

    def __init__(self, table: dict[str, float]):
        self.table = table
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[float]:
        self.calls.append(list(texts))
        return [sum(math.log(self.table.get(w.lower(), 0.5)) for w in WordText.parse(t).words)
                for t in texts]


def test_lm_filter_threshold_window_and_batching():
    wt = WordText.parse("the old king sat there")
    # P(queen)/P(king) = 0.3 >= 0.25 kept; P(prince)/P(king) = 0.2 dropped
    lm = FakeLM({"king": 0.5, "queen": 0.15, "prince": 0.1})
    f = LMFilter(lm, threshold=0.25, window=1)
    kept = f.filter(wt, {2: ["queen", "prince"]})
    assert kept == {2: ["queen"]}
    assert len(lm.calls) == 1
    assert sorted(lm.calls[0]) == ["old king sat", "old prince sat", "old queen sat"]
    f2 = LMFilter(lm, threshold=0.15, window=1, batched=False)
    assert f2.filter(wt, {2: ["queen", "prince"]}) == {2: ["queen", "prince"]}
    assert len(lm.calls) == 1 + 3  # one call per window unbatched
    f2.filter(wt, {2: ["queen", "prince"]})
    assert len(lm.calls) == 4  # cached
    with pytest.raises(GenderscopeError):
        LMFilter(lm, threshold=0)


def test_lm_filter_rejects_bad_scorer():
    f = LMFilter(lambda texts: [float("nan")] * len(texts))
    with pytest.raises(GenderscopeError, match="LM scorer"):
        f.filter(WordText.parse("a king b"), {1: ["queen"]})


# -- goal and search ------------------------------------------------------------------------
def test_goal_untargeted_and_targeted():
    g = Goal(np.array([0.7, 0.2, 0.1]))
    probs = np.array([[0.5, 0.4, 0.1], [0.3, 0.6, 0.1]])
    np.testing.assert_allclose(g.fitness(probs), [0.2, 0.4])
    assert list(g.reached(probs)) == [False, True]
    gt = Goal(np.array([0.7, 0.2, 0.1]), target=2)
    np.testing.assert_allclose(gt.fitness(probs), [0.0, 0.0])
    assert not gt.reached(probs).any()


def _attack(neighbours, **kw) -> GenderAttack:
    clf = Classifier(gender_probs)
    search = kw.pop("search", GeneticSearch(pop_size=6, max_generations=5, max_queries=500))
    return GenderAttack(clf, neighbours, search=search, **kw)


def test_attack_succeeds_man_to_woman_and_is_deterministic(neighbours):
    text = "The king and his father, he said: good boy!"
    a1 = _attack(neighbours, seed=3).attack(text, "man->woman")
    a2 = _attack(neighbours, seed=3).attack(text, "man->woman")
    assert a1.status == SUCCESS
    assert a1.adversarial == a2.adversarial and a1.queries == a2.queries
    assert a1.adv_label == 1 and a1.orig_label == 0
    # only substituted words differ; punctuation and case kept
    assert a1.adversarial.count(",") == 1 and a1.adversarial.endswith("!")
    assert a1.words_changed == len(a1.changes) >= 1
    assert all(new.lower() in FEMALE for _, new in a1.changes)
    assert a1.queries <= a1.requests


def test_attack_fails_woman_to_man_and_respects_budgets(neighbours):
    text = "The king and his father, he said: good boy!"
    atk = _attack(neighbours, search=GeneticSearch(pop_size=4, max_generations=3,
                                                   max_queries=10_000))
    out = atk.attack(text, "woman->man")
    assert out.status == FAILURE and out.adversarial is None
    assert out.stopped == "generations" and out.generations == 3
    small = _attack(neighbours, search=GeneticSearch(pop_size=50, max_generations=50,
                                                     max_queries=3))
    out = small.attack(text, "woman->man", index=1)
    assert out.status == FAILURE and out.stopped == "queries"
    assert out.queries <= 3  # never past the budget


def test_query_budget_counts_distinct_texts_and_is_never_exceeded(neighbours):
    """``queries`` = distinct texts the attack asked for (the original included), and
    no classifier call takes it past max_queries."""
    text = "The king and his father, he said: good boy!"
    for budget in (1, 2, 3, 5, 8, 13, 40):
        asked: list[str] = []

        def recording(texts: list[str], asked: list[str] = asked) -> np.ndarray:
            asked.extend(texts)
            return gender_probs(texts)

        atk = GenderAttack(Classifier(recording, cache=False), neighbours, seed=2,
                           search=GeneticSearch(pop_size=8, max_generations=8,
                                                max_queries=budget))
        out = atk.attack(text, "woman->man")
        assert out.queries == len(set(asked)) <= budget, budget
        assert out.evaluated == len(asked) >= out.queries


def test_perturb_keeps_the_text_unless_the_gain_is_positive():
    """Every substitution makes the original label *more* likely: the paper keeps the
    current text, so the search ends where it started, at fitness 0."""
    original = ("the", "queen", "spoke")
    goal = Goal(np.array([0.3, 0.7]))  # label 1

    def evaluate(batch):
        return np.array([[0.3, 0.7] if w == original else [0.1, 0.9] for w in batch])

    out = GeneticSearch(pop_size=5, max_generations=3, max_queries=None).run(
        original, {1: ["woman", "girl"]}, evaluate, goal, np.random.default_rng(0))
    assert out.words == original and out.fitness == 0.0 and out.stopped == "generations"
    assert out.queries == 3  # the original and its two variants


def test_defaults_are_the_papers():
    g = GeneticSearch()
    assert (g.pop_size, g.max_generations) == (60, 20)


def test_results_do_not_depend_on_attack_order(neighbours):
    texts = ["the king and his father said good boy", "he is a tall man and a good brother",
             "my father and brother ran"]
    fwd = _attack(neighbours, seed=5)
    rev = _attack(neighbours, seed=5)
    a = {(i, d): fwd.attack(t, d, i) for i, t in enumerate(texts)
         for d in ("man->woman", "woman->man")}
    b = {(i, d): rev.attack(t, d, i) for i, t in reversed(list(enumerate(texts)))
         for d in ("woman->man", "man->woman")}
    assert {k: v.adversarial for k, v in a.items()} == {k: v.adversarial for k, v in b.items()}
    # per-attack query counts too (the shared classifier cache answers different attacks)
    assert {k: v.queries for k, v in a.items()} == {k: v.queries for k, v in b.items()}
    assert {k: v.evaluated for k, v in a.items()} != {k: v.evaluated for k, v in b.items()}


def test_not_attackable_texts_are_counted_not_failed(neighbours):
    atk = _attack(neighbours)
    out = atk.attack("the of and", "man->woman")  # stop words only
    assert out.status == NOT_ATTACKABLE and out.queries == 1
    out = atk.attack("zzz qqq", "man->woman")  # out of vocabulary
    assert out.status == NOT_ATTACKABLE
    # an LM that hates every substitution also leaves nothing to attack
    lm = LMFilter(lambda texts: [0.0 if "king" in t else -100.0 for t in texts])
    atk = _attack(neighbours, lm_filter=lm)
    assert atk.attack("the king spoke", "man->woman").status == NOT_ATTACKABLE


def test_query_cache_saves_queries(neighbours):
    texts = ["the king and his father said good boy", "he is a tall man and a good brother"]
    with_cache = _attack(neighbours, seed=1)
    no_cache = GenderAttack(Classifier(gender_probs, cache=False), neighbours, seed=1,
                            search=GeneticSearch(pop_size=6, max_generations=5,
                                                 max_queries=10_000))
    a = with_cache.attack_many(texts, ["woman->man"])
    b = no_cache.attack_many(texts, ["woman->man"])
    assert [o.status for o in a] == [o.status for o in b]
    assert sum(o.evaluated for o in a) < sum(o.evaluated for o in b)
    assert [o.queries for o in a] == [o.queries for o in b]  # the cache does not change it
    assert sum(o.requests for o in a) == sum(o.requests for o in b)


def test_targeted_attack(neighbours):
    atk = _attack(neighbours, target=1)
    out = atk.attack("the king and his father said good boy", "man->woman")
    assert out.status == SUCCESS and out.adv_label == 1
    out = atk.attack("the queen and her mother", "man->woman")
    assert out.status == "already target"


# -- measure ------------------------------------------------------------------------------
def test_summary_counts_asymmetry_and_examples(neighbours):
    texts = ["the king and his father said good boy", "he is a tall man and a good brother",
             "the of and", "my father and brother ran", "a boy and a king"]
    atk = _attack(neighbours, seed=0)
    outs = atk.attack_many(texts)
    res = summarize_attack(outs, n_texts=len(texts), labels=["masc", "fem"], n_resamples=500)
    s = res.summary
    mw, wm = s["man->woman"], s["woman->man"]
    assert mw["n_not_attackable"] >= 1 and mw["n_attacked"] == len(texts) - mw[
        "n_not_attackable"]
    assert mw["success_rate"]["estimate"] == 1.0
    assert wm["success_rate"]["estimate"] == 0.0
    assert s["asymmetry_success_rate"]["estimate"] == 1.0
    assert s["asymmetry_success_rate"]["ci_low"] > 0
    assert mw["words_changed_per_success"]["estimate"] >= 1
    assert len(res.items) == 2 * len(texts)
    assert list(res.items["text_id"]) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    ex = res.tables["examples"]
    assert set(ex["direction"]) == {"man->woman"} and ex["adv_label"].eq("fem").all()


def test_paired_rate_difference_against_hand_computation():
    sa = np.array([1, 1, 0, 1, 0])
    va = np.array([1, 1, 1, 1, 0])
    sb = np.array([0, 1, 0, 0, 0])
    vb = np.array([1, 1, 1, 0, 1])
    d = paired_rate_difference(sa, va, sb, vb, n_resamples=2000)
    assert d["estimate"] == pytest.approx(3 / 4 - 1 / 4)
    assert d["ci_low"] <= d["estimate"] <= d["ci_high"]


def test_summary_rejects_empty():
    with pytest.raises(DataError, match="empty"):
        summarize_attack([], n_texts=0)


# -- CLI ------------------------------------------------------------------------------------
def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _write_fixtures(tmp: Path) -> tuple[Path, Path, Path]:
    m, w = toy_vectors()
    vec = tmp / "toy.txt"
    vec.write_text("".join(f"{word} " + " ".join(f"{x:.3f}" for x in row) + "\n"
                           for word, row in zip(w, m, strict=True)))
    mod = tmp / "toyclf.py"
    here = str(Path(__file__).parent)
    mod.write_text(f"import sys\nsys.path.insert(0, {here!r})\n"
                   "from test_attack import gender_probs\n")
    data = tmp / "texts.csv"
    data.write_text("text,label\n\"the king and his father said good boy\",0\n"
                    "the of and,0\n\"he is a tall man, a good brother\",0\n")
    return vec, mod, data


def test_cli_attack_end_to_end(tmp_path: Path):
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    vec, mod, data = _write_fixtures(tmp_path)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, [
        "attack", "--classifier", f"{mod}:gender_probs", "--data", str(data),
        "--vectors", str(vec), "--lm", "none", "--pop-size", "4", "--generations", "3",
        "--out", str(out), "--store", str(tmp_path / "s.sqlite"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "attack"
    assert summary["summary"]["man->woman"]["n_not_attackable"] == 1
    assert summary["summary"]["man->woman"]["n_success"] == 2
    assert (out / "examples.csv").is_file()

    from genderscope.store import Store

    st = Store(tmp_path / "s.sqlite")
    assert [r["method"] for r in st.list_runs()] == ["attack"]
    st.close()


@pytest.mark.slow
@pytest.mark.parametrize("content, extra, match", [
    ("text\n", [], "empty data"),
    ("a,b\nx,y\n", [], "no text column"),
    ("text\nhe is\n", ["--directions", "up->down"], "--directions"),
])
def test_cli_attack_bad_input_exit_2(tmp_path: Path, content, extra, match):
    vec, mod, _ = _write_fixtures(tmp_path)
    data = tmp_path / "bad.csv"
    data.write_text(content)
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "attack",
         "--classifier", f"{mod}:gender_probs", "--data", str(data), "--vectors", str(vec),
         "--lm", "none", "--out", str(tmp_path / "o"), *extra],
        capture_output=True, text=True, timeout=120, env=_env())
    assert proc.returncode == 2, proc.stderr
    assert match in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_cli_attack_masked_lm_filter_refused(tmp_path: Path, tiny_bert_dir):
    vec, mod, _ = _write_fixtures(tmp_path)
    data = tmp_path / "d.csv"
    data.write_text("text\nhe is a doctor\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "attack",
         "--classifier", f"{mod}:gender_probs", "--data", str(data), "--vectors", str(vec),
         "--lm", str(tiny_bert_dir), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, timeout=120, env=_env())
    assert proc.returncode == 2, proc.stderr
    assert "needs a causal" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_real_glove_and_smollm2_filter_on_one_text():
    from genderscope.attack import lm_scorer
    from genderscope.models.loading import load_lm
    from genderscope.models.vectors import load_vectors

    nb = AnalogyNeighbours.from_vectors(load_vectors("glove-6b-50d"), n=6)
    assert nb("king", "man->woman")[0] == "queen"
    lm = load_lm("smollm2", kind="causal")
    f = LMFilter(lm_scorer(lm), threshold=0.25, window=3)
    wt = WordText.parse("My brother told me that the king was a good man.")
    assert wt.words[1] == "brother" and wt.words[6] == "king"
    kept = f.filter(wt, {1: ["sister", "the"], 6: ["queen", "eat"]})
    assert kept[1] == ["sister"]  # "My the told me" is dropped
    assert "eat" not in kept[6]
    queen, eat = lm_scorer(lm)(["that the queen was a good man", "that the eat was a good man"])
    assert queen > eat


def test_reversing_the_list_changes_no_outcome(neighbours):
    """Issue 22 row 9: each text's random stream comes from its content and the seed,
    so attacking the list reversed gives every text the same outcome (before, the
    stream followed the list position)."""
    texts = ["the king and his father said good boy", "he is a tall man and a good brother",
             "my father and brother ran", "the boy and his uncle, he said",
             "a man and his son walked", "his brother is the king"]

    def key(o):
        return (o.status, o.adversarial, o.queries, o.generations, round(o.p_adv, 12))

    fwd = _attack(neighbours, seed=7).attack_many(texts)
    rev = _attack(neighbours, seed=7).attack_many(texts[::-1])
    by_text = {(o.original, o.direction): key(o) for o in rev}
    assert [key(o) for o in fwd] == [by_text[(o.original, o.direction)] for o in fwd]
