"""A stored run whose mean has no interval (its units show no spread; the bounds are
stored as null) prints and plots with the reason, whether computed now or read back."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from genderscope.cli.app import app


def test_amplification_without_spread_prints_its_reason_when_read_back(tmp_path: Path) -> None:
    (tmp_path / "train.txt").write_text("a man is cooking\na woman is cooking\n"
                                        "a woman is cooking in a kitchen\n")
    (tmp_path / "gen.txt").write_text("a woman is cooking\na woman is cooking\n")
    (tmp_path / "objs.txt").write_text("cooking\nkitchen\n")
    args = ["run", "bias-amplification", "--train", str(tmp_path / "train.txt"),
            "--generated", str(tmp_path / "gen.txt"), "--objects", str(tmp_path / "objs.txt"),
            "--store", str(tmp_path / "s.sqlite"), "--no-progress"]
    outs = []
    for folder in ("first", "again"):  # the second is the stored run, read back
        res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / folder)],
                                 env={"COLUMNS": "200"})
        assert res.exit_code == 0, res.output
        assert (tmp_path / folder / "amplification.png").is_file()
        outs.append(res.output)
    assert "interval undefined" in outs[1] and "None" not in outs[1]
    assert "one unit (objects)" in outs[0]
