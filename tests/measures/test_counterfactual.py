"""Counterfactual flip test: arithmetic on a fake swapper and classifier, the real swapper,
bad input and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.counterfactual import diff_ci, flip_test
from genderscope.models.classifier import Classifier

SWAP = {"he": "she", "she": "he", "his": "her", "her": "his", "man": "woman", "woman": "man"}
MALE = {"he", "his", "man"}


class FakeSwapper:
    def swap(self, text: str) -> str:
        return " ".join(SWAP.get(w, w) for w in text.split())

    def direction(self, text: str) -> str:
        ws = set(text.split())
        m, f = bool(ws & MALE), bool(ws & (set(SWAP) - MALE))
        return "mixed" if m and f else "m2f" if m else "f2m" if f else "none"


def table_classifier(table: dict[str, list[float]]) -> Classifier:
    return Classifier(lambda texts: np.array([table[t] for t in texts]), labels=["a", "b"])


def test_flip_rate_and_deltas_by_hand():
    table = {
        "he runs": [0.8, 0.2], "she runs": [0.4, 0.6],  # m2f, flips, delta -0.4
        "his dog": [0.7, 0.3], "her dog": [0.6, 0.4],  # m2f, no flip, delta -0.1
        "she sings": [0.1, 0.9], "he sings": [0.2, 0.8],  # f2m, no flip, delta -0.1
        "a cat": [0.5, 0.5],  # nothing to swap
        "he and she": [0.9, 0.1],  # mixed, swap gives "she and he"
        "she and he": [0.9, 0.1],
    }
    texts = ["he runs", "his dog", "she sings", "a cat", "he and she"]
    res = flip_test(texts, table_classifier(table), FakeSwapper(), n_resamples=1000,
                    gold=["a", "a", "b", "a", "b"])
    s = res.summary
    assert (s["n_texts"], s["n_swapped"], s["n_unswappable"]) == (5, 4, 1)
    assert s["m2f"]["n"] == 2 and s["f2m"]["n"] == 1 and s["mixed"]["n"] == 1
    assert s["all"]["flip_rate"]["estimate"] == pytest.approx(1 / 4)
    assert s["m2f"]["flip_rate"]["estimate"] == pytest.approx(1 / 2)
    assert s["m2f"]["mean_abs_delta"]["estimate"] == pytest.approx(0.25)
    assert s["m2f"]["mean_delta"]["estimate"] == pytest.approx(-0.25)
    assert s["m2f"]["max_abs_delta"] == pytest.approx(0.4)
    assert s["f2m"]["mean_abs_delta"]["estimate"] == pytest.approx(0.1)
    assert s["all"]["max_abs_delta"] == pytest.approx(0.4)
    assert s["m2f_minus_f2m"]["flip_rate"]["estimate"] == pytest.approx(0.5)
    assert s["accuracy_original"] == pytest.approx(4 / 5)
    assert s["accuracy_swapped"] == pytest.approx(3 / 5)
    items = res.items.set_index("text")
    assert not items.loc["a cat", "swapped"] and items.loc["a cat", "direction"] == "none"
    assert items.loc["he runs", "label_swapped"] == "b" and items.loc["he runs", "flip"]
    ex = res.tables["examples"]
    assert ex.iloc[0]["text"] == "he runs" and len(ex) == 4
    assert res.metadata["classifier_queries"] == 9  # 5 originals + 4 swaps, each once


def test_identical_texts_asked_once():
    seen: list[str] = []

    def fn(texts):
        seen.extend(texts)
        return np.tile([0.5, 0.5], (len(texts), 1))

    flip_test(["he runs", "he runs", "she runs"], Classifier(fn), FakeSwapper(),
              n_resamples=100)
    assert sorted(seen) == ["he runs", "she runs"]


def test_empty_and_mismatched_input():
    clf = table_classifier({})
    with pytest.raises(DataError, match="no texts"):
        flip_test([], clf, FakeSwapper())
    with pytest.raises(DataError, match="gold"):
        flip_test(["x"], clf, FakeSwapper(), gold=["a", "b"])


def test_no_gendered_words_gives_nan_rates_not_errors():
    res = flip_test(["a cat", "the dog"], table_classifier({"a cat": [0.5, 0.5],
                                                           "the dog": [0.1, 0.9]}),
                    FakeSwapper(), n_resamples=100)
    assert res.summary["n_unswappable"] == 2
    assert np.isnan(res.summary["all"]["flip_rate"]["estimate"])


def test_diff_ci_covers_difference():
    rng = np.random.default_rng(0)
    a, b = rng.normal(1.0, 1, 400), rng.normal(0.0, 1, 400)
    d = diff_ci(a, b, n_resamples=2000)
    assert d["estimate"] == pytest.approx(a.mean() - b.mean())
    assert d["ci_low"] < d["estimate"] < d["ci_high"] and d["ci_low"] > 0.5


def test_with_real_gender_swapper():
    swap = pytest.importorskip("genderscope.swap")
    swapper = swap.GenderSwapper(names=False)

    def fn(texts):  # class "b" likes female words
        p = np.array([0.8 if any(w in t.lower().split() for w in ("she", "her", "woman"))
                      else 0.3 for t in texts])
        return np.column_stack([1 - p, p])

    res = flip_test(["He is a man.", "She smiled.", "The manager left."], Classifier(fn),
                    swapper, n_resamples=100)
    it = res.items.set_index("text_id")
    assert it.loc[0, "swapped_text"] == "She is a woman."
    assert it.loc[0, "direction"] == "m2f" and it.loc[0, "flip"]
    assert it.loc[1, "direction"] == "f2m"
    assert not it.loc[2, "swapped"]  # "manager" is not a gendered word


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_cli_counterfactual(tmp_path: Path):
    pytest.importorskip("genderscope.swap")
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    mod = tmp_path / "fem.py"
    mod.write_text("import numpy as np\n"
                   "def f(texts):\n"
                   "    p = np.array([0.8 if 'she' in t.lower().split() else 0.3 for t in texts])\n"
                   "    return np.column_stack([1 - p, p])\n")
    data = tmp_path / "d.txt"
    data.write_text("he is here\nshe is here\n\nno gender here\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["run", "counterfactual", "--classifier", f"{mod}:f",
                                   "--data", str(data), "--out", str(out),
                                   "--store", str(tmp_path / "s.sqlite")])
    assert res.exit_code == 0, res.output
    s = json.loads((out / "summary.json").read_text())["summary"]
    assert s["n_texts"] == 3 and s["n_swapped"] == 2
    assert s["all"]["flip_rate"]["estimate"] == 1.0
    assert (out / "examples.csv").is_file() and (out / "items.csv").is_file()


def test_cli_counterfactual_empty_data_exit_2(tmp_path: Path):
    data = tmp_path / "empty.txt"
    data.write_text("\n\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "run",
         "counterfactual", "--classifier", "json:loads", "--data", str(data)],
        capture_output=True, text=True, timeout=120, env=_env(), cwd=tmp_path)
    assert proc.returncode == 2 and "empty data" in proc.stderr, proc.stderr


def test_load_texts_formats_and_errors(tmp_path: Path):
    from genderscope.datasets.texts import load_texts

    csv = tmp_path / "t.csv"
    csv.write_text("id,tweet,class\n1,he runs,0\n2,she sings,1\n3,a cat,0\n")
    td = load_texts(csv, label_column="class")
    assert td.texts == ["he runs", "she sings", "a cat"] and td.labels == ["0", "1", "0"]
    assert len(td.sha256) == 64
    sub = load_texts(csv, limit=2, sample_seed=1)
    assert len(sub.texts) == 2 and set(sub.texts) <= set(td.texts)
    assert load_texts(csv, limit=2, sample_seed=1).texts == sub.texts
    with pytest.raises(DataError, match="no label column 'gold'"):
        load_texts(csv, label_column="gold")
    bad = tmp_path / "b.csv"
    bad.write_text("text,x\nok,1\n,2\n")
    with pytest.raises(DataError, match=r"b.csv:3 \(column 'text'\): empty text"):
        load_texts(bad)
    with pytest.raises(DataError, match="not found"):
        load_texts(tmp_path / "missing.txt")
    with pytest.raises(GenderscopeError, match="--limit must be at least 1, got 0"):
        load_texts(csv, limit=0)


def test_clustered_mean_deltas_stay_in_their_range():
    """Over 4 templates, one moving the probability by 0.9 and three by 0.001, the cluster
    t interval of mean |delta| starts below 0 (-0.49): its ends are clipped to [0, 1],
    mean delta's to [-1, 1]."""
    def proba(texts: list[str]) -> np.ndarray:
        return np.array([[0.05, 0.95] if t.startswith("she t0") else
                         [0.949, 0.051] if t.startswith("she") else [0.95, 0.05]
                         for t in texts])

    texts = [f"he t{k} {w}" for k in range(4) for w in ("a", "b")]
    res = flip_test(texts, Classifier(proba, labels=["a", "b"]), FakeSwapper(),
                    n_resamples=200, clusters=[t.split()[1] for t in texts])
    m = res.summary["all"]["mean_abs_delta"]
    assert m["method"] != "percentile bootstrap" and m["n_units"] == 4
    assert m["estimate"] == pytest.approx((0.9 + 3 * 0.001) / 4)
    assert m["ci_low"] == 0.0 < m["estimate"] < m["ci_high"] <= 1.0
    d = res.summary["all"]["mean_delta"]
    assert -1.0 <= d["ci_low"] < d["estimate"] < d["ci_high"] <= 1.0
