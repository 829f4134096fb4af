"""``genderscope probe`` end to end, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _cli(*args: str, env_store: str) -> subprocess.CompletedProcess[str]:
    import os

    env = dict(os.environ, GENDERSCOPE_STORE=env_store)
    return subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.slow
def test_probe_json_and_cache(tiny_bert_dir, tmp_path) -> None:
    store = str(tmp_path / "s.sqlite")
    out = _cli("probe", "--model", str(tiny_bert_dir), "--json", "nurse", "housemaid",
               env_store=store)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["method"] == "probe"
    assert data["summary"]["n_targets"] == 2
    assert data["metadata"]["model"]["fingerprint"].startswith("sha256:")


@pytest.mark.slow
def test_probe_table(tiny_gpt2_dir, tmp_path) -> None:
    out = _cli("probe", "--model", str(tiny_gpt2_dir), "--pair", "he,she", "nurse",
               env_store=str(tmp_path / "s.sqlite"))
    assert out.returncode == 0, out.stderr
    assert "corrected" in out.stdout and "nurse" in out.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--template", "GGG is a nurse.", "x"], "XXX"),
    (["--pair", "he", "nurse"], "two comma-separated"),
    (["--model", "/nonexistent/model", "nurse"], "not found"),
    (["--strategy", "bogus", "nurse"], "strategy"),
    (["--template", "He is a XXX.", "nurse"], "GGG"),
    (["nurse", " "], "empty"),
    (["🜁"], "unknown to the model"),
])
def test_probe_bad_input_is_one_line_exit_2(tiny_bert_dir, tmp_path, args, message) -> None:
    full = ["probe", *args]
    if "--model" not in args:
        full[1:1] = ["--model", str(tiny_bert_dir)]
    out = _cli(*full, env_store=str(tmp_path / "s.sqlite"))
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert len([ln for ln in out.stderr.splitlines() if ln.startswith("error:")]) == 1


@pytest.mark.slow
def test_gguf_that_fails_to_parse_is_one_line_exit_2(tmp_path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 64)
    out = _cli("probe", "--model", str(bad), "nurse", env_store=str(tmp_path / "s.sqlite"))
    assert out.returncode == 2, out.stderr
    assert "broken.gguf" in out.stderr and "Traceback" not in out.stderr
    assert len([ln for ln in out.stderr.splitlines() if ln.startswith("error:")]) == 1


@pytest.mark.slow
def test_encoder_checkpoint_refused_by_cli(tmp_path) -> None:
    from transformers import BertConfig, BertModel

    BertModel(BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=32)).save_pretrained(tmp_path)
    out = _cli("probe", "--model", str(tmp_path), "--kind", "masked", "nurse",
               env_store=str(tmp_path / "s.sqlite"))
    assert out.returncode == 2 and "LM-head" in out.stderr and "Traceback" not in out.stderr


def test_help_reads_well() -> None:
    out = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                          "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert "probe" in out.stdout and "run" in out.stdout
    # command lists show whole first lines, not "(Kurita et al." cut at its full stop
    assert "(Kurita et al. 2019)" in " ".join(out.stdout.split())


@pytest.mark.slow
@pytest.mark.parametrize("args", [["probe", "--bogus-option", "nurse"],
                                  ["runs", "export", "extra-argument", "--out", "x.csv"]])
def test_usage_errors_exit_2_without_traceback(tmp_path, args) -> None:
    out = _cli(*args, env_store=str(tmp_path / "s.sqlite"))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and out.stderr.startswith("error: ")
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr  # one line, as every error


@pytest.mark.slow
def test_file_problems_are_one_line_exit_2(tmp_path) -> None:
    """A path that is a folder, an output under a file, a binary input: one line, exit 2."""
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    for args, message in [
        (["run", "weat", "--vectors", str(tmp_path), "--test", "weat6"], "is a folder"),
        (["run", "weat", "--vectors", str(binary), "--test", "weat6"], "not UTF-8"),
        (["run", "bias-amplification", "--ratios", str(blocker / "r.csv")], "r.csv"),
    ]:
        out = _cli(*args, env_store=str(tmp_path / "s.sqlite"))
        assert out.returncode == 2, (args, out.stderr[-500:])
        assert message in out.stderr and "Traceback" not in out.stderr


def test_interrupt_says_how_to_resume_and_exits_130() -> None:
    code = ("import sys\nfrom genderscope.cli import app as A\n"
            "@A.app.command('boom')\ndef boom():\n    raise KeyboardInterrupt\n"
            "sys.argv = ['genderscope', 'boom']\nA.main()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 130
    assert "rerun the same command to resume" in out.stderr and "Traceback" not in out.stderr
