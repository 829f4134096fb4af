"""Mean bias amplification (Zhao et al. 2017): formula, caption counting, ratio
tables, bad input, plot and CLI."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.datasets.captions import (
    load_captions,
    load_gender_words,
    load_objects,
    load_ratio_table,
)
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.amplification import (
    bias_amplification,
    bias_amplification_from_ratios,
    bias_scores,
    count_cooccurrences,
    mean_bias_amplification,
    objects_from_tagger,
    per_object_amplification,
)
from genderscope.reporting.cards.amplification import BIAS_AMPLIFICATION, plot_amplification
from genderscope.stats import bootstrap_ci

GW = {"man": ["man", "he", "his"], "woman": ["woman", "she", "her"]}
TOY = ["A man is cooking in the kitchen.", "A woman is cooking dinner.",
       "A woman holds a knife in the kitchen."]


def test_toy_example_same_captions_is_zero() -> None:
    res = bias_amplification(TOY, TOY, ["cooking", "kitchen", "knife"], load_gender_words(),
                             n_resamples=100)
    assert res.summary["mean_bias_amplification"]["estimate"] == 0.0
    assert res.summary["n_objects"] == 3
    assert (res.items["amplification"] == 0.0).all()


def test_hand_computed_two_objects() -> None:
    train = ["man cooking", "woman cooking", "woman cooking",
             "man ball", "man ball", "man ball", "woman ball"]
    gen = ["woman cooking", "woman cooking", "woman cooking", "man ball", "woman ball"]
    res = bias_amplification(train, gen, ["cooking", "ball"], GW, n_resamples=100)
    items = res.items.set_index("object")
    # cooking: b*(woman) = 2/3 -> b~ = 1: +1/3; ball: b*(man) = 3/4 -> b~ = 1/2: -1/4
    assert items.loc["cooking", "amplification"] == pytest.approx(1 / 3)
    assert items.loc["ball", "amplification"] == pytest.approx(-1 / 4)
    assert items.loc["cooking", "train_majority"] == "woman"
    assert res.summary["mean_bias_amplification"]["estimate"] == pytest.approx((1 / 3 - 1 / 4) / 2)
    assert items.loc["cooking", "c_train_woman"] == 2 and items.loc["ball", "c_generated_man"] == 1
    assert [r["object"] for r in res.summary["most_amplified"]] == ["cooking", "ball"]


def test_formula_three_groups_and_ties() -> None:
    b_train = np.array([[0.4, 0.4, 0.2], [0.5, 0.3, 0.2], [1 / 3, 1 / 3, 1 / 3]])
    b_out = np.array([[0.5, 0.3, 0.2], [0.6, 0.2, 0.2], [1.0, 0.0, 0.0]])
    # row 1: both groups above 1/3 count: +0.1 - 0.1; row 2: only g1: +0.1; row 3: none
    np.testing.assert_allclose(per_object_amplification(b_train, b_out), [0.0, 0.1, 0.0],
                               atol=1e-12)
    assert mean_bias_amplification(b_train, b_out) == pytest.approx(0.1 / 3)
    np.testing.assert_allclose(bias_scores(np.array([[1, 3], [0, 0]])),
                               [[0.25, 0.75], [np.nan, np.nan]])


def test_caption_counting_unit() -> None:
    caps = ["A man and a woman eat pizza.", "Two teddy bears on a bed, she smiles.",
            "Pizza on a plate.", "He eats pizza, his pizza."]
    counts, stats = count_cooccurrences(caps, ["pizza", "teddy_bear", "bed"], GW)
    assert stats == {"captions": 4, "gendered": 2, "mixed": 1, "ungendered": 1}
    # each caption counts once per object, even with two mentions
    np.testing.assert_array_equal(counts, [[1, 0], [0, 1], [0, 1]])
    counts, _ = count_cooccurrences(caps, ["teddy_bear"], GW, plurals=False)
    assert counts.sum() == 0


def test_unseen_objects_are_reported_and_excluded() -> None:
    train = ["man pizza", "woman pizza", "woman pizza", "man bike"]
    gen = ["woman pizza", "man pizza"]
    res = bias_amplification(train, gen, ["pizza", "bike", "zebra"], GW, n_resamples=50)
    status = res.items.set_index("object")["status"]
    assert status["zebra"] == "unseen in training"
    assert status["bike"] == "unseen in generated"
    assert res.summary["n_objects"] == 1
    assert res.summary["n_unseen_training"] == 1 and res.summary["n_unseen_generated"] == 1
    assert res.summary["mean_bias_amplification"]["estimate"] == pytest.approx(0.5 - 2 / 3)


def test_objects_never_seen_is_an_error() -> None:
    with pytest.raises(DataError, match="none of the 2 objects co-occurs .* training"):
        bias_amplification(["man pizza"], ["man pizza"], ["zebra", "kite"], GW)
    with pytest.raises(DataError, match="in the generated"):
        bias_amplification(["man pizza"], ["man bike"], ["pizza"], GW)


def test_empty_and_ungendered_corpora(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="training corpus is empty"):
        bias_amplification([], TOY, ["kitchen"], GW)
    with pytest.raises(DataError, match="generated corpus is empty"):
        bias_amplification(TOY, [], ["kitchen"], GW)
    with pytest.raises(DataError, match="no caption of the generated corpus"):
        bias_amplification(TOY, ["a cat on a mat", "a dog"], ["kitchen"], GW)
    (tmp_path / "empty.txt").write_text("\n  \n")
    with pytest.raises(DataError, match="holds no captions"):
        load_captions(tmp_path / "empty.txt")


def test_gender_word_objects_are_dropped() -> None:
    res = bias_amplification(TOY, TOY, ["kitchen", "woman"], GW, n_resamples=50)
    assert list(res.items["object"]) == ["kitchen"]
    assert res.metadata["params"]["objects_dropped_as_gender_words"] == ["woman"]


def test_caption_formats(tmp_path: Path) -> None:
    (tmp_path / "c.jsonl").write_text('{"caption": "a man"}\n\n{"text": "a woman"}\n')
    assert load_captions(tmp_path / "c.jsonl") == ["a man", "a woman"]
    pd.DataFrame({"id": [1, 2], "caption": ["x y", "z"]}).to_csv(tmp_path / "c.csv",
                                                                 index=False)
    assert load_captions(tmp_path / "c.csv") == ["x y", "z"]
    pd.DataFrame({"id": [1]}).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DataError, match="'caption' or 'text' column"):
        load_captions(tmp_path / "bad.csv")
    (tmp_path / "bad.jsonl").write_text('{"caption": "ok"}\n{"oops": 1}\n')
    with pytest.raises(DataError, match=r"bad.jsonl:2"):
        load_captions(tmp_path / "bad.jsonl")


def test_gender_word_lists(tmp_path: Path) -> None:
    gw = load_gender_words()
    assert set(gw) == {"man", "woman"}
    for w in ("man", "men", "boy", "he", "his"):
        assert w in gw["man"]
    for w in ("woman", "women", "girl", "she", "her"):
        assert w in gw["woman"]
    (tmp_path / "g.json").write_text(json.dumps({"a": ["x", "y"], "b": ["y"]}))
    with pytest.raises(DataError, match="'y' is in groups"):
        load_gender_words(tmp_path / "g.json")
    (tmp_path / "one.json").write_text(json.dumps({"a": ["x"]}))
    with pytest.raises(DataError, match="at least two"):
        load_gender_words(tmp_path / "one.json")
    (tmp_path / "objs.txt").write_text("# comment\nteddy_bear\n\nfork\nfork\n")
    assert load_objects(tmp_path / "objs.txt") == ["teddy_bear", "fork"]


def test_ratio_table_reducingbias(data_dir: Path) -> None:
    path = data_dir / "reducingbias" / "COCO_gender_ratio_dev_res.csv"
    before = bias_amplification_from_ratios(load_ratio_table(path), n_resamples=200)
    after = bias_amplification_from_ratios(
        load_ratio_table(path, predicted_column="gender_ratio_after_RBA"), n_resamples=200)
    df = pd.read_csv(path)
    r, p = df["training_ratio"], df["gender_ratio_before_RBA"]
    expected = np.where(r > 0.5, p - r, np.where(r < 0.5, r - p, 0.0)).mean()
    est = before.summary["mean_bias_amplification"]["estimate"]
    assert est == pytest.approx(expected)
    assert before.summary["n_objects"] == 66
    # RBA calibration reduces amplification (Zhao et al. 2017, Sec. 5)
    assert 0 < after.summary["mean_bias_amplification"]["estimate"] < est


def test_ci_resamples_objects_and_says_so(data_dir: Path) -> None:
    """The headline CI is a bootstrap over the objects (verbs) the mean runs over, and
    summary and report card name that unit."""
    train = ["man cooking", "woman cooking", "woman cooking", "man ball", "man ball",
             "man ball", "woman ball", "man car", "man car", "woman car"]
    gen = ["woman cooking", "woman cooking", "man ball", "woman ball", "man car"]
    res = bias_amplification(train, gen, ["cooking", "ball", "car"], GW, n_resamples=300,
                             seed=3)
    m = res.summary["mean_bias_amplification"]
    assert m["ci_unit"] == "objects" and m["n"] == 3
    per = res.items.set_index("object")["amplification"].to_numpy()
    ref = bootstrap_ci(per, n_resamples=300, seed=3)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx((ref.ci_low, ref.ci_high))
    assert res.summary["share_amplified"]["ci_unit"] == "objects"
    verbs = bias_amplification_from_ratios(load_ratio_table(
        data_dir / "reducingbias" / "imSitu_gender_ratio_dev_res.csv"), n_resamples=200)
    v = verbs.summary["mean_bias_amplification"]
    assert v["ci_unit"] == "verbs" and v["n"] == 212 and v["ci_low"] < v["ci_high"]
    h = BIAS_AMPLIFICATION.headlines(verbs)[0]
    assert h.ci_unit == "verbs" and "resampling verbs" in h.ci_text()


def test_ratio_table_errors(tmp_path: Path) -> None:
    pd.DataFrame({"object": ["a"], "pred": [0.5]}).to_csv(tmp_path / "r.csv")
    with pytest.raises(DataError, match="missing column 'training_ratio'"):
        load_ratio_table(tmp_path / "r.csv")
    pd.DataFrame({"object": ["a", "b"], "training_ratio": [0.2, 1.4],
                  "pred_ratio": [0.5, 0.5]}).to_csv(tmp_path / "r2.csv")
    with pytest.raises(DataError, match=r"r2.csv:3 \(column 'training_ratio'\)"):
        load_ratio_table(tmp_path / "r2.csv")
    pd.DataFrame({"thing": ["a"], "training_ratio": [0.2],
                  "pred_ratio": [0.5]}).to_csv(tmp_path / "r3.csv")
    with pytest.raises(DataError, match="no object column"):
        load_ratio_table(tmp_path / "r3.csv")


@pytest.mark.skipif(importlib.util.find_spec("spacy") is not None, reason="spaCy installed")
def test_tagger_missing_is_a_clear_error() -> None:
    with pytest.raises(GenderscopeError, match="--objects"):
        objects_from_tagger(TOY, GW)


def test_plot(tmp_path: Path, data_dir: Path) -> None:
    res = bias_amplification_from_ratios(
        load_ratio_table(data_dir / "reducingbias" / "imSitu_gender_ratio_dev_res.csv"),
        n_resamples=100)
    out = plot_amplification(res, tmp_path / "fig.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = plot_amplification(res, tmp_path / "fig.svg")
    assert "<svg" in svg.read_text()[:500]


@pytest.mark.slow
def test_cli_captions_and_ratios(tmp_path: Path, data_dir: Path) -> None:
    from genderscope.cli.app import app

    (tmp_path / "train.txt").write_text("\n".join(TOY) + "\n")
    (tmp_path / "objs.txt").write_text("cooking\nkitchen\nknife\n")
    runner = CliRunner()
    r = runner.invoke(app, ["run", "bias-amplification", "--train", str(tmp_path / "train.txt"),
                            "--generated", str(tmp_path / "train.txt"), "--objects",
                            str(tmp_path / "objs.txt"), "--out", str(tmp_path / "o"),
                            "--store", str(tmp_path / "s.sqlite"), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["summary"]["mean_bias_amplification"]["estimate"] == 0.0
    assert (tmp_path / "o" / "amplification.png").is_file()
    r = runner.invoke(app, ["run", "bias-amplification", "--ratios",
                            str(data_dir / "reducingbias" / "COCO_gender_ratio_dev_res.csv"),
                            "--out", str(tmp_path / "r"), "--store", str(tmp_path / "s.sqlite")])
    assert r.exit_code == 0, r.output
    assert "Mean bias amplification" in r.output


@pytest.mark.slow
def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "objs.txt").write_text("kitchen\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "run",
         "bias-amplification", "--train", str(tmp_path / "empty.txt"), "--generated",
         str(tmp_path / "empty.txt"), "--objects", str(tmp_path / "objs.txt"),
         "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "no captions" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("extra, message", [
    (["--gender-words", "GW"], "group 'a' must be a list of words"),
    (["--plot", "x.bogus"], "use a .png, .svg or .pdf"),
])
def test_cli_bad_options_exit_2(tmp_path: Path, extra: list[str], message: str) -> None:
    (tmp_path / "t.txt").write_text("a man rides a horse\n")
    (tmp_path / "gw.json").write_text('{"a": 1, "b": ["she"]}')
    extra = [str(tmp_path / "gw.json") if x == "GW" else x for x in extra]
    proc = subprocess.run(
        [sys.executable, "-c", "from genderscope.cli.app import main; main()", "run",
         "bias-amplification", "--train", str(tmp_path / "t.txt"), "--generated",
         str(tmp_path / "t.txt"), "--out", str(tmp_path / "o"), *extra],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_tagger_path_with_a_stub_spacy(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    class Tok:
        def __init__(self, text: str) -> None:
            self.lemma_ = text.rstrip("s") if text.endswith("s") else text
            self.pos_ = "VERB" if text.endswith("ing") else "NOUN"

    class Nlp:
        def pipe(self, texts: list[str], batch_size: int = 0):  # noqa: ANN201
            return ([Tok(w) for w in tokens_of(t)] for t in texts)

    def tokens_of(text: str) -> list[str]:
        return text.lower().replace(".", "").split()

    fake = types.SimpleNamespace(load=lambda name, disable=(): Nlp())
    monkeypatch.setitem(sys.modules, "spacy", fake)
    caps = ["man cooking pizzas", "woman cooking pizza", "woman holding kite"]
    assert objects_from_tagger(caps, GW) == ["kite", "pizza"]  # gender words excluded
    assert objects_from_tagger(caps, GW, pos=("VERB",), min_count=2) == ["cooking"]
