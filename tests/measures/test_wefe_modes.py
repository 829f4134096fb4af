"""Issue 39 (WEFE side): the look-up defects (WEAT counted two spellings of one
vocabulary entry twice, RIPA repeated a pair; an offline run with a test file resolved
the default, downloaded, test folder first) and the named modes that reproduce WEFE
1.0.1's conventions (``effect_size="wefe"``, ``case``, ``strip_accents``, a Python
``preprocessor``, ``normalize``, RND's ``distance="cosine"``), on hand-built vectors.
Agreement with WEFE itself: tests/agreement/test_wefe_modes_agreement.py."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import genderscope as gs
from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.errors import GenderscopeError
from genderscope.measures.embedding_metrics import ripa, rnd
from genderscope.measures.weat import weat
from genderscope.models.vectors import WordVectors

VEC = {"he": (1.0, 0.1, 0.2), "man": (0.9, 0.3, 0.1), "boy": (0.8, 0.0, 0.4),
       "she": (0.1, 1.0, 0.1), "woman": (0.2, 0.9, 0.3), "girl": (0.0, 0.8, 0.5),
       "career": (1.0, 0.2, 0.0), "office": (0.7, 0.2, 0.5), "salary": (0.6, 0.4, 0.2),
       "home": (0.1, 1.0, 0.2), "family": (0.3, 0.6, 0.9), "children": (0.2, 0.7, 0.1),
       "Career": (0.5, 0.5, 0.5), "elise": (0.3, 0.3, 0.9)}


def _vecs() -> WordVectors:
    return WordVectors(np.array(list(VEC.values()), dtype=np.float32), list(VEC),
                       fingerprint="hand-39")


def _test(x: tuple[str, ...] = ("he", "man", "boy"), y: tuple[str, ...] = ("she", "woman", "girl"),
          a: tuple[str, ...] = ("career", "office", "salary"),
          b: tuple[str, ...] = ("home", "family", "children")) -> AssociationTest:
    return AssociationTest("t", WordSet("male", x), WordSet("female", y),
                           WordSet("career", a), WordSet("family", b))


def _v(w: str) -> np.ndarray:
    return np.array(VEC[w], dtype=np.float32).astype(np.float64)


# -- defect: case variants counted twice --------------------------------------------------
def test_weat_counts_two_spellings_of_one_vocabulary_entry_once() -> None:
    plain = weat(_vecs(), _test())
    variants = weat(_vecs(), _test(x=("he", "He", "man", "MAN", "boy"),
                                   y=("she", "She", "woman", "girl", "Girl")))
    assert variants.summary["sizes"] == plain.summary["sizes"] == {"X": 3, "Y": 3, "A": 3,
                                                                    "B": 3}
    assert variants.summary["statistic"] == pytest.approx(plain.summary["statistic"], abs=1e-15)
    assert variants.summary["effect_size"]["estimate"] == pytest.approx(
        plain.summary["effect_size"]["estimate"], abs=1e-15)


def test_ripa_keeps_one_pair_for_two_spellings_of_it() -> None:
    plain = ripa(_vecs(), _test())
    variants = ripa(_vecs(), _test(x=("he", "He", "man", "boy"), y=("she", "She", "woman",
                                                                     "girl")))
    assert variants.summary["n_pairs"] == plain.summary["n_pairs"] == 3
    assert list(variants.tables["pairs"]["x"]) == ["he", "man", "boy"]
    for role in ("A", "B"):
        assert variants.summary["attributes"][role]["estimate"] == pytest.approx(
            plain.summary["attributes"][role]["estimate"], abs=1e-15)


# -- defect: offline with the user's own test file -------------------------------------
def _write_glove(path: Path) -> Path:
    path.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in VEC.items()))
    return path


def _write_test(path: Path) -> Path:
    t = _test()
    path.write_text(json.dumps({k: {"category": ws.category, "examples": list(ws.examples)}
                                for k, ws in zip(("targ1", "targ2", "attr1", "attr2"),
                                                 t.sets(), strict=True)}))
    return path


@pytest.mark.parametrize("measure", ["ripa", "weat"])
def test_a_test_file_runs_offline_with_no_data_cache(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     measure: str) -> None:
    from genderscope.cli.app import app

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("GENDERSCOPE_DATA", str(empty))  # no benchmark data here
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))  # nothing fetched
    monkeypatch.delenv("GENDERSCOPE_SEAT_DIR", raising=False)
    # conftest: downloads go to a closed local port (offline), no retries
    vectors = _write_glove(tmp_path / "vectors.txt")
    sets = _write_test(tmp_path / "my_sets.json")
    r = CliRunner().invoke(app, ["run", measure, "--vectors", str(vectors), "--test", str(sets),
                                 "--out", str(tmp_path / "out"), "--store",
                                 str(tmp_path / "s.sqlite"), "--json"])
    assert r.exit_code == 0, r.output
    assert "not available offline" not in r.output


@pytest.mark.parametrize("measure", ["ripa", "weat"])
def test_a_test_name_offline_says_which_set_to_fetch(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str],
                                                     measure: str) -> None:
    """docs/data.md: offline, the error names the set and the command that fetches it
    (it said "test 'weat6' is not a file; pass --tests-dir")."""
    from genderscope.cli.app import main

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("GENDERSCOPE_DATA", str(empty))
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GENDERSCOPE_SEAT_DIR", raising=False)
    vectors = _write_glove(tmp_path / "vectors.txt")
    args = ["genderscope", "run", measure, "--vectors", str(vectors), "--out",
            str(tmp_path / "out"), "--store", str(tmp_path / "s.sqlite"), "--test"]

    def error(test: str) -> str:  # the command line's one line on stderr, exit 2
        monkeypatch.setattr("sys.argv", [*args, test])
        with pytest.raises(SystemExit) as stop:
            main()
        assert stop.value.code == 2
        return capsys.readouterr().err

    told = error("weat6")
    assert "seat is not available offline" in told and "genderscope data fetch seat" in told
    assert "is not a file" in error(str(tmp_path / "typo.jsonl"))  # a path: as before


# -- WEFE's effect size --------------------------------------------------------------
def test_weat_effect_size_wefe_divides_by_the_population_sd() -> None:
    ours = weat(_vecs(), _test())
    wefe = weat(_vecs(), _test(), effect_size="wefe")

    def s(w: str) -> float:
        u = _v(w) / np.linalg.norm(_v(w))
        cos = [u @ (_v(a) / np.linalg.norm(_v(a))) for a in ("career", "office", "salary")]
        cos_b = [u @ (_v(b) / np.linalg.norm(_v(b))) for b in ("home", "family", "children")]
        return float(np.mean(cos) - np.mean(cos_b))

    sx = np.array([s(w) for w in ("he", "man", "boy")])
    sy = np.array([s(w) for w in ("she", "woman", "girl")])
    both = np.concatenate([sx, sy])
    assert wefe.summary["effect_size"]["estimate"] == pytest.approx(
        (sx.mean() - sy.mean()) / np.std(both, ddof=0), rel=1e-12)
    ratio = wefe.summary["effect_size"]["estimate"] / ours.summary["effect_size"]["estimate"]
    assert ratio == pytest.approx(math.sqrt(6 / 5), rel=1e-12)
    for k in ("ci_low", "ci_high"):  # one population d: the same interval (issue 36, row 8)
        assert wefe.summary["effect_size"][k] == ours.summary["effect_size"][k]
    assert wefe.summary["statistic"] == ours.summary["statistic"]
    assert wefe.summary["p_value"] == ours.summary["p_value"]


# -- look-up rules, through gs.run (the declared options) ------------------------------
def test_case_exact_does_not_fall_back_to_lower_case() -> None:
    t = _test(a=("Career", "Office", "salary"), b=("Home", "family", "children"))
    fallback = gs.run("rnd", _vecs(), test=t, max_oov=0.5, resamples=100, permutations=1000)
    exact = gs.run("rnd", _vecs(), test=t, max_oov=0.5, case="exact", resamples=100,
                   permutations=1000)
    assert fallback.summary["sizes"]["A"] == 3 and fallback.summary["n_oov"]["A"] == 0
    # "Career" has its own vector; "Office" and "Home" exist only in lower case
    assert exact.summary["sizes"] == {"X": 3, "Y": 3, "A": 2, "B": 2}
    assert list(exact.tables["oov"]["text"]) == ["Office", "Home"]
    mx = np.mean([_v(w) for w in ("he", "man", "boy")], axis=0)
    my = np.mean([_v(w) for w in ("she", "woman", "girl")], axis=0)
    want = np.mean([np.linalg.norm(_v(a) - mx) - np.linalg.norm(_v(a) - my)
                    for a in ("Career", "salary")])
    assert exact.summary["attributes"]["A"]["estimate"] == pytest.approx(want, abs=1e-12)
    assert exact.metadata["params"]["case"] == "exact"
    lower = gs.run("rnd", _vecs(), test=t, max_oov=0.5, case="lower", resamples=100,
                   permutations=1000)
    assert lower.summary["sizes"]["A"] == 3
    assert list(lower.items.query("set == 'A'")["text"]) == ["Career", "Office", "salary"]
    want_lower = np.mean([np.linalg.norm(_v(a) - mx) - np.linalg.norm(_v(a) - my)
                          for a in ("career", "office", "salary")])
    assert lower.summary["attributes"]["A"]["estimate"] == pytest.approx(want_lower, abs=1e-12)


def test_strip_accents_and_a_python_preprocessor() -> None:
    t = _test(a=("career", "office", "Élise"))
    with pytest.raises(GenderscopeError, match="out of vocabulary"):
        gs.run("ect", _vecs(), test=t, max_oov=0.0, resamples=100)
    stripped = gs.run("ect", _vecs(), test=t, max_oov=0.0, strip_accents="unicode",
                      resamples=100)
    assert stripped.summary["sizes"]["A"] == 3
    by_fn = gs.run("ect", _vecs(), test=t, max_oov=0.0, resamples=100, case="exact",
                   preprocessor=lambda w: w.replace("É", "e"))
    assert by_fn.summary["attributes"]["A"]["estimate"] == pytest.approx(
        stripped.summary["attributes"]["A"]["estimate"], abs=1e-15)
    assert by_fn.metadata.get("cache_key") is None  # a callable has no content to key
    assert by_fn.metadata["params"]["preprocessor"].endswith("<lambda>")
    with pytest.raises(GenderscopeError, match="strip_accents"):  # the keyword, from Python
        gs.run("ect", _vecs(), test=t, strip_accents="latin")


def test_normalize_scales_every_vector_to_unit_length() -> None:
    r = gs.run("ripa", _vecs(), test=_test(), normalize=True, permutations=1000)
    unit = {w: _v(w) / np.linalg.norm(_v(w)) for w in VEC}
    bs = [(unit[x] - unit[y]) / np.linalg.norm(unit[x] - unit[y])
          for x, y in (("he", "she"), ("man", "woman"), ("boy", "girl"))]
    want = np.mean([np.mean([unit[a] @ b for b in bs]) for a in ("career", "office", "salary")])
    assert r.summary["attributes"]["A"]["estimate"] == pytest.approx(want, abs=1e-12)
    raw = gs.run("ripa", _vecs(), test=_test(), permutations=1000)
    assert abs(raw.summary["attributes"]["A"]["estimate"] - want) > 1e-3  # not vacuous


def test_rnd_cosine_distance_hand_computed() -> None:
    r = rnd(_vecs(), _test(), distance="cosine", n_resamples=100)

    def cos(u: np.ndarray, v: np.ndarray) -> float:
        return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))

    mx = np.mean([_v(w) for w in ("he", "man", "boy")], axis=0)
    my = np.mean([_v(w) for w in ("she", "woman", "girl")], axis=0)
    for role, words in (("A", ("career", "office", "salary")),
                        ("B", ("home", "family", "children"))):
        want = np.mean([(1 - cos(_v(a), mx)) - (1 - cos(_v(a), my)) for a in words])
        got = r.summary["attributes"][role]
        assert got["estimate"] == pytest.approx(want, abs=1e-12)
        assert got["ci_low"] <= got["estimate"] <= got["ci_high"]
    assert r.summary["attributes"]["A"]["estimate"] < 0 < r.summary["attributes"]["B"][
        "estimate"]
    assert r.metadata["params"]["distance"] == "cosine"
    with pytest.raises(GenderscopeError, match="unknown option"):
        gs.run("ect", _vecs(), test=_test(), distance="cosine")


def test_modes_enter_the_reuse_key_only_when_not_default(tmp_path: Path) -> None:
    from genderscope.engine import run_key

    vecs = _vecs()
    base = run_key("rnd", vecs, test=_test())
    assert run_key("rnd", vecs, test=_test(), case="fallback", strip_accents="none",
                   normalize=False, distance="euclidean") == base
    others = {run_key("rnd", vecs, test=_test(), **{k: v}) for k, v in (
        ("case", "exact"), ("case", "lower"), ("strip_accents", "ascii"),
        ("normalize", True), ("distance", "cosine"))}
    assert base not in others and len(others) == 5
    assert run_key("weat", vecs, test=_test(), effect_size="wefe") != run_key(
        "weat", vecs, test=_test())


def test_cli_takes_the_modes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.cli.app import app, main

    vectors = _write_glove(tmp_path / "vectors.txt")
    sets = _write_test(tmp_path / "sets.json")
    r = CliRunner().invoke(app, ["run", "rnd", "--vectors", str(vectors), "--test", str(sets),
                                 "--distance", "cosine", "--case", "exact", "--normalize",
                                 "--out", str(tmp_path / "o"), "--store",
                                 str(tmp_path / "s.sqlite"), "--json"])
    assert r.exit_code == 0, r.output
    params = json.loads((tmp_path / "o" / "summary.json").read_text())["metadata"]["params"]
    assert (params["distance"], params["case"], params["normalize"]) == ("cosine", "exact", True)
    monkeypatch.setattr("sys.argv", ["genderscope", "run", "weat", "--vectors", str(vectors),
                                     "--test", str(sets), "--effect-size", "cohen"])
    with pytest.raises(SystemExit) as exit_:
        main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--effect-size" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
