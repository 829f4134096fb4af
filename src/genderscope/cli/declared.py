"""Command-line flags read from a measure's declaration (:mod:`genderscope.core.options`).

:func:`declared_options` turns each declared :class:`~genderscope.core.options.Option`
into a Typer option (flag ``--name-with-dashes``, the declared default, help, choices
and bounds); :func:`with_declared_options` adds every declared option a hand-written
``genderscope run NAME`` command does not spell out itself to its signature, and hands
their values to the command as keyword arguments, so a new option of a measure is a
flag without touching the CLI. ``tests/engine/test_declarations.py`` checks that every
declared option is a flag of ``genderscope run NAME`` with the same default.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from genderscope.core.options import Option

_PY = {"int": int, "float": float, "str": str, "bool": bool, "path": Path, "strs": list[str],
       "any": str}


def _number(x: float) -> str:
    """A bound as the error messages write it: 1,000,000, not 1e+06; 0.5 as it is."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def option_help(option: Option) -> str:
    """The flag's help: the declared help, its choices where the help does not name them
    all, and its bounds."""
    text = option.help
    if option.choices is not None and not all(str(c) in text for c in option.choices):
        text = f"{text} One of: {', '.join(map(str, option.choices))}."
    bounds = [f"{word} {_number(x)}" for word, x in (("at least", option.min),
                                                    ("at most", option.max)) if x is not None]
    if bounds and option.type in ("int", "float"):
        text = f"{text} [{', '.join(bounds)}]"
    return text.strip()


def typer_parameter(option: Option) -> inspect.Parameter:
    """The Typer keyword parameter of one declared option."""
    py = _PY[option.type]
    annotation: Any = py if option.default is not None or option.type == "bool" \
        else py | None
    default: Any = option.default
    if option.type == "strs" and default is not None:
        default = list(default)  # a repeated flag: --targets nurse --targets doctor
    elif option.type == "any" and isinstance(default, (list, tuple)):
        default = ",".join(map(str, default))
    if option.type == "path" and default is not None:
        default = Path(default)
    decls = [f"{option.flag}/--no-{option.flag[2:]}" if option.type == "bool" else option.flag]
    kwargs: dict[str, Any] = {"help": option_help(option)}  # bounds: checked by the engine, so
    # a value out of range is the same one line from the CLI as from gs.run
    if option.metavar:
        kwargs["metavar"] = option.metavar
    if option.argument:
        info: Any = typer.Argument(... if option.required else default, **kwargs)
    else:
        info = typer.Option(... if option.required else default, *decls, **kwargs)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=info,
                             annotation=annotation)


def declared_options(name: str, skip: set[str] | None = None) -> list[inspect.Parameter]:
    """Typer parameters of measure ``name``'s command-line options (less ``skip`` and
    ``progress``, which every command spells out)."""
    from genderscope.core.registry import get

    skip = (skip or set()) | {"progress"}
    return [typer_parameter(o) for o in get(name).options if o.cli and o.name not in skip]


def with_parameters(fn: Callable[..., Any], extra: list[inspect.Parameter],
                    check: Callable[[dict[str, Any]], None] | None = None
                    ) -> Callable[..., Any]:
    """``fn`` with the keyword parameters ``extra`` added to its signature (they reach it
    in its ``**kwargs``); ``check(given)`` runs first, before any work."""
    sig = inspect.signature(fn)
    own = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    if extra and not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        raise TypeError(f"{fn.__name__} lacks **options for {[p.name for p in extra]}")

    @functools.wraps(fn)
    def wrapped(**given: Any) -> Any:
        if check is not None:
            check(given)
        return fn(**given)

    wrapped.__signature__ = sig.replace(parameters=[  # type: ignore[attr-defined]
        *[p.replace(kind=p.KEYWORD_ONLY) if p.kind is p.POSITIONAL_OR_KEYWORD else p
          for p in own], *extra])
    return wrapped


def with_declared_options(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command every declared option of measure ``name`` it does not declare
    itself; the command receives them in ``**options`` (pass them on to ``gs.run``)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        from genderscope.core.registry import get

        options = get(name).options
        own = {p.name for p in inspect.signature(fn).parameters.values()
               if p.kind is not p.VAR_KEYWORD}

        def check(given: dict[str, Any]) -> None:  # every declared value, before any work
            options.resolve({k: v for k, v in given.items() if k in options and
                             k != "progress" and not (options[k].required and v is None)},
                            name)  # (the command may open a store, read a model first)

        return with_parameters(fn, declared_options(name, own), check)

    return wrap
