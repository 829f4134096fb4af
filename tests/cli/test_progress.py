"""Every command that can run longer than a few seconds draws a Rich progress bar, and
none with --no-progress. (``compare``, ``runs`` and ``list`` run no model and take
well under a second.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import rich.progress
from typer.testing import CliRunner

from genderscope.cli.app import app

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.transforms.test_attack import _write_fixtures  # noqa: E402

pytestmark = pytest.mark.slow

LM = ["--limit", "4", "--resamples", "100"]
COMMANDS = {
    "run winobias": ["run", "winobias", "--model", "{gpt2}", "--data", "{data}", *LM],
    "run dawinobias": ["run", "dawinobias", "--model", "{gpt2}", "--data", "{data}", *LM],
    "run abc": ["run", "abc", "--model", "{gpt2}", "--lang", "sv", "--data", "{data}", *LM],
    "run crows-pairs": ["run", "crows-pairs", "--model", "{gpt2}", "--data", "{data}",
                        "--limit", "4"],
    "run stereoset": ["run", "stereoset", "--model", "{gpt2}", "--data", "{data}", "--limit",
                      "4", "--resamples", "100"],
    "run bec-pro": ["run", "bec-pro", "--model", "{bert}", "--limit", "30", "--resamples",
                    "100", "--no-plot"],
    "run lpbs": ["run", "lpbs", "--model", "{gpt2}", "--resamples", "100"],
    "probe": ["probe", "--model", "{bert}", "nurse"],
    "run weat": ["run", "weat", "--vectors", "glove-6b-50d", "--test", "{weat_test}"],
    "run counterfactual": ["run", "counterfactual", "--classifier", "{clf}", "--data",
                           "{texts}"],
    "run bias-amplification": ["run", "bias-amplification", "--ratios", "{ratios}"],
    "attack": ["attack", "--classifier", "{clf}", "--data", "{texts}", "--vectors",
               "{vectors}", "--lm", "none", "--pop-size", "4", "--generations", "2"],
    "debias cds": ["debias", "cds", "--model", "{bert}", "--corpus", "{texts_txt}",
                   "--max-steps", "2", "--epochs", "1", "--no-names"],
    "report": ["report", "--model", "{bert}", "--quick", "--measure", "probe", "--data",
               "{data}"],
    "sweep": ["sweep", "-m", "{gpt2}", "--measure", "probe", "--quick", "--data", "{data}"],
    "run seat": ["run", "seat", "--test", "{seat_test}"],
    "run-many": ["run-many", "--vectors", "glove-6b-50d", "--test", "{weat_test}", "--metric",
                 "weat"],
}
OUT = {"report": "{tmp}/{n}.html", "sweep": "{tmp}/{n}.html"}
SLOW = {"sweep", "run seat"}  # starts Ray / loads a real sentence encoder


@pytest.fixture()
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Descriptions of the tasks of every progress display started (and not disabled)."""
    shown: list[str] = []
    original = rich.progress.Progress.start

    def start(self: rich.progress.Progress) -> None:
        if not self.disable:
            shown.append("bar")
        original(self)

    monkeypatch.setattr(rich.progress.Progress, "start", start)
    return shown


def _args(name: str, values: dict[str, str], n: int) -> list[str]:
    args = [a.format(**values) for a in COMMANDS[name]]
    if name == "debias cds":
        return [*args, "--out", f"{values['tmp']}/cds{n}"]
    if name == "probe":
        return args
    out = OUT.get(name, "{tmp}/out{n}").format(n=n, **values)
    return [*args, "--out", out]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in COMMANDS])
def test_command_draws_progress_unless_told_not_to(
        name: str, started: list[str], tmp_path: Path, data_dir: Path, tiny_gpt2_dir: Path,
        tiny_bert_dir: Path) -> None:
    vec, mod, texts = _write_fixtures(tmp_path)
    (tmp_path / "c.txt").write_text("He is a doctor.\nShe met the king.\nHis aunt sang.\n")
    values = {"gpt2": str(tiny_gpt2_dir), "bert": str(tiny_bert_dir), "data": str(data_dir),
              "vectors": str(vec), "clf": f"{mod}:gender_probs", "texts": str(texts),
              "texts_txt": str(tmp_path / "c.txt"), "tmp": str(tmp_path),
              "weat_test": str(data_dir / "seat" / "tests" / "weat6.jsonl"),
              "seat_test": str(data_dir / "seat" / "tests" / "sent-weat9.jsonl"),
              "ratios": str(data_dir / "reducingbias" / "COCO_gender_ratio_dev_res.csv")}
    runner = CliRunner()  # a fresh store each time: cached scores would need no bar
    res = runner.invoke(app, [*_args(name, values, 1), "--no-progress"],
                        env={"GENDERSCOPE_STORE": str(tmp_path / "s1.sqlite")})
    assert res.exit_code == 0, res.output
    assert started == [], f"{name} drew a progress bar with --no-progress"
    res = runner.invoke(app, _args(name, values, 2),
                        env={"GENDERSCOPE_STORE": str(tmp_path / "s2.sqlite")})
    assert res.exit_code == 0, res.output
    assert started, f"{name} drew no progress bar"
