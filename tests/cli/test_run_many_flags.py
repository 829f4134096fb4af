"""run-many's --case, --strip-accents and --effect-size say what WEAT's declared options
say (help, choices, default): the flags are made from the declaration."""

from __future__ import annotations

import pytest
import typer

from genderscope.cli.app import app
from genderscope.core.registry import get


@pytest.mark.parametrize("name", ["case", "strip_accents", "effect_size"])
def test_run_many_look_up_flags_are_weats_declared_options(name: str) -> None:
    option = get("weat").options[name]
    command = typer.main.get_command(app).commands["run-many"]  # type: ignore[attr-defined]
    flag = next(p for p in command.params if option.flag in p.opts)
    assert flag.default is None  # each metric's own default unless given
    assert flag.help.startswith(option.help), flag.help
    assert flag.help.endswith(f"[default: {option.default}].")
    assert all(str(c) in flag.help for c in option.choices)
