"""Every measure is declared once (issue 35): the CLI's flags, ``gs.run``'s keywords and
the registry agree, for every registry entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer

import genderscope as gs
from genderscope.api import measures
from genderscope.cli.app import app
from genderscope.core import registry
from genderscope.core.declaration import declaration
from genderscope.core.options import Option, Options
from genderscope.errors import GenderscopeError

MODEL_FLAGS = {"model", "vectors", "encoder", "classifier", "kind", "start_token", "device",
               "dtype", "out", "store_path", "as_json", "progress", "batch_size", "base_url",
               "api_key_env", "concurrency", "store", "vocab", "fmt"}
"""Command-line parameters that say which model runs and where results go, not how the
measure measures (they are :func:`genderscope.run`'s own keywords)."""
CLI_ONLY = {("bec-pro", "plot"), ("bec-pro", "no_plot"), ("lpbs", "list_tests"),
            ("weat", "list_tests"), ("seat", "list_tests")}
"""Flags that print or draw something besides the run and are not measure options."""


def _commands() -> dict[str, Any]:
    root = typer.main.get_command(app)
    found = dict(root.commands["run"].commands)  # type: ignore[attr-defined]
    for name in registry.names():
        if name not in found and name in root.commands:  # type: ignore[attr-defined]
            found[name] = root.commands[name]  # type: ignore[attr-defined]
    return found


def _canon(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if isinstance(value, Path):
        return str(value)
    return value


COMMANDS = _commands()


@pytest.mark.parametrize("name", registry.names())
def test_every_declared_option_is_a_flag_with_the_same_default(name: str) -> None:
    assert name in COMMANDS, f"no command for measure {name}"
    params = {p.name: p for p in COMMANDS[name].params}
    for option in registry.get(name).options:
        if not option.cli or option.name == "progress":
            continue
        assert option.name in params, f"{name}: {option.flag} is not a flag"
        got = params[option.name].default
        want = None if option.required else option.default
        assert _canon(got) == _canon(want), \
            f"{name} {option.flag}: the CLI's default {got!r} is not the declared {want!r}"
        assert option.help, f"{name} {option.flag}: no help text"


@pytest.mark.parametrize("name", registry.names())
def test_every_flag_is_an_option_gs_run_takes(name: str) -> None:
    declared = set(registry.get(name).options.names)
    extra = {p.name for p in COMMANDS[name].params} - MODEL_FLAGS - declared - \
        {flag for measure, flag in CLI_ONLY if measure == name}
    assert extra == set(), f"{name}: flags that gs.run({name!r}) does not take: {extra}"


@pytest.mark.parametrize("name", registry.names())
def test_bad_options_are_one_line_errors_before_any_model(name: str) -> None:
    with pytest.raises(GenderscopeError, match="unknown option"):
        gs.run(name, model="no-such-model-needed", no_such_option=1)
    for option in registry.get(name).options:
        if option.type == "int" and option.min is not None:
            with pytest.raises(GenderscopeError, match=f"{option.flag} must be at least"):
                gs.run(name, model="no-such-model-needed", **{option.name: int(option.min) - 1})
            with pytest.raises(TypeError, match=option.name):
                gs.run(name, model="no-such-model-needed", **{option.name: "7"})


def test_a_measure_declared_outside_genderscope_runs_with_no_other_change(
        tmp_path: Path) -> None:
    """A plug-in declaration: registered, listed, run through the engine and reused."""
    from genderscope.core.declaration import Plan
    from genderscope.results import Result

    calls = []

    def plan(*, n: int = 3, seed: int = 0, progress: bool = False) -> Plan:
        items = list(range(n))

        def run(_: Any) -> Result:
            import pandas as pd

            calls.append(n)
            return Result("count", {"n": n}, pd.DataFrame({"i": items}))

        return Plan("count", "none", run, inputs=items)

    decl = declaration("count-items", plan, needs="none", doc="Count items.", options=Options((
        Option("n", 3, "How many items.", type="int", min=1),
        Option("seed", 0, "Unused seed.", type="int", min=0),
        Option("progress", False, "Progress bar.", type="bool", key=False))))
    registry.register(decl)
    try:
        assert "count-items" in measures()
        first = gs.run("count-items", n=4, store=tmp_path / "s.sqlite")
        again = gs.run("count-items", n=4, store=tmp_path / "s.sqlite")
        other = gs.run("count-items", n=5, store=tmp_path / "s.sqlite")
        assert first.summary == {"n": 4} and again.metadata["reused"] is True
        assert calls == [4, 5] and other.summary == {"n": 5}
        with pytest.raises(GenderscopeError, match="--n must be at least 1"):
            gs.run("count-items", n=0, store=tmp_path / "s.sqlite")
    finally:
        registry.unregister("count-items")
