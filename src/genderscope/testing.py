"""The conformance suite of a measure declaration, as scikit-learn's ``check_estimator``:
``check_measure(name_or_declaration)`` raises :class:`AssertionError` listing every
problem, or returns the names of the checks that ran. Every registry entry passes it in
CI (``tests/engine/test_declarations.py``); a plug-in package runs it on its own measures::

    from genderscope.testing import check_measure
    check_measure(MY_DECLARATION, example={"model": None, "options": {"n": 3}})

Checks:

- ``declared``: a kebab-case name, a one-line summary, options in snake case, each with
  help text and a default that passes its own checks; a declared ``table`` names a
  function, a declared ``card`` a report card of the measure's name;
- ``strict-api``: ``gs.run`` refuses an unknown option, a value below an option's
  minimum, a value outside its choices (one-line errors) and a wrong type (``TypeError``
  naming the option), all before any model loads;
- ``cli``: ``genderscope run NAME`` offers every declared option as a flag with the
  declared default, and no measure flag ``gs.run`` would not take;
- ``reuse`` (with ``example``: the model and options of a cheap run): the run is
  recorded with a reuse key, the same call again returns the stored run, changing a
  whole-number key option changes the key, and the example's ``data`` copied to another
  folder keeps it (a key holds the data's content, not its path).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from genderscope.core import registry
from genderscope.core.declaration import Declaration
from genderscope.errors import GenderscopeError

MODEL_FLAGS = {"model", "vectors", "encoder", "classifier", "kind", "start_token", "device",
               "dtype", "out", "store", "store_path", "as_json", "progress", "batch_size",
               "base_url", "vocab", "fmt", "concurrency", "timeout", "retries", "api_key_env",
               "header"}
"""Command-line parameters that say which model runs, how it is asked (an endpoint's
client settings) and where results go (``gs.run``'s own keywords), not how the measure
measures."""
PRINT_FLAGS = {"plot", "list_tests"}
"""Command-line flags that print or draw something beside the run."""
NO_MODEL = "no-such-model:check-measure"
"""A model that does not exist: every strictness check must fail before it loads."""


def _canon(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value) if isinstance(value, Path) else value


def _declared(d: Declaration) -> list[str]:
    bad = []
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", d.name):
        bad.append(f"name {d.name!r} is not kebab-case")
    if not d.summary:
        bad.append("no summary (the plan's docstring)")
    for o in d.options:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", o.name):
            bad.append(f"option {o.name!r} is not snake_case")
        if not o.help:
            bad.append(f"option {o.name}: no help text")
        if not o.required:
            try:
                o.check(o.default)
            except (GenderscopeError, TypeError) as exc:
                bad.append(f"option {o.name}: its default fails its own check ({exc})")
    if d.table is not None:
        from genderscope.cli.common import table_function

        try:
            table_function(d.table)
        except (ImportError, ValueError) as exc:
            bad.append(f"table {d.table!r}: {exc}")
    if d.card is not None:
        from genderscope.reporting.registry import card_of

        try:
            card_of(d)
        except GenderscopeError as exc:
            bad.append(f"card: {exc}")
    return bad


def _refused(d: Declaration, options: dict[str, Any], error: type[Exception],
             match: str) -> str | None:
    import genderscope as gs

    try:
        gs.run(d.name, model=NO_MODEL, store=":memory:", **options)
    except error as exc:
        if "\n" in str(exc) or not re.search(match, str(exc)):
            return f"{options}: the error {str(exc)!r} does not say {match!r} in one line"
        return None
    except Exception as exc:  # noqa: BLE001 - the wrong failure is the finding
        return f"{options}: raised {type(exc).__name__} ({exc}), not {error.__name__}"
    return f"{options}: accepted"


def _strict_api(d: Declaration) -> list[str]:
    found = [_refused(d, {"no_such_option": 1}, GenderscopeError, "unknown option")]
    for o in d.options:
        if o.type in ("int", "float") and o.min is not None:
            low = int(o.min) - 1 if o.type == "int" else o.min - 1.0
            found.append(_refused(d, {o.name: low}, GenderscopeError,
                                  f"{o.name} must be at least"))
        if o.type == "int":
            found.append(_refused(d, {o.name: "7"}, TypeError, o.name))
        if o.choices is not None and o.type == "str":
            found.append(_refused(d, {o.name: "no-such-choice"}, GenderscopeError,
                                  f"{o.name} must be one of"))
    return [f for f in found if f]


def _command(name: str) -> Any:
    import typer

    from genderscope.cli.app import app

    root = typer.main.get_command(app)
    found = root.commands["run"].commands.get(name)  # type: ignore[attr-defined]
    return found if found is not None else root.commands.get(name)  # type: ignore[attr-defined]


def _cli(d: Declaration) -> list[str]:
    command = _command(d.name)
    if command is None:
        return [f"no command `genderscope run {d.name}`"]
    params = {p.name: p for p in command.params}
    bad = []
    for o in d.options:
        if not o.cli or o.name == "progress":
            continue
        if o.name not in params:
            bad.append(f"{o.flag} is not a flag")
            continue
        got, want = params[o.name].default, None if o.required else o.default
        if _canon(got) != _canon(want):
            bad.append(f"{o.flag}: the CLI's default {got!r} is not the declared {want!r}")
    extra = set(params) - MODEL_FLAGS - PRINT_FLAGS - set(d.options.names)
    bad += [f"flag {flag} is not an option gs.run takes" for flag in sorted(extra)]
    return bad


def _reuse(d: Declaration, example: dict[str, Any]) -> list[str]:
    import genderscope as gs
    from genderscope.engine import run_key

    model, options = example.get("model"), dict(example.get("options", {}))
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store.sqlite"
        first = gs.run(d.name, model=model, store=store, **options)
        key = first.metadata.get("cache_key")
        if not key:
            return ["the run has no reuse key (its plan sets no inputs, or the model has "
                    "no fingerprint)"]
        again = gs.run(d.name, model=model, store=store, **options)
        if not again.metadata.get("reused"):
            bad.append("the same call again was not reused")
        adapter = model if model is None or not isinstance(model, (str, Path)) else \
            gs.load_model(model, store=store)
        for o in d.options:
            if o.type != "int" or not o.key or o.name in ("progress",):
                continue
            value = options.get(o.name, o.default)
            if value is None:
                continue
            changed = {**options, o.name: value + 1}
            try:
                other = run_key(d.name, adapter, **changed)
            except GenderscopeError:  # e.g. a limit above the item count
                continue
            if other == key:
                bad.append(f"{o.flag} {value + 1} gives the same reuse key as {value}")
        bad += _moved_data(d.name, adapter, options, key, Path(tmp) / "moved")
    return bad


def _moved_data(name: str, adapter: Any, options: dict[str, Any], key: str,
                elsewhere: Path) -> list[str]:
    """The example's ``data`` (a file or folder) copied to ``elsewhere`` must give the
    same reuse key: a key holds what the data holds, never where it lies."""
    import shutil

    from genderscope.engine import run_key

    data = options.get("data")
    if not isinstance(data, (str, Path)) or not Path(data).exists():
        return []
    moved = elsewhere / "another" / Path(data).name
    moved.parent.mkdir(parents=True)
    if Path(data).is_dir():
        shutil.copytree(data, moved)
    else:
        shutil.copy2(data, moved)
    if run_key(name, adapter, **{**options, "data": moved}) != key:
        return ["--data copied to another folder gives another reuse key (the key holds "
                "where the data lies, not only what it holds)"]
    return []


def check_measure(measure: str | Declaration, *, example: dict[str, Any] | None = None,
                  cli: bool = True) -> list[str]:
    """Run the conformance checks on ``measure`` (a registered name or a declaration,
    registered for the duration of the checks if it is not); ``example``: ``{"model":
    ..., "options": {...}}`` of a cheap run, for the reuse checks; ``cli``: check
    ``genderscope run NAME`` too. Returns the names of the checks that ran."""
    declared = registry.get(measure) if isinstance(measure, str) else measure
    added = declared.name not in registry.names()
    if added:
        registry.register(declared)
    try:
        checks = {"declared": _declared, "strict-api": _strict_api}
        if cli and not added:
            checks["cli"] = _cli
        problems = [f"{declared.name} [{name}] {p}" for name, check in checks.items()
                    for p in check(declared)]
        ran = list(checks)
        if example is not None:
            problems += [f"{declared.name} [reuse] {p}" for p in _reuse(declared, example)]
            ran.append("reuse")
    finally:
        if added:
            registry.unregister(declared.name)
    if problems:
        raise AssertionError("\n".join(problems))
    return ran
