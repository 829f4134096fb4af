"""WEFE's workflow in genderscope (issue 39 item 3) on hand-built vectors: the Query
(files, names, templates), MAC and RNSB over n target groups, ``run_many`` through the
engine, rankings and rank correlations, the figures and ``genderscope run-many``.
Agreement with WEFE 1.0.1 itself: tests/agreement/test_wefe_workflow_agreement.py."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from genderscope.datasets.query import Query, for_metric, is_query_file, load_query
from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.embedding_metrics import mac, rnsb
from genderscope.models.vectors import WordVectors

RNG = np.random.default_rng(11)
WORDS = ([f"m{i}" for i in range(5)] + [f"f{i}" for i in range(5)] + [f"n{i}" for i in range(5)]
         + [f"p{i}" for i in range(6)] + [f"u{i}" for i in range(6)] + [f"s{i}" for i in range(6)])
MATRIX = RNG.normal(size=(len(WORDS), 6)).astype(np.float32)
SETS = {"T": {"Male": WORDS[0:5], "Female": WORDS[5:10], "Neutral": WORDS[10:15]},
        "A": {"Pleasant": WORDS[15:21], "Unpleasant": WORDS[21:27], "Science": WORDS[27:33]}}


def _vecs(matrix: np.ndarray = MATRIX, fingerprint: str = "hand") -> WordVectors:
    return WordVectors(matrix, list(WORDS), fingerprint=fingerprint)


def _query(n_targets: int = 3, n_attributes: int = 2) -> Query:
    t = dict(list(SETS["T"].items())[:n_targets])
    a = dict(list(SETS["A"].items())[:n_attributes])
    return Query.from_sets(t, a)


def _emb(words: list[str]) -> np.ndarray:
    return MATRIX[[WORDS.index(w) for w in words]].astype(np.float64)


# -- the Query --------------------------------------------------------------------------

def test_query_names_as_wefe_and_reads_json_and_yaml(tmp_path: Path) -> None:
    q = _query(3, 3)
    assert q.name == "Male, Female and Neutral wrt Pleasant, Unpleasant and Science"
    assert q.template == (3, 3)
    assert Query.from_sets([["a"], ["b"]], [["c"]]).name == \
        "Target set 0 and Target set 1 wrt Attribute set 0"
    (tmp_path / "q.json").write_text(json.dumps({"targets": SETS["T"],
                                                 "attributes": SETS["A"]}))
    (tmp_path / "q.yaml").write_text("name: mine\ntargets:\n  - {name: M, words: [m0, m1]}\n"
                                     "  - {name: F, words: [f0, f1]}\n"
                                     "attributes: {P: [p0, p1], U: [u0, u1]}\n")
    assert is_query_file(tmp_path / "q.json") and is_query_file(tmp_path / "q.yaml")
    from_json, from_yaml = load_query(tmp_path / "q.json"), load_query(tmp_path / "q.yaml")
    assert from_json.targets == q.targets and from_json.attributes == q.attributes
    assert from_json.name == q.name and from_json.sha256
    assert from_yaml.name == "mine" and from_yaml.targets[1] == WordSet("F", ("f0", "f1"))


@pytest.mark.parametrize("content, says", [
    ({"targets": {"M": ["a"]}}, "keys 'targets' and 'attributes'"),
    ({"targets": {"M": ["a"]}, "attributes": {"A": []}}, "attribute set 'A' is empty"),
    ({"targets": {"M": "abc"}, "attributes": {"A": ["b"]}}, "must be a list of words"),
    ({"targets": [{"name": "M", "words": ["a"]}, {"name": "M", "words": ["b"]}],
      "attributes": {"A": ["c"]}}, "share the name 'M'"),
    ({"targets": {"M": ["a"]}, "attributes": {"A": ["b"]}, "tagets": 1}, "unknown key"),
])
def test_bad_query_file_is_one_line(tmp_path: Path, content: dict, says: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(DataError, match=says) as info:
        load_query(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert "query:" not in str(info.value)  # named once, by the file


def test_wefe_s_positional_query_points_to_from_sets() -> None:
    """A WEFE user's ``Query([male, female], [career, family], names, names)`` is one line
    naming :meth:`Query.from_sets`, not an AttributeError from deep inside."""
    with pytest.raises(GenderscopeError, match=r"^Query\(\.\.\.\) takes WordSets.*from_sets"):
        Query([["he"], ["she"]], [["salary"], ["home"]], ["Male", "Female"],  # type: ignore
              ["Career", "Family"])


def test_templates_as_wefe() -> None:
    assert isinstance(for_metric(_query(2, 2), "weat"), AssociationTest)
    single = for_metric(_query(2, 1), "ripa")  # WEFE's 2 x 1: one attribute set, as A and B
    assert isinstance(single, AssociationTest) and single.attr1 == single.attr2
    assert isinstance(for_metric(_query(3, 3), "mac"), Query)
    assert isinstance(for_metric(_query(2, 1), "mac"), Query)  # MAC: no duplicated set
    assert isinstance(for_metric(_query(3, 2), "rnsb"), Query)
    for metric, shape in (("weat", (3, 2)), ("ripa", (2, 3)), ("rnsb", (3, 3)),
                          ("rnsb", (2, 1)), ("ect", (3, 1))):
        with pytest.raises(GenderscopeError, match=f"^{metric} takes"):
            for_metric(_query(*shape), metric)
    import genderscope as gs

    with pytest.raises(GenderscopeError, match="--swap-roles takes a 2 x 2 test"):
        gs.run("mac", _vecs(), test=_query(3, 2), swap_roles=True)


# -- MAC and RNSB over n groups -----------------------------------------------------------

def test_mac_of_three_by_three_groups_hand_computed() -> None:
    r = mac(_vecs(), _query(3, 3), n_resamples=200)
    s = []
    for t in SETS["T"].values():
        for w in t:
            v = _emb([w])[0]
            for a in SETS["A"].values():
                s.append(np.mean([1 - v @ u / np.linalg.norm(v) / np.linalg.norm(u)
                                  for u in _emb(a)]))
    assert r.summary["mac"]["estimate"] == pytest.approx(np.mean(s), abs=1e-12)
    assert r.summary["mac"]["ci_low"] < r.summary["mac"]["estimate"] < \
        r.summary["mac"]["ci_high"]
    assert r.summary["template"] == [3, 3]
    assert set(r.items["set"]) == {"T1", "T2", "T3"}
    assert {"dist_A1", "dist_A2", "dist_A3"} <= set(r.items.columns)


@pytest.mark.parametrize("metric", [mac, rnsb])
def test_two_groups_give_the_same_numbers_either_way(metric) -> None:
    """The n-group code on a 2 x 2 query equals the test path, CI included."""
    q = _query(2, 2)
    via_query = metric(_vecs(), q, n_resamples=100, seed=3).summary
    via_test = metric(_vecs(), q.as_test(), n_resamples=100, seed=3).summary
    key = metric.__name__
    assert via_query[key] == via_test[key]


def test_rnsb_of_three_groups_is_wefe_recipe_by_scikit_learn() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    r = rnsb(_vecs(), _query(3, 2), seed=4, n_resamples=100)
    pos, neg = _emb(SETS["A"]["Pleasant"]), _emb(SETS["A"]["Unpleasant"])
    x = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(len(pos)), -np.ones(len(neg))])
    xt, _, yt, _ = train_test_split(x, y, shuffle=True, random_state=4, test_size=0.2,
                                    stratify=y)
    clf = LogisticRegression(solver="liblinear", max_iter=10000, random_state=4).fit(xt, yt)
    targets = np.concatenate([_emb(t) for t in SETS["T"].values()])
    p = clf.predict_proba(targets)[:, list(clf.classes_).index(-1)]
    q = p / p.sum()
    want = float(np.sum(q * np.log(q * len(q))))
    assert r.summary["rnsb"]["estimate"] == pytest.approx(want, abs=1e-9)
    assert len(r.items) == 15


# -- rankings -----------------------------------------------------------------------------

def test_ranking_ties_and_correlations() -> None:
    from scipy import stats

    from genderscope.stats.rankings import (
        aggregate,
        correlation_tests,
        create_ranking,
        ranking_correlations,
    )

    scores = pd.DataFrame({"m1": [1.0, 2.0, 2.0, 0.5], "m2": [3.0, 1.0, 2.0, 4.0]},
                          index=["a", "b", "c", "d"])
    assert list(create_ranking(scores)["m1"]) == [2, 3, 4, 1]  # first: order of rows
    assert list(create_ranking(scores, "min")["m1"]) == [2, 3, 3, 1]
    assert list(create_ranking(scores, "dense", ascending=False)["m1"]) == [2, 1, 1, 3]
    mixed = create_ranking(scores, ascending={"m2": False})  # ECT-like: high = less bias
    assert list(mixed["m2"]) == [2, 4, 3, 1] and list(mixed["m1"]) == [2, 3, 4, 1]
    with pytest.raises(GenderscopeError, match="no scores of 'ect'"):
        create_ranking(scores, ascending={"ect": False})
    ranks = create_ranking(scores, "average")
    corr = ranking_correlations(ranks)
    assert corr.loc["m1", "m2"] == pytest.approx(stats.spearmanr(ranks.m1, ranks.m2)[0])
    # 4 models: exact p over the 24 orderings, not scipy's t approximation
    p = correlation_tests(ranks, "kendall").p_value[0]
    assert 0 < p <= 1 and p != pytest.approx(stats.kendalltau(ranks.m1, ranks.m2)[1])
    three = pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3]})
    assert correlation_tests(three).p_value[0] == pytest.approx(2 / 6)  # rho = 1: 2 of 3!
    assert aggregate(pd.DataFrame({"q1": [-1.0, 2.0], "q2": [3.0, -4.0]})).tolist() == [2, 3]
    with pytest.raises(GenderscopeError, match="--rank-method must be one of"):
        create_ranking(scores, "best")


@pytest.mark.parametrize("n", [3, 6, 8])
def test_kendall_exact_null_is_scipy_s_tau_b_for_every_ordering(n: int) -> None:
    """The exact p's null (all n! orderings at once) is scipy's tau-b of each ordering,
    ties in either ranking included."""
    import itertools

    from scipy import stats

    from genderscope.stats.rankings import _kendall_null

    rng = np.random.default_rng(n)
    x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 3, n).astype(float)
    y[:2] = [0.0, 2.0]  # y varies
    orders = np.array(list(itertools.permutations(range(n))))[::7]
    want = [stats.kendalltau(x, y[o]).statistic for o in orders]
    assert _kendall_null(x, y, orders) == pytest.approx(want, abs=1e-12)


# -- run_many, through the engine ---------------------------------------------------------

def test_run_many_table_is_stored_and_reused(tmp_path: Path) -> None:
    from genderscope.sweep.many import COLUMNS, run_many, score_table

    rng = np.random.default_rng(2)
    models = {"base": _vecs(), "noisy": _vecs(MATRIX + rng.normal(size=MATRIX.shape)
                                              .astype(np.float32), "noisy")}
    queries = [_query(2, 2), _query(3, 2)]
    opts = {"*": {"resamples": 100, "seed": 1}, "ripa": {"permutations": 1000}}
    first = run_many(models, queries, ["ripa", "mac", "rnsb"], store=tmp_path / "s.sqlite",
                     options=opts)
    assert list(first.columns) == COLUMNS
    ok = first[first.error == ""]
    # ripa: 2 attribute sets of the 2 x 2 query; mac, rnsb: one value per query
    assert len(ok) == 2 * (2 + 2 + 2)
    assert (ok.ci_low <= ok.value).all() and (ok.value <= ok.ci_high).all()
    refused = first[first.error != ""]
    assert list(refused.metric) == ["ripa", "ripa"]  # the 3-group query, on each model
    assert not ok.reused.any()
    again = run_many(models, queries, ["ripa", "mac", "rnsb"], store=tmp_path / "s.sqlite",
                     options=opts)
    assert again[again.error == ""].reused.all()
    assert list(again.run_id) == list(first.run_id)
    pd.testing.assert_series_equal(again.value, first.value)
    scores = score_table(first)
    mac_base = ok[(ok.model == "base") & (ok.metric == "mac")].value.abs().mean()
    assert scores.loc["base", "mac"] == pytest.approx(mac_base)
    assert list(scores.index) == ["base", "noisy"]


def test_run_many_reads_test_names_from_tests_dir(tmp_path: Path) -> None:
    from genderscope.sweep.many import run_many

    sets = {k: {"category": k, "examples": ws} for k, ws in
            zip(("targ1", "targ2", "attr1", "attr2"), [*list(SETS["T"].values())[:2],
                                                       *list(SETS["A"].values())[:2]],
                strict=True)}
    (tmp_path / "mine.jsonl").write_text(json.dumps(sets))
    table = run_many([_vecs()], ["mine"], ["mac"], tests_dir=tmp_path,
                     store=tmp_path / "s.sqlite", options={"mac": {"resamples": 100}})
    assert table.error.tolist() == [""] and table["query"].tolist() == ["mine"]
    want = mac(_vecs(), _query(2, 2), n_resamples=100).summary["mac"]["estimate"]
    assert table.value[0] == pytest.approx(want, abs=1e-12)


def test_run_many_refuses_an_unknown_metric() -> None:
    from genderscope.sweep.many import run_many

    with pytest.raises(GenderscopeError, match="unknown metric 'seat'"):
        run_many([_vecs()], [_query()], ["seat"])


def test_figures_draw(tmp_path: Path) -> None:
    from genderscope.reporting import ranking_plots as rp
    from genderscope.stats.rankings import create_ranking, ranking_correlations

    table = pd.DataFrame({"model": ["a", "b"], "query": ["q", "q"], "metric": ["mac"] * 2,
                          "attribute": ["", ""], "value": [0.5, 0.6], "ci_low": [0.4, 0.5],
                          "ci_high": [0.6, 0.7], "error": ["", ""]})
    ranks = create_ranking(pd.DataFrame({"m1": [1.0, 2.0], "m2": [2.0, 1.0]},
                                        index=["a", "b"]))
    for name, fig in (("r.png", rp.plot_results(table, "mac")),
                      ("k.png", rp.plot_ranking(ranks)),
                      ("c.svg", rp.plot_ranking_correlations(ranking_correlations(ranks)))):
        path = rp.save(fig, tmp_path / name)
        assert path.stat().st_size > 1000


# -- the CLI ------------------------------------------------------------------------------

def _main(args: list[str], capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    from genderscope.cli.app import main

    monkeypatch.setattr(sys, "argv", ["genderscope", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def test_cli_run_many_and_run_query(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.vector_debias import write_word2vec_binary

    a = write_word2vec_binary(tmp_path / "a.bin", WORDS, MATRIX)
    b = write_word2vec_binary(tmp_path / "b.bin", WORDS, MATRIX[::-1].copy())
    q2, q3 = tmp_path / "q2.json", tmp_path / "q3.yaml"
    q2.write_text(json.dumps({"targets": dict(list(SETS["T"].items())[:2]),
                              "attributes": dict(list(SETS["A"].items())[:2])}))
    q3.write_text(json.dumps({"name": "three", "targets": SETS["T"],
                              "attributes": SETS["A"]}))
    out, store = tmp_path / "many", str(tmp_path / "s.sqlite")
    code, err = _main(["run-many", "--vectors", f"A={a}", "--vectors", f"B={b}",
                       "--query", str(q2), "--query", str(q3), "--metric", "mac",
                       "--metric", "ripa", "--resamples", "100", "--out", str(out),
                       "--store", store, "--correlation", "kendall", "--reverse", "mac"],
                      capsys, monkeypatch)
    assert code == 0, err
    # the refused cell is said once for both models, not fatal
    assert "three · ripa (every model): ripa takes 2 target" in err
    table = pd.read_csv(out / "results.csv")
    assert set(table.model) == {"A", "B"} and set(table.metric) == {"mac", "ripa"}
    ranks = pd.read_csv(out / "rankings.csv", index_col="model")
    assert sorted(ranks["mac"]) == [1, 2]
    for name in ("scores.csv", "correlations.csv", "ranking.png", "correlations.png",
                 "results-mac.png", "results-ripa.png"):
        assert (out / name).is_file(), name
    # the same query through `genderscope run mac --query`: the run run-many stored
    code, err = _main(["run", "mac", "--vectors", str(a), "--query", str(q3), "--resamples",
                       "100", "--out", str(tmp_path / "one"), "--store", store, "--json",
                       "--no-progress"], capsys, monkeypatch)
    assert code == 0, err
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    stored = table[(table.model == "A") & (table.metric == "mac") & (table["query"] == "three")]
    assert math.isclose(summary["summary"]["mac"]["estimate"], stored.value.iloc[0],
                        rel_tol=1e-12)
    assert summary["metadata"]["reused"] is True


def test_cli_run_many_takes_the_max_oov_its_refusal_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A query with 2 of 7 words out of vocabulary is refused with "raise --max-oov to
    accept"; run-many had no --max-oov to raise."""
    from genderscope.vector_debias import write_word2vec_binary

    a = write_word2vec_binary(tmp_path / "a.bin", WORDS, MATRIX)
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"targets": {"Male": [*WORDS[0:5], "zz1", "zz2"],
                                         "Female": WORDS[5:10]},
                             "attributes": dict(list(SETS["A"].items())[:2])}))
    args = ["run-many", "--vectors", str(a), "--query", str(q), "--metric", "mac",
            "--resamples", "100", "--store", str(tmp_path / "s.sqlite"), "--no-progress"]
    code, err = _main([*args, "--out", str(tmp_path / "o1")], capsys, monkeypatch)
    assert code == 2 and "raise --max-oov to accept" in err, err
    code, err = _main([*args, "--out", str(tmp_path / "o2"), "--max-oov", "0.3"], capsys,
                      monkeypatch)
    assert code == 0, err
    table = pd.read_csv(tmp_path / "o2" / "results.csv")
    assert list(table.n_oov) == [2] and table.error.isna().all()


