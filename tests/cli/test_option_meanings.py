"""One meaning and one spelling per option across commands (issue 41, item 5): ``-m``
is ``--model`` wherever a command takes a model, and ``run seat`` takes ``--dtype`` for
a language model (as every other language-model measure)."""

from __future__ import annotations

from typing import Any

from typer.main import get_command

from genderscope.cli.app import app


def _commands() -> list[tuple[str, Any]]:
    root = get_command(app)
    out: list[tuple[str, Any]] = []

    def walk(prefix: str, cmd: Any) -> None:
        if hasattr(cmd, "list_commands"):  # a group (typer may vendor its own click)
            ctx = type(cmd).context_class(cmd)
            for name in cmd.list_commands(ctx):
                walk(f"{prefix} {name}".strip(), cmd.get_command(ctx, name))
        else:
            out.append((prefix, cmd))

    walk("", root)
    return out


def test_model_is_m_everywhere() -> None:
    lacking = [name for name, cmd in _commands() for p in cmd.params
               if "--model" in getattr(p, "opts", []) and "-m" not in p.opts
               and not name.startswith("runs")]  # runs list --model filters by fingerprint
    assert not lacking, lacking


def test_seat_dtype_is_for_a_language_model() -> None:
    from typer.testing import CliRunner

    r = CliRunner().invoke(app, ["run", "seat", "--dtype", "float16", "--test", "sent-weat6"])
    assert r.exit_code != 0
    assert "--dtype is for a language model (--model)" in str(r.exception or r.output)


def test_seat_lists_dtype() -> None:
    (seat,) = [c for n, c in _commands() if n == "run seat"]
    assert any("--dtype" in p.opts for p in seat.params)
