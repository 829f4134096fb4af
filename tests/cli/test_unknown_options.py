"""An unknown option is one ``error:`` line, exit code 2, pointing at the command's
``--help``; the options it suggests are close to the one given by name, not by the two
dashes every option shares (click offered ``--timeout`` for ``--limit``)."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from cli_main import run_main

from genderscope.cli.app import app, close_options


def _leaves() -> list[tuple[tuple[str, ...], Any]]:
    """Every command that takes options (no group), with its path."""
    found: list[tuple[tuple[str, ...], Any]] = []

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs is None:
            found.append((path, cmd))
        for name, sub in (subs or {}).items():
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


LEAVES = _leaves()


def _refused(*args: str) -> str:
    code, err, _ = run_main(*args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    return lines[0]


def test_genderbench_limit_suggests_nothing_unrelated() -> None:
    said = _refused("run", "genderbench", "--limit", "5")
    assert said.startswith("error: No such option: --limit (see '"), said
    assert said.endswith("genderscope run genderbench --help')"), said


@pytest.mark.parametrize(("args", "suggested"), [
    (("run", "crows-pairs", "--limt", "5"), "--limit"),
    (("sweep", "--num-cpu", "3"), "--num-cpus"),
    (("report", "--seeds", "3"), "--seed"),
    (("run", "crows-pairs", "--bias", "gender"), "--bias-type"),
])
def test_a_typo_is_answered_with_the_close_option(args: tuple[str, ...],
                                                  suggested: str) -> None:
    said = _refused(*args)
    assert f"(Possible options: {suggested}) (see '" in said, said


@pytest.mark.parametrize(("path", "command"), LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_every_command_suggests_only_its_close_options(path: tuple[str, ...],
                                                       command: Any) -> None:
    """An option far from all of the command's is suggested nothing; one letter dropped
    from one of its options is answered with that option among the suggestions."""
    said = _refused(*path, "--zqxj-unknown")
    assert "Possible options" not in said and f"genderscope {' '.join(path)} --help')" in said
    longs = [o for p in command.params for o in p.opts if o.startswith("--") and len(o) > 5]
    if longs:
        typo = longs[0][:-1]
        if typo not in longs:
            assert longs[0] in close_options(typo, command)
            assert longs[0] in _refused(*path, typo)