def test_cli_run_many_takes_wefe_s_look_up(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The page tells run-many users to give --case exact for WEFE's look-up (and
    --effect-size wefe for its d); run-many had neither. "M0" is found as "m0" by the
    default fallback and is out of vocabulary with exact look-up."""
    from genderscope.vector_debias import write_word2vec_binary

    a = write_word2vec_binary(tmp_path / "a.bin", WORDS, MATRIX)
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"targets": {"Male": ["M0", *WORDS[1:5]], "Female": WORDS[5:10]},
                             "attributes": dict(list(SETS["A"].items())[:2])}))
    args = ["run-many", "--vectors", str(a), "--query", str(q), "--metric", "weat",
            "--resamples", "100", "--store", str(tmp_path / "s.sqlite"), "--no-progress"]
    oov = {}
    for name, extra in (("fallback", []), ("exact", ["--case", "exact", "--effect-size",
                                                      "wefe", "--strip-accents", "ascii"])):
        code, err = _main([*args, "--out", str(tmp_path / name), *extra], capsys,
                          monkeypatch)
        assert code == 0, err
        oov[name] = pd.read_csv(tmp_path / name / "results.csv").n_oov.tolist()
    assert oov == {"fallback": [0], "exact": [1]}


@pytest.mark.parametrize("args, says", [
    (["--case", "upper"], "--case must be one of fallback, exact, lower"),
    (["--metric", "seat"], "--metric must be one of"),
    (["--rank-method", "best"], "--rank-method must be one of"),
    ([], "give at least one --query FILE or --test NAME"),
])
def test_cli_run_many_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch, args: list[str],
                                            says: str) -> None:
    from genderscope.vector_debias import write_word2vec_binary

    a = write_word2vec_binary(tmp_path / "a.bin", WORDS, MATRIX)
    code, err = _main(["run-many", "--vectors", str(a), "--out", str(tmp_path / "o"), *args],
                      capsys, monkeypatch)
    assert code == 2 and says in err and err.count("\n") == 1, err
    assert not (tmp_path / "o").exists()
