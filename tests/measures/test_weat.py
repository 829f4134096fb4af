"""WEAT: association scores, statistics, OOV handling, the real GloVe 6B 50d, the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.datasets.seat import AssociationTest, WordSet, resolve_test
from genderscope.errors import DataError
from genderscope.measures.weat import association_scores, weat
from genderscope.models.vectors import WordVectors, load_vectors

VOCAB = {"a": (1.0, 0.0), "b": (0.0, 1.0), "x1": (1.0, 0.0), "x2": (1.0, 1.0),
         "y1": (0.0, 1.0), "y2": (1.0, 2.0), "a2": (2.0, 0.1), "b2": (0.1, 2.0)}


def _vectors(extra: dict[str, tuple[float, float]] | None = None) -> WordVectors:
    vocab = {**VOCAB, **(extra or {})}
    return WordVectors.from_numpy(np.array(list(vocab.values())), list(vocab), name="toy")


def _test(x: list[str], y: list[str], a: list[str], b: list[str]) -> AssociationTest:
    return AssociationTest("toy", WordSet("X", tuple(x)), WordSet("Y", tuple(y)),
                           WordSet("A", tuple(a)), WordSet("B", tuple(b)))


def test_association_hand_computed() -> None:
    v = _vectors()
    s, mean_a, mean_b = association_scores(v.vectors(["x1", "x2", "y1", "y2"]),
                                           v.vectors(["a"]), v.vectors(["b"]))
    r5 = 1 / math.sqrt(5)
    np.testing.assert_allclose(s, [1.0, 0.0, -1.0, r5 - 2 * r5])
    np.testing.assert_allclose(mean_a, [1.0, 1 / math.sqrt(2), 0.0, r5])


def test_weat_statistic_effect_size_and_exact_p() -> None:
    res = weat(_vectors(), _test(["x1", "x2"], ["y1", "y2"], ["a"], ["b"]), n_resamples=200)
    r5 = 1 / math.sqrt(5)
    s = np.array([1.0, 0.0, -1.0, -r5])
    assert res.summary["statistic"] == pytest.approx(s[:2].sum() - s[2:].sum())
    d = (s[:2].mean() - s[2:].mean()) / s.std(ddof=1)
    assert res.summary["effect_size"]["estimate"] == pytest.approx(d)
    # X gets the two largest scores: 1 of the 6 partitions is as extreme (one-sided);
    # the reported p is two-sided (it and its mirror image: 2 of 6)
    assert res.summary["p_one_sided"] == pytest.approx(1 / 6)
    assert res.summary["p_value"] == pytest.approx(2 / 6)
    assert res.summary["exact"] is True
    assert list(res.items["text"]) == ["x1", "x2", "y1", "y2"]
    np.testing.assert_allclose(res.items["association"], s)


def test_weat_is_antisymmetric_in_attributes() -> None:
    t1 = _test(["x1", "x2"], ["y1", "y2"], ["a", "a2"], ["b", "b2"])
    t2 = _test(["x1", "x2"], ["y1", "y2"], ["b", "b2"], ["a", "a2"])
    r1, r2 = weat(_vectors(), t1, n_resamples=100), weat(_vectors(), t2, n_resamples=100)
    assert r1.summary["effect_size"]["estimate"] == pytest.approx(
        -r2.summary["effect_size"]["estimate"])
    assert r1.summary["statistic"] == pytest.approx(-r2.summary["statistic"])


def test_oov_words_are_dropped_and_reported() -> None:
    t = _test(["x1", "x2", "zzz"], ["y1", "y2"], ["a", "a2", "qqq"], ["b", "b2"])
    res = weat(_vectors(), t, max_oov=0.5, n_resamples=100)
    assert res.summary["n_oov"] == {"X": 1, "Y": 0, "A": 1, "B": 0}
    assert res.summary["sizes"] == {"X": 2, "Y": 2, "A": 2, "B": 2}
    assert sorted(res.tables["oov"]["text"]) == ["qqq", "zzz"]
    assert "zzz" not in set(res.items["text"])
    ref = weat(_vectors(), _test(["x1", "x2"], ["y1", "y2"], ["a", "a2"], ["b", "b2"]),
               n_resamples=100)
    assert res.summary["effect_size"]["estimate"] == pytest.approx(
        ref.summary["effect_size"]["estimate"])


def test_too_many_oov_words_is_an_error() -> None:
    t = _test(["x1", "zzz"], ["y1", "y2"], ["a"], ["b"])
    with pytest.raises(DataError, match=r"1 of 2 words of set X .* out of vocabulary"):
        weat(_vectors(), t, max_oov=0.2)


def test_set_left_empty_is_an_error() -> None:
    t = _test(["x1", "x2"], ["y1", "y2"], ["a"], ["nope", "nada"])
    with pytest.raises(DataError, match="every word of set B"):
        weat(_vectors(), t, max_oov=1.0)


def test_unbalanced_targets_keep_their_sizes() -> None:
    t = _test(["x1", "x2", "a2"], ["y1", "y2"], ["a"], ["b"])
    res = weat(_vectors(), t, n_resamples=100)
    assert res.summary["sizes"]["X"] == 3 and res.summary["sizes"]["Y"] == 2
    assert res.summary["n_permutations"] == math.comb(5, 3)


def test_phrases_mean_of_word_vectors() -> None:
    v = _vectors()
    t = _test(["x1 x2", "x2"], ["y1", "y2"], ["a"], ["b"])
    with pytest.raises(DataError, match="out of vocabulary"):
        weat(v, t)
    res = weat(v, t, phrases="mean", n_resamples=100)
    mean_vec = (np.array(VOCAB["x1"]) + np.array(VOCAB["x2"])) / 2
    cos_a = mean_vec[0] / np.linalg.norm(mean_vec)
    cos_b = mean_vec[1] / np.linalg.norm(mean_vec)
    assert res.items["association"].iloc[0] == pytest.approx(cos_a - cos_b)


def _loop_weat_d(vecs: WordVectors, t: AssociationTest) -> float:
    """Plain-Python WEAT effect size, written independently of the measure."""
    def vec(w: str) -> list[float]:
        return [float(z) for z in vecs.vectors([vecs.key_for(w)])[0]]

    def cos(u: list[float], w: list[float]) -> float:
        dot = sum(p * q for p, q in zip(u, w, strict=True))
        return dot / math.sqrt(sum(p * p for p in u)) / math.sqrt(sum(q * q for q in w))

    def s(w: str) -> float:
        a = [cos(vec(w), vec(z)) for z in t.attr1.examples]
        b = [cos(vec(w), vec(z)) for z in t.attr2.examples]
        return sum(a) / len(a) - sum(b) / len(b)

    sx = [s(w) for w in t.targ1.examples]
    sy = [s(w) for w in t.targ2.examples]
    allv = sx + sy
    mu = sum(allv) / len(allv)
    sd = math.sqrt(sum((z - mu) ** 2 for z in allv) / (len(allv) - 1))
    return (sum(sx) / len(sx) - sum(sy) / len(sy)) / sd


def test_a_mistyped_test_name_is_told_the_near_ones(data_dir: Path) -> None:
    folder = data_dir / "seat" / "tests"
    with pytest.raises(DataError, match="did you mean weat6 or weat6b"):
        resolve_test("weat66", folder)
    with pytest.raises(DataError, match="did you mean sent-weat6 or"):
        resolve_test("sent_weat6", folder)
    with pytest.raises(DataError, match="did you mean weat6 or"):  # another case
        resolve_test("WEAT6", folder)
    with pytest.raises(DataError, match=r"\(e\.g\. ") as err:  # near none: a few names
        resolve_test("gender", folder)
    assert "did you mean" not in str(err.value)


def test_weat6_on_glove_6b_50d(data_dir: Path) -> None:
    vecs = load_vectors("glove-6b-50d")
    t = resolve_test("weat6", data_dir / "seat" / "tests")
    res = weat(vecs, t, n_resamples=1000)
    d = res.summary["effect_size"]["estimate"]
    assert d == pytest.approx(_loop_weat_d(vecs, t), rel=1e-9)
    # male names <-> career, female names <-> family (Caliskan et al.: d = 1.81 on 840B)
    assert d > 1.0 and res.summary["p_value"] < 0.01
    assert res.summary["exact"] and res.summary["n_permutations"] == math.comb(16, 8)
    assert res.metadata["data"]["file_sha256"] == t.sha256
    assert res.metadata["model"]["name"] == "glove-6b-50d"


def test_cli_weat(tmp_path: Path, data_dir: Path) -> None:
    from genderscope.cli.app import app

    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["run", "weat", "--vectors", "glove-6b-50d", "--test", "weat6",
                                 "--test", "weat7", "--tests-dir",
                                 str(data_dir / "seat" / "tests"), "--out", str(out),
                                 "--store", str(tmp_path / "s.sqlite"), "--json"])
    assert r.exit_code == 0, r.output
    payload = json.loads(r.output)
    assert set(payload["runs"]) == {"weat6", "weat7"}
    summary = json.loads((out / "weat6" / "summary.json").read_text())
    assert summary["method"] == "weat" and summary["summary"]["test"] == "weat6"
    assert (out / "tests.csv").is_file()
    # the tests run together are one family: Holm over their two-sided p, in the table
    # (tests.csv, the --json rows), while each run's summary.json and record stay its own
    from genderscope.stats import adjust_pvalues
    s7 = json.loads((out / "weat7" / "summary.json").read_text())["summary"]
    raw = [summary["summary"]["p_value"], s7["p_value"]]
    assert "p_adjusted" not in summary["summary"] and "p_adjusted" not in s7
    assert [r["p_holm"] for r in payload["tests"]] == pytest.approx(adjust_pvalues(raw))
    table = pd.read_csv(out / "tests.csv")
    assert list(table["p_holm"]) == pytest.approx(adjust_pvalues(raw))
    assert set(table["holm_family"]) == {"weat tests of this command: weat6, weat7"}
    from genderscope.store import Store

    s = Store(tmp_path / "s.sqlite")
    assert len(s.list_runs("weat")) == 2
    s.close()
    for name, saved in (("weat6", summary["summary"]), ("weat7", s7)):
        shown = CliRunner().invoke(app, ["runs", "show", payload["runs"][name], "--store",
                                         str(tmp_path / "s.sqlite"), "--json"])
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.output)["summary"] == saved


def test_strong_effect_either_way_is_read_as_bias() -> None:
    """Issue 22 row 4: the attribute sets swapped give a large negative d; the reading
    uses the two-sided p (Holm over the family) and says "bias", never "no evidence"
    (before, the one-sided p of the swapped test was ~1)."""
    from genderscope.reporting.cards.weat import headlines
    from genderscope.results import Result
    from genderscope.stats import annotate_family

    rng = np.random.default_rng(0)
    vocab = {f"x{i}": (1.0, 0.2 * rng.random()) for i in range(8)}
    vocab |= {f"y{i}": (0.2 * rng.random(), 1.0) for i in range(8)}
    vecs = _vectors(vocab)
    xs, ys = [f"x{i}" for i in range(8)], [f"y{i}" for i in range(8)]
    runs = [weat(vecs, _test(xs, ys, ["a", "a2"], ["b", "b2"]), n_resamples=50),
            weat(vecs, _test(xs, ys, ["b", "b2"], ["a", "a2"]), n_resamples=50)]
    runs[1].summary["test"] = "swapped"
    annotate_family([r.summary for r in runs], "toy family")
    card = Result("weat", {"tests": {r.summary["test"]: r.summary for r in runs}},
                  pd.DataFrame(), {})
    swapped = headlines(card)[1]
    assert swapped.estimate < -1.0 and swapped.ci_high < 0
    assert runs[1].summary["p_one_sided"] > 0.99 and runs[1].summary["p_value"] < 0.01
    assert not swapped.reading().startswith("No evidence"), swapped.reading()
    assert "bias" in swapped.reading().lower()
