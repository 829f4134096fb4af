"""The ``genderscope`` command: discovers command modules and maps user errors to
one-line messages with exit code 2."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import typer

from genderscope import __version__
from genderscope.cli import commands
from genderscope.cli.help import MeasureGroup, SectionedGroup
from genderscope.errors import GenderscopeError, redact
from genderscope.progress import scoped as progress_scoped
from genderscope.text_blocks import visible

app = typer.Typer(
    name="genderscope",
    help="Measure gender bias in language models, embeddings and classifiers, and reduce it.\n\n"
         "Models load from the Hugging Face Hub by id, from a local folder, or from a GGUF "
         "file. Scores are cached in a SQLite store, so reruns and resumed runs are fast.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts hold literal brackets ("[default: ...]")
    cls=SectionedGroup,  # the commands in sections (cli/help.py)
)
run_app = typer.Typer(help="Run one bias measure and save its item table and summary.",
                      no_args_is_help=True, rich_markup_mode=None, cls=MeasureGroup)
app.add_typer(run_app, name="run")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"genderscope {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """genderscope: bias measures with statistics on every number."""


@run_app.callback()
def _run_group(reuse: bool = typer.Option(
        True, "--reuse/--no-reuse", help="Reuse a stored run with the same model identity, "
        "options and items (loads no model, recomputes nothing); --no-reuse recomputes "
        "(scores still come from the cache). Give it before the measure: "
        "genderscope run --no-reuse bec-pro ...")) -> None:
    """Run one bias measure and save its item table and summary."""
    from genderscope.cli.common import REUSE

    REUSE["enabled"] = reuse


def _register_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{mod.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app, run_app)
    _register_declared()


def _register_declared() -> None:
    """``genderscope run NAME`` for every declared measure without a ``run`` command of its
    own (most built-in measures, a plug-in's, a new one; ``probe`` and ``attack``, which
    also have top-level commands): flags, help and tables from its declaration."""
    from genderscope.cli.common import measure_command
    from genderscope.core.registry import names

    have = {info.name for info in run_app.registered_commands}
    for name in names():
        if name not in have:
            run_app.command(name)(measure_command(name))


def _statistics_helps() -> None:
    """Every ``genderscope run NAME`` help ends its description with the measure's
    interval and test (:func:`genderscope.cli.help.with_statistics`, written only when
    the help is shown)."""
    from genderscope.cli.help import with_statistics

    for info in run_app.registered_commands:
        info.cls = with_statistics(info.cls)


def _short_helps(typer_app: typer.Typer) -> None:
    """List each command by its docstring's whole first line: click would cut it at the
    first full stop, i.e. after "Kurita et al."."""
    for info in typer_app.registered_commands:
        doc = (info.help or getattr(info.callback, "__doc__", None) or "").strip()
        if info.short_help is None and doc:
            line = doc.splitlines()[0].strip()
            info.short_help = line if len(line) <= 100 else line[:99].rsplit(" ", 1)[0] + " …"
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _short_helps(group.typer_instance)


def _sections(typer_app: typer.Typer) -> None:
    """Each top-level command's section of ``genderscope --help``
    (:data:`genderscope.cli.help.SECTIONS`)."""
    from genderscope.cli.help import SECTIONS

    where = {name: title for title, names in SECTIONS for name in names}
    for info in [*typer_app.registered_commands, *typer_app.registered_groups]:
        given = info.rich_help_panel  # typer's DefaultPlaceholder when not given
        if getattr(given, "value", given) is None and info.name in where:
            info.rich_help_panel = where[info.name]


_register_commands()
_statistics_helps()
_short_helps(app)
_sections(app)


def _one_line_warnings() -> None:
    """genderscope's own warnings as ``warning: ...`` on stderr (one line, no source
    line); other packages' warnings keep Python's format."""
    import warnings

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    show = warnings.showwarning

    def one_line(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        if os.path.abspath(filename).startswith(package):
            typer.secho(f"warning: {visible(redact(str(message)))}", err=True, fg="yellow")
        else:  # Python's format, less any secret (errors.redact)
            show(redact(str(message)), category, filename, lineno, file, line)

    warnings.showwarning = one_line


def main() -> None:
    """Entry point: user errors -> one line on stderr, exit code 2. ``--no-progress``
    anywhere on the line turns every bar and stage line off while the command runs
    (model loads and third-party bars too: :mod:`genderscope.progress`)."""
    with progress_scoped("--no-progress" not in sys.argv[1:]):
        _main()


def _main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    _one_line_warnings()
    try:
        code = app(standalone_mode=False)  # click returns typer.Exit's code in this mode
        if code == 130:  # typer's vendored click turns Ctrl-C into this return code
            raise KeyboardInterrupt
        if isinstance(code, int) and code:
            sys.exit(code)
    except GenderscopeError as exc:
        typer.secho(f"error: {visible(str(exc))}", err=True, fg="red")
        sys.exit(2)
    except KeyboardInterrupt:
        typer.secho("interrupted: finished batches are cached; rerun the same command to "
                    "resume", err=True, fg="yellow")
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(1)
    except Exception as exc:  # usage errors (bad option, extra argument ...)
        if isinstance(exc, _click_exceptions()):  # one line, as every other user mistake
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            if ctx is not None and hasattr(exc, "possibilities"):  # an unknown option
                exc.possibilities = close_options(exc.option_name, ctx.command)
            text = exc.format_message()  # type: ignore[attr-defined]
            message = redact(" ".join(text.split()))
            typer.secho(f"error: {message}{hint}", err=True, fg="red")
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]
        message = _file_problem(exc)
        if message is None:  # a bug: its traceback, less any secret (errors.redact)
            import traceback

            sys.stderr.write(redact("".join(traceback.format_exception(exc))))
            sys.exit(1)
        typer.secho(f"error: {visible(redact(message))}", err=True, fg="red")
        sys.exit(2)


def close_options(given: str, command: object) -> list[str]:
    """The long options of ``command`` whose names are close to the unknown ``given``:
    :func:`difflib.get_close_matches` (ratio >= 0.6) on the names without their leading
    dashes, which every option shares and which made click offer ``--timeout`` for
    ``--limit``."""
    import difflib

    names = {o.lstrip("-"): o for p in getattr(command, "params", [])
             for o in (*p.opts, *p.secondary_opts) if o.startswith("--")}
    return [names[m] for m in difflib.get_close_matches(given.lstrip("-"), names)]


def _file_problem(exc: Exception) -> str | None:
    """One line for a file the user named that cannot be read or written, else None.

    Commands check their inputs up front; this catches what reaches the top anyway
    (a path that is a folder, an output under a file, a binary or empty table)."""
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    if isinstance(exc, UnicodeDecodeError):
        return f"an input file is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if type(exc).__module__.startswith("pandas.errors"):
        return f"cannot parse a table given as input: {str(exc).splitlines()[0]}"
    import sqlite3

    if isinstance(exc, sqlite3.DatabaseError):  # a damaged store page, a full disk
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return (f"the results store cannot be read or written ({first}); nothing stored "
                "before was changed. Point --store elsewhere, or move the damaged file away")
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot read or write a file: {exc.strerror}"
    return None


def _click_exceptions() -> tuple[type, ...]:
    """Click's exception class, and the copy of it that newer typer versions vendor."""
    found: list[type] = []
    for mod, name in (("click", "ClickException"), ("typer._click.exceptions", "ClickException")):
        try:
            found.append(getattr(importlib.import_module(mod), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)
