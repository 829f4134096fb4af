"""The option-bounds audit of the commands' own number flags (report, sweep, compare, runs,
debias, attack, run-many; a measure's declared options: tests/reliability/
test_option_bounds.py). Every number flag is listed here with a value below its minimum,
and, where a huge value would cost memory or time, one above its maximum: each is refused
with exit code 2 and one ``error:`` line naming the flag, before any file, model or endpoint
is touched (the commands are given files that do not exist and an endpoint nobody answers
at, so a value that got through would be refused for those instead)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_main import run_main
from typer.main import get_command

from genderscope.cli.app import app

HUGE = str(10**20)
ENDPOINT = ("--model", "openai:tiny", "--base-url", "http://127.0.0.1:9/v1")
VECTORS = ("--vectors", "missing.txt", "--out", "dv")
LM = ("--model", "missing-model", "--out", "dl")
TUNE = ("--model", "missing-model", "--corpus", "missing.txt", "--out", "ft", "--no-progress")

BASES: dict[str, tuple[str, ...]] = {
    "report": ("report", *ENDPOINT, "--out", "new.html", "--no-progress"),
    "attack": ("attack", "--classifier", "missing.py:predict", "--data", "missing.csv",
               "--lm", "none", "--no-progress"),
    "run-many": ("run-many", "--vectors", "missing.txt", "--query", "missing.json"),
    "sweep": ("sweep", *ENDPOINT, "--measure", "bbq", "--out", "s.html", "--no-progress"),
    "compare": ("compare", "nope-a", "nope-b", "--key", "id", "--value", "value"),
    "runs show": ("runs", "show", "nope"),
    "debias cds": ("debias", "cds", *TUNE),
    "debias dropout": ("debias", "dropout", *TUNE),
    "debias balance": ("debias", "balance", "--corpus", "missing.txt", "--out", "bal"),
    "debias inlp": ("debias", "inlp", *LM),
    "debias sentence-debias": ("debias", "sentence-debias", *LM),
    "debias self-debias": ("debias", "self-debias", *LM),
    **{f"debias {m}": ("debias", m, *VECTORS)
       for m in ("hard", "multiclass-hard", "double-hard", "hsr", "ran")},
}
"""Each command with the arguments it requires."""

BELOW = {"--min-similarity": "-2", "--lm-threshold": "0", "--top-p": "-0.5",
         "--per-class": "1", "--max-length": "3", "--epsilon": "0", "--lr": "0",
         "--timeout": "0", "--prob": "-0.5", "--decay-constant": "-1", "--max-oov": "-0.5",
         "--n-resamples": "99", "--resamples": "99", "--pop-size": "1", "--num-cpus": "0",
         "--cpus-per-job": "0"}
"""A value below the minimum where -1 is not the first one (or is allowed)."""

ABOVE = {
    "report": ("--seed", "--concurrency", "--timeout", "--retries", "--max-new-tokens",
               "--top-p", "--sample-seed"),
    "attack": ("--pop-size", "--generations", "--sample-seed", "--seed", "--resamples",
               "--lm-threshold", "--min-similarity"),
    "run-many": ("--seed", "--resamples", "--max-oov"),
    "sweep": ("--max-retries", "--seed", "--concurrency", "--timeout", "--retries",
              "--num-cpus"),
    "compare": ("--n-resamples",),
    "debias cds": ("--prob", "--epochs", "--seed", "--max-length"),
    "debias dropout": ("--epochs", "--seed", "--max-length"),
    "debias balance": ("--seed",),
    "debias inlp": ("--n-classifiers", "--seed", "--max-length"),
    "debias sentence-debias": ("--seed", "--max-length"),
    "debias self-debias": ("--epsilon",),
    **{f"debias {m}": ("--seed",) for m in ("hard", "multiclass-hard", "double-hard", "hsr",
                                            "ran")},
}
"""Flags whose huge value is refused: seeds, counts that set the work, shares and
probabilities. The others are sizes the data caps (--limit, --batch-size, --items, ...),
rates or penalties with no natural maximum (--lr, --temperature, --repeat-penalty,
--decay-constant), or bounded by what they are checked against (--cpus-per-job by the
Ray instance's --num-cpus, --components and --frequency-components by the vectors)."""

NOT_APPLICABLE = {("debias hard", "--components"), ("debias hard", "--alpha"),
                  ("debias hard", "--n-words"), ("debias hard", "--frequency-components"),
                  ("debias multiclass-hard", "--alpha"), ("debias multiclass-hard", "--n-words"),
                  ("debias multiclass-hard", "--frequency-components"),
                  ("debias double-hard", "--components"), ("debias double-hard", "--alpha"),
                  ("debias hsr", "--components"), ("debias hsr", "--n-words"),
                  ("debias hsr", "--frequency-components"), ("debias ran", "--components"),
                  ("debias ran", "--alpha"), ("debias ran", "--frequency-components"),
                  ("compare", "--seed")}
"""Flags of the vector methods that another method reads, and compare's seed, checked
after its two runs are read (gs.compare's own check: tests/reliability)."""


def _number_flags() -> list[tuple[str, str]]:
    import click

    root = get_command(app)
    out = []
    for name, base in BASES.items():
        cmd: Any = root
        ctx = click.Context(root)
        for part in name.split():
            cmd = cmd.get_command(ctx, part)
            ctx = click.Context(cmd, parent=ctx)
        for p in cmd.params:
            kind = str(getattr(p, "type_descriptor", ""))
            if ("int" in kind or "float" in kind) and p.opts[-1].startswith("--"):
                flag = max(p.opts, key=len)
                if (name, flag) not in NOT_APPLICABLE:
                    out.append((name, flag))
        assert base  # every command listed has its arguments
    return out


FLAGS = _number_flags()


def _main(args: tuple[str, ...]) -> tuple[int, str]:
    code, err, _ = run_main(*args)
    return code, err.strip()


def _in_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  args: tuple[str, ...]) -> tuple[int, str]:
    """Run in an empty folder with an empty cache (the default store); refused, it
    leaves both as they were."""
    ws, cache = tmp_path / "ws", tmp_path / "cache"
    ws.mkdir()
    monkeypatch.chdir(ws)
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(cache))
    result = _main(args)
    assert not any(ws.iterdir()) and not cache.exists(), result
    return result


def test_every_number_flag_of_these_commands_is_audited() -> None:
    assert len(FLAGS) > 60 and set(ABOVE) <= set(BASES)
    listed = {(c, f) for c, flags in ABOVE.items() for f in flags}
    assert listed <= set(FLAGS), sorted(listed - set(FLAGS))


@pytest.mark.parametrize(("command", "flag"), FLAGS, ids=[f"{c} {f}" for c, f in FLAGS])
def test_below_the_minimum_is_one_line(command: str, flag: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    code, err = _in_workspace(tmp_path, monkeypatch, (*BASES[command], flag,
                                                      BELOW.get(flag, "-1")))
    last = err.splitlines()[-1] if err else ""
    assert code == 2 and last.startswith("error: ") and flag in last, err


ABOVE_FLAGS = [(c, f) for c, flags in ABOVE.items() for f in flags]


@pytest.mark.parametrize(("command", "flag"), ABOVE_FLAGS,
                         ids=[f"{c} {f}" for c, f in ABOVE_FLAGS])
def test_above_the_maximum_is_one_line(command: str, flag: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    code, err = _in_workspace(tmp_path, monkeypatch, (*BASES[command], flag, HUGE))
    last = err.splitlines()[-1] if err else ""
    assert code == 2 and last.startswith("error: ") and flag in last, err
