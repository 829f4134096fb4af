"""The Python API (genderscope.run / load_model / report / compare) and its README example."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import genderscope as gs
from genderscope.errors import GenderscopeError

ROOT = Path(__file__).resolve().parents[2]


def readme_api_example() -> str:
    """The python block under README's 'From Python' heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### From Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_all_lists_exactly_the_api() -> None:
    assert sorted(gs.__all__) == ["Query", "Result", "compare", "debias", "load_model",
                                   "plot", "report", "run", "run_many"]
    for name in gs.__all__:
        assert callable(getattr(gs, name))


def test_import_is_light() -> None:
    code = ("import sys, genderscope as gs; gs.run; gs.report; "
            "print(sorted(m for m in ('torch', 'transformers', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_readme_example_runs(tiny_gpt2_dir: Path, data_dir: Path, tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's example, verbatim except the model: a tiny offline GPT-2."""
    code = readme_api_example()
    assert '"smollm2"' in code
    code = code.replace('"smollm2"', repr(str(tiny_gpt2_dir)))
    monkeypatch.setenv("GENDERSCOPE_DATA", str(data_dir))
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own docs
    r = scope["r"]
    assert isinstance(r, gs.Result)
    assert len(r.items) == 40 and {"pair_id", "stereotypical_preferred"} <= set(r.items)
    assert (tmp_path / "crows-pairs.png").stat().st_size > 0
    assert json.loads(r.to_json())["metadata"]["data"]["limit"] == 40
    page = scope["page"]
    assert (tmp_path / "report.html").is_file()
    assert [s.measure.name for s in page.sections] == ["crows-pairs"]


def test_run_records_the_call_and_seed(tiny_gpt2_dir: Path, data_dir: Path) -> None:
    r = gs.run("crows-pairs", model=str(tiny_gpt2_dir), data=data_dir, limit=5,
               subset_seed=3)
    assert r.metadata["command"].startswith("genderscope.run('crows-pairs'")
    assert r.metadata["data"]["subset_seed"] == 3
    from genderscope.store import Store

    again = Store().load_run(r.metadata["run_id"])
    assert again.items["pair_id"].tolist() == r.items["pair_id"].tolist()


@pytest.mark.slow
def test_cli_and_api_give_the_same_numbers(tiny_gpt2_dir: Path, data_dir: Path,
                                           tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    res = CliRunner().invoke(app, ["run", "stereoset", "--model", str(tiny_gpt2_dir),
                                   "--data", str(data_dir), "--limit", "12", "--seed", "4",
                                   "--resamples", "200", "--out", str(tmp_path / "cli"),
                                   "--no-progress", "--json"])
    assert res.exit_code == 0, res.output
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text())
    api = gs.run("stereoset", model=str(tiny_gpt2_dir), data=data_dir, limit=12, seed=4,
                 resamples=200)
    assert cli["summary"] == json.loads(api.to_json())["summary"]


@pytest.mark.parametrize("call", [
    lambda: gs.run("no-such-measure", model="x"),
    lambda: gs.run("crows-pairs", model="x", colour="red"),
    lambda: gs.run("stereoset", model="x", split="test"),
    lambda: gs.load_model("x", kind="teapot"),
])
def test_user_mistakes_are_one_line_errors(call) -> None:
    with pytest.raises(GenderscopeError):
        call()


def test_compare_needs_the_same_measure(tiny_gpt2_dir: Path, data_dir: Path) -> None:
    a = gs.run("crows-pairs", model=str(tiny_gpt2_dir), data=data_dir, limit=6)
    b = gs.run("crows-pairs", model=str(tiny_gpt2_dir), data=data_dir, limit=6,
               start_token="none")
    diff = gs.compare(a, b, resamples=200)
    assert diff.summary["n_items"] == 6
    again = gs.compare(a.metadata["run_id"], b.metadata["run_id"], resamples=200)
    assert json.loads(again.to_json())["summary"] == json.loads(diff.to_json())["summary"]


def test_weat_through_the_api_matches_the_cli(data_dir: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    tests_dir = data_dir / "seat" / "tests"
    res = CliRunner().invoke(app, ["run", "weat", "--vectors", "glove-6b-50d", "--test",
                                   "weat6", "--tests-dir", str(tests_dir), "--out",
                                   str(tmp_path / "cli"), "--json"])
    assert res.exit_code == 0, res.output
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text())
    vecs = gs.load_model("glove-6b-50d", kind="vectors")
    r = gs.run("weat", model=vecs, test="weat6", tests_dir=tests_dir)
    assert r.metadata["seed"] == 0
    assert json.loads(r.to_json())["summary"] == cli["summary"]


def test_load_model_knows_the_packaged_vectors_and_encoder_by_name(tmp_path: Path) -> None:
    """``gs.load_model("glove-6b-50d")`` (kind auto) loads the packaged word vectors, as
    ``--vectors glove-6b-50d`` does, instead of asking the Hub for a language model of
    that name; likewise the packaged sentence encoder."""
    store = tmp_path / "s.sqlite"
    vecs = gs.load_model("glove-6b-50d", store=store)
    assert vecs.kind == "vectors" and vecs.describe()["name"] == "glove-6b-50d"
    enc = gs.load_model("all-minilm-l6-v2", store=store)
    assert enc.kind == "encoder"


def test_load_model_passes_batch_size_to_a_language_model(tiny_gpt2_dir: Path,
                                                          tmp_path: Path) -> None:
    """``gs.load_model(..., batch_size=N)`` caps a language model's sequences per batch
    (it was ignored for LMs); None keeps the adapter's own sizing; a bad value is one
    line."""
    store = tmp_path / "s.sqlite"
    capped = gs.load_model(tiny_gpt2_dir, kind="causal", batch_size=3, store=store)
    sized = gs.load_model(tiny_gpt2_dir, kind="causal", store=store)
    assert capped.engine.max_batch == 3
    assert sized.engine.max_batch != 3
    for bad in (0, -2, 2.5, True):
        with pytest.raises((GenderscopeError, TypeError), match="batch.size must be"):
            gs.load_model(tiny_gpt2_dir, kind="causal", batch_size=bad, store=store)
