"""Every flag a declared option's help names is a flag of the measure's own command: the
generic ``--limit`` help pointed at ``--subset-seed`` in ``genderscope run attack``, which
has none (its seed is ``--sample-seed``, and without it the first N texts are used)."""

from __future__ import annotations

import re

import typer

from genderscope.cli.app import app
from genderscope.core import registry


def test_option_helps_name_only_their_command_s_flags() -> None:
    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    wrong = []
    for name, declaration in registry.declarations().items():
        command = run.commands[name]
        flags = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        for option in declaration.options:  # a flag of the report's ("report --quick")
            named = [m.group() for m in re.finditer(r"(?<![\w-])--[a-z][a-z0-9-]*", option.help)
                     if "report" not in option.help[max(0, m.start() - 20):m.start()]]
            wrong += [f"{name} {option.flag}: {f}" for f in named if f not in flags]
    assert wrong == []


def test_attack_s_limit_says_how_its_texts_are_chosen() -> None:
    limit = registry.get("attack").options["limit"]
    assert "--sample-seed" in limit.help and "first N" in limit.help
