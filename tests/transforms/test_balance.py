"""``genderscope debias balance``: a caption corpus balanced by gender per object
(resampled exactly, or reweighted), written under the output rule; the corpus
measure on the balanced corpus shows the balanced value."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import genderscope as gs
from genderscope.cli.app import app
from genderscope.datasets.captions import load_captions, load_gender_words
from genderscope.measures.amplification_balance import balance, counts, label, reweight

GW = load_gender_words()
OBJECTS = ["kitchen", "ball", "bike", "umbrella"]


def _corpus(seed: int = 0) -> list[str]:
    """Skewed captions: kitchen 30 women / 10 men, ball 25 men / 5 women, bike 12 men /
    12 women, umbrella 8 men only; some captions mention two objects, some none."""
    caps = (["A woman in the kitchen."] * 30 + ["A man in the kitchen."] * 10
            + ["A man kicks a ball."] * 20 + ["A man kicks a ball in the kitchen."] * 5
            + ["A woman throws a ball."] * 5 + ["A man on a bike."] * 12
            + ["A woman on a bike."] * 12 + ["A man holds an umbrella."] * 8
            + ["A dog in the park."] * 6 + ["A man and a woman with a ball."] * 3)
    rng = np.random.default_rng(seed)
    return [caps[i] for i in rng.permutation(len(caps))]


def test_resample_is_exactly_balanced_and_seeded() -> None:
    caps = _corpus()
    done = balance(caps, OBJECTS, GW, method="resample", seed=3, n_resamples=200)
    lab = label(done["captions"], OBJECTS, GW)
    c = counts(lab)
    for o, row in zip(OBJECTS, c, strict=True):
        assert row[0] == row[1], (o, row)
    assert c[OBJECTS.index("umbrella")].sum() == 0  # seen with men only: emptied
    assert done["report"]["objects_emptied"] == ["umbrella"]
    assert done["after"]["mean_skew"]["estimate"] == 0.0
    assert done["before"]["mean_skew"]["estimate"] > 0.2
    # captions of no gender, or of both, are kept
    assert done["captions"].count("A dog in the park.") == 6
    assert done["captions"].count("A man and a woman with a ball.") == 3
    again = balance(caps, OBJECTS, GW, method="resample", seed=3, n_resamples=200)
    other = balance(caps, OBJECTS, GW, method="resample", seed=4, n_resamples=200)
    assert again["captions"] == done["captions"] and other["captions"] != done["captions"]


def test_reweight_balances_the_weighted_counts() -> None:
    lab = label(_corpus(), OBJECTS, GW)
    w, report = reweight(lab)
    c = counts(lab, w)
    for o in ("kitchen", "ball", "bike"):
        row = c[OBJECTS.index(o)]
        assert row[0] == pytest.approx(row[1], rel=1e-6)
    assert report["unbalanceable"] == ["umbrella"]
    assert report["max_relative_gap"] < 1e-6


def test_cli_then_the_corpus_measure_shows_the_balanced_value(tmp_path: Path) -> None:
    (tmp_path / "train.txt").write_text("\n".join(_corpus()) + "\n")
    (tmp_path / "objects.txt").write_text("\n".join(OBJECTS) + "\n")
    res = CliRunner().invoke(app, ["debias", "balance", "--corpus", str(tmp_path / "train.txt"),
                                   "--objects", str(tmp_path / "objects.txt"), "--out",
                                   str(tmp_path / "balanced.txt"), "--json"])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.output)
    assert printed["after"]["mean_skew"]["estimate"] == 0.0
    assert printed["before"]["mean_skew"]["ci_unit"] == "objects"
    # the corpus measure, balanced corpus against itself as training data and against
    # the original: b(o, man) = 1/2 for every object left
    r = gs.run("bias-amplification", None, train=tmp_path / "balanced.txt",
               generated=tmp_path / "train.txt", objects=tmp_path / "objects.txt",
               store=tmp_path / "s.sqlite")
    inc = r.items[r.items["status"] == "included"]
    assert set(inc["object"]) == {"kitchen", "ball", "bike"}
    assert (inc["b_train_man"] == 0.5).all()
    assert len(load_captions(tmp_path / "balanced.txt")) == printed["report"]["captions_after"]


def test_reweight_writes_a_weight_column(tmp_path: Path) -> None:
    (tmp_path / "train.txt").write_text("\n".join(_corpus()) + "\n")
    (tmp_path / "objects.txt").write_text("\n".join(OBJECTS) + "\n")
    args = ["debias", "balance", "--corpus", str(tmp_path / "train.txt"), "--objects",
            str(tmp_path / "objects.txt"), "--method", "reweight"]
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "w.csv")])
    assert res.exit_code == 0, res.output
    import pandas as pd

    frame = pd.read_csv(tmp_path / "w.csv")
    assert list(frame.columns) == ["caption", "weight"] and len(frame) == len(_corpus())
    kitchen_w = frame[frame.caption == "A woman in the kitchen."].weight.sum()
    kitchen_m = frame[frame.caption.str.contains("man in the kitchen|ball in the kitchen")
                      & frame.caption.str.startswith("A man")].weight.sum()
    assert kitchen_w == pytest.approx(kitchen_m, rel=1e-6)


@pytest.mark.parametrize("extra, message", [
    (["--out", "{dir}/train.txt"], "input"),                      # never overwrite an input
    (["--out", "{dir}/w.txt", "--method", "reweight"], ".jsonl"),  # weights need columns
    (["--out", "{dir}/b.txt", "--method", "shuffle"], "--method"),
    (["--out", "{dir}/exists.txt"], "already exists"),
])
def test_bad_input_exits_2_in_one_line(extra: list[str], message: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from genderscope.cli.app import main

    (tmp_path / "train.txt").write_text("\n".join(_corpus()) + "\n")
    (tmp_path / "objects.txt").write_text("\n".join(OBJECTS) + "\n")
    (tmp_path / "exists.txt").write_text("keep me\n")
    before = (tmp_path / "train.txt").read_text()
    monkeypatch.setattr("sys.argv", [
        "genderscope", "debias", "balance", "--corpus", str(tmp_path / "train.txt"),
        "--objects", str(tmp_path / "objects.txt"),
        *[a.format(dir=tmp_path) for a in extra]])
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert message in err and len([ln for ln in err.splitlines() if ln.strip()]) == 1
    assert (tmp_path / "train.txt").read_text() == before
    assert (tmp_path / "exists.txt").read_text() == "keep me\n"


@pytest.mark.parametrize("method", ["resample", "reweight"])
@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_the_balanced_corpus_keeps_every_field_of_its_input(method: str, suffix: str,
                                                             tmp_path: Path) -> None:
    """A .csv or .jsonl corpus written back keeps each kept caption's other fields (an
    image id, a source), not only the caption (and the weight)."""
    import pandas as pd

    caps = _corpus()
    rows = [{"image_id": f"img{i:03d}", "caption": c, "source": "coco" if i % 2 else "vg"}
            for i, c in enumerate(caps)]
    src = tmp_path / f"train{suffix}"
    if suffix == ".csv":
        pd.DataFrame(rows).to_csv(src, index=False)
    else:
        src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "objects.txt").write_text("\n".join(OBJECTS) + "\n")
    out = tmp_path / f"out{suffix}"
    res = CliRunner().invoke(app, ["debias", "balance", "--corpus", str(src), "--objects",
                                   str(tmp_path / "objects.txt"), "--method", method,
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    got = (pd.read_csv(out, dtype=str) if suffix == ".csv" else
           pd.DataFrame([json.loads(ln) for ln in out.read_text().splitlines()]))
    extra = ["weight"] if method == "reweight" else []
    assert list(got.columns) == ["image_id", "caption", "source", *extra]
    by_id = {r["image_id"]: r for r in rows}
    for _, row in got.iterrows():  # each kept row is its input row, field for field
        assert {k: row[k] for k in ("caption", "source")} == {
            k: by_id[row["image_id"]][k] for k in ("caption", "source")}
    assert len(got) == (len(caps) if method == "reweight" else
                        json.loads(CliRunner().invoke(app, [
                            "debias", "balance", "--corpus", str(src), "--objects",
                            str(tmp_path / "objects.txt"), "--out", str(tmp_path / "o2.txt"),
                            "--json"]).output)["report"]["captions_after"])


def test_reweight_refuses_a_corpus_with_a_weight_column(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from genderscope.cli.app import main

    src = tmp_path / "train.jsonl"
    src.write_text("".join(json.dumps({"caption": c, "weight": 1}) + "\n" for c in _corpus()))
    (tmp_path / "objects.txt").write_text("\n".join(OBJECTS) + "\n")
    monkeypatch.setattr("sys.argv", [
        "genderscope", "debias", "balance", "--corpus", str(src), "--objects",
        str(tmp_path / "objects.txt"), "--method", "reweight", "--out",
        str(tmp_path / "w.jsonl")])
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "already has a 'weight' column" in err
    assert not (tmp_path / "w.jsonl").exists()
