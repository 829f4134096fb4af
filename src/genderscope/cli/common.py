"""Options and helpers shared by commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from genderscope.cli.fit import FittingConsole
from genderscope.results import Result
from genderscope.store import Store

console = FittingConsole(stderr=False)  # a table too wide for the terminal: one block per row
err_console = FittingConsole(stderr=True)

STORE_OPTION = typer.Option(None, "--store", envvar="GENDERSCOPE_STORE",
                            help="SQLite store for cached scores and results "
                                 "[default: ~/.cache/genderscope/store.sqlite].")
OUT_OPTION = typer.Option(None, "--out", help="Folder for items.csv and summary.json "
                                              "[default: ./genderscope-results/<method>].")
DEVICE_OPTION = typer.Option(None, "--device", help="cpu, cuda or mps [default: best available].")
DTYPE_OPTION = typer.Option("float32", "--dtype", help="float32, float16 or bfloat16.")
JSON_OPTION = typer.Option(False, "--json", help="Print the summary as JSON instead of a table.")


MODEL_OPTION = typer.Option(..., "--model", "-m", help="HF id, local folder, .gguf file, or a "
                            "packaged model name (smollm2, gemma3-270m).")
KIND_OPTION = typer.Option("auto", "--kind", help="auto, masked or causal.")
PROGRESS_OPTION = typer.Option(True, "--progress/--no-progress", help="Show a progress bar.")
START_OPTION = typer.Option("auto", "--start-token", help="Causal LM start-of-text token: "
                            "auto (BOS, else EOS), none, or a token string.")

BASE_URL_OPTION = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint for "
                               "--model openai:NAME, e.g. http://127.0.0.1:8000/v1 (API key "
                               "from $OPENAI_API_KEY).")
CONCURRENCY_OPTION = typer.Option(None, "--concurrency", help="Endpoint requests in flight "
                                  "at once, at most 1000 [default: 4].")
TIMEOUT_OPTION = typer.Option(None, "--timeout", help="Seconds an endpoint request may "
                              "take before it is retried, at most 3600 [default: 120].")
RETRIES_OPTION = typer.Option(None, "--retries", help="Retries of an endpoint request "
                              "that timed out or got 408/409/429/5xx, at most 100 [default: 4].")
API_KEY_ENV_OPTION = typer.Option(None, "--api-key-env", metavar="NAME", help="Environment "
                                  "variable the endpoint's API key is read from [default: "
                                  "OPENAI_API_KEY].")
HEADER_OPTION = typer.Option(None, "--header", metavar="K:V", help="A header sent with "
                             "every endpoint request (repeatable; the values of auth, key, "
                             "token and cookie headers are kept out of every record).")


def endpoint_client(concurrency: int | None, timeout: float | None, retries: int | None,
                    api_key_env: str | None, header: list[str] | None) -> dict[str, Any]:
    """The endpoint client flags as ``gs.run``/``gs.report`` keywords (None: the client's
    default); the ``--header`` values are parsed first, so that their secrets are known
    before the command line is recorded."""
    if header:
        from genderscope.models.endpoint import parse_headers

        parse_headers(header)
    return {"concurrency": concurrency, "timeout": timeout, "retries": retries,
            "api_key_env": api_key_env, "headers": header or None}


REUSE = {"enabled": True}
"""Set by ``genderscope run --reuse/--no-reuse`` (the ``run`` group's option)."""


def run_measure(*args: object, **kwargs: object) -> Result:
    """:func:`genderscope.engine.run` with the ``run`` group's ``--reuse/--no-reuse``."""
    from genderscope.api import run

    return run(*args, reuse=REUSE["enabled"], **kwargs)  # type: ignore[arg-type]


def run_note(result: Result, base: Path | str) -> str:
    """The last line of a run: its id, where it was saved, and how long it took, or that
    it is a stored run reused (and how long it took when it was computed). It follows
    :func:`run_output`."""
    meta = result.metadata
    if meta.get("reused"):
        return (f"reused stored run {meta['run_id']} (same model, options and items; computed "
                f"in {meta.get('runtime_s', '?')} s; `genderscope run --no-reuse ...` "
                f"recomputes); saved to {base}")
    return f"run {meta['run_id']}; saved to {base}; {meta.get('runtime_s', '?')} s"


def run_output(result: Result, table: Callable[[Result], list[Any]]) -> list[Any]:
    """What a run prints above its last line (:func:`run_note`): ``table``'s tables of
    ``result``, then the summary's caveats (:func:`caveat_lines`), one a line. The one
    place a run's caveats are added: ``genderscope run`` and ``genderscope runs show``
    (:func:`genderscope.cli.tables.tables_of`) both print it."""
    return [*table(result), *caveat_lines(result.summary)]


def caveat_lines(summary: Any, where: str = "") -> list[str]:
    """'caveat: KEY: TEXT' for each interval of ``summary`` (nested) whose values were
    outside its calibrated range (``CI.caveat``, :mod:`genderscope.stats.diagnostics`),
    markup escaped."""
    from rich.markup import escape

    if not isinstance(summary, dict):
        return []
    out: list[str] = []
    text = summary.get("caveat")
    if isinstance(text, str):
        out.append(escape(f"caveat: {where}: {text}" if where else f"caveat: {text}"))
    for key, value in summary.items():
        out += caveat_lines(value, f"{where}.{key}" if where else str(key))
    return out


def open_store(path: Path | None, readonly: bool = False) -> Store:
    """The store at ``--store`` (or the default); ``readonly`` for commands that only read:
    they never create, migrate or write a store."""
    return Store(path, readonly=readonly)


def default_out(method: str, out: Path | None) -> Path:
    return out if out is not None else Path("genderscope-results") / method


def command_line() -> str:
    """The command as the user typed it (recorded in each result's metadata), less its
    secrets (:func:`genderscope.errors.redact`) and every ``--header`` value (``K:***``:
    a header of any name may carry a credential)."""
    import shlex
    import sys

    from genderscope.errors import MASK, redact

    args, masked = sys.argv[1:], []
    for i, arg in enumerate(args):
        if i and args[i - 1] == "--header" or arg.startswith("--header="):
            head, eq, value = arg.partition("=") if arg.startswith("--header=") \
                else ("", "", arg)
            arg = f"{head}{eq}{value.partition(':')[0]}:{MASK}"
        masked.append(arg)
    return redact("genderscope " + " ".join(shlex.quote(a) for a in masked))


def fmt(x: Any, nd: int = 3, *, small: str | None = None, sign: bool = False,
        missing: str | None = None) -> str:
    """A number as the terminal tables print it: ``nd`` decimals (``sign``: with ``+``
    or ``-``); ``small`` ``"e"`` or ``"g"``: a non-zero number under ``10**-nd`` in
    scientific notation (``.1e``) or with ``nd`` significant digits instead of rounding
    to 0; ``missing``: the text for None and NaN (default: ``None``, ``nan``). Anything
    not a number as it is. The CLI's one number format."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return missing if x is None and missing is not None else str(x)
    if v != v and missing is not None:
        return missing
    if small is not None and v and abs(v) < 10 ** -nd:
        return f"{v:.1e}" if small == "e" else f"{v:.{nd}g}"
    return f"{v:+.{nd}f}" if sign else f"{v:.{nd}f}"


def p_text(x: Any) -> str:
    """A p-value with two significant digits; ``–`` when there is none (None, NaN)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "–"
    return "–" if v != v else f"{v:.2g}"


def ci_text(d: dict[str, Any] | None, nd: int = 3, *, sign: bool = False,
            missing: str | None = None) -> str:
    """``estimate [low, high]`` of a summary entry, each number by :func:`fmt`; ``-``
    when there is none; ``n/a`` (or ``missing``) when its estimate is None (NaN, as a
    stored run reads it back) or, given ``missing``, NaN; ``estimate (why)`` when the
    entry says why it has no interval (``no_interval``: e.g. no spread)."""
    if not d:
        return "-"
    est = d.get("estimate")
    if est is None or (missing is not None and fmt(est, missing=missing) == missing):
        return missing or "n/a"
    if d.get("no_interval") and fmt(d.get("ci_low"), missing="") == "":
        return f"{fmt(est, nd, sign=sign)} ({d['no_interval']})"
    low, high = (fmt(d.get(k), nd, sign=sign, missing=missing) for k in ("ci_low", "ci_high"))
    return f"{fmt(est, nd, sign=sign)} [{low}, {high}]"


def share_text(v: dict[str, Any]) -> str:
    """A share and its interval in per cent, or the share and why it has none."""
    if v.get("ci_low") is None or v["ci_low"] != v["ci_low"]:
        return f"{v['estimate']:.1%} ({v.get('no_interval', 'no interval')})"
    return f"{v['estimate']:.1%} [{v['ci_low']:.1%}, {v['ci_high']:.1%}]"


def execute(measure: str, model: str | None, kind: str, start_token: str, device: str | None,
            dtype: str, store_path: Path | None, out: Path | None, progress: bool,
            as_json: bool, table: Callable[[Result], list[Table | str]],
            **options: Any) -> None:
    """``genderscope.run`` with the command line recorded, then the run printed: its
    tables and last line, or ``--json``."""
    from genderscope.results import to_json

    result = run_measure(measure, model, store=store_path, out=out, save=True,
                         progress=progress, kind=kind, device=device, dtype=dtype,
                         start_token=start_token, command=command_line(), **options)
    if as_json:
        console.print_json(to_json({"run_id": result.metadata["run_id"], "reused": bool(
            result.metadata.get("reused")), "summary": result.summary}))
        return
    for t in run_output(result, table):
        console.print(t)
    console.print(run_note(result, Path(result.metadata["out"])))


def new_table(title: str, columns: Iterable[str], labels: int | None = None,
              **options: Any) -> Table:
    """A terminal table titled ``title`` with ``columns``: the first ``labels`` left-
    justified, the others (numbers) right-justified; every column left when ``labels`` is
    None. ``options``: further ``rich.table.Table`` keywords (``caption``, ...)."""
    table = Table(title=title, **options)
    for k, col in enumerate(columns):
        table.add_column(col, justify="left" if labels is None or k < labels else "right")
    return table


ESTIMATE_COLUMNS = ("measure", "estimate [95% CI]")
"""The columns of a table of named estimates (with ``labels=1``)."""


def what_value_table(title: str, rows: dict[str, Any]) -> Table:
    """Two columns, ``what`` and ``value``: one row per item of ``rows``, its value as
    ``str``; a float given to 3 decimals."""
    table = new_table(title, ("what", "value"))
    for key, value in rows.items():
        table.add_row(key, f"{value:.3f}" if isinstance(value, float) else str(value))
    return table


def summary_table(result: Result) -> list[Table]:
    """The terminal table of a measure that has no table of its own: every summary number,
    with its 95 % CI or p-value where it has one (no p column when none has a p)."""
    rows = []
    for key, value in result.summary.items():
        if isinstance(value, dict) and "estimate" in value:
            rows.append((key, ci_text(value) if "ci_low" in value else fmt(value["estimate"]),
                         fmt(value.get("p_value"), 4) if value.get("p_value") is not None
                         else ""))
        elif isinstance(value, (int, float, str)) and not isinstance(value, bool):
            rows.append((key, fmt(value) if isinstance(value, float) else str(value), ""))
    with_p = any(row[2] for row in rows)
    t = new_table(f"{result.method}: summary", ESTIMATE_COLUMNS + (("p",) if with_p else ()),
                  labels=1)
    for row in rows:
        t.add_row(*(row if with_p else row[:2]))
    return [t]


Tables = Callable[[Result], list[Any]]


def declared_table(name: str) -> Tables:
    """The terminal tables of measure ``name``: the function its declaration's ``table``
    names (``"module:function"``, imported here, never by the core), else
    :func:`summary_table` (no ``table`` declared, or no measure of that name)."""
    from genderscope.core.registry import declarations

    declared = declarations().get(name)
    if declared is None or declared.table is None:
        return summary_table
    return table_function(declared.table)


def table_function(path: str) -> Tables:
    """The function ``"module:function"`` names (``ImportError`` or ``ValueError`` when it
    names none)."""
    import importlib

    module, _, function = path.partition(":")
    found = getattr(importlib.import_module(module), function, None) if module else None
    if not callable(found):
        raise ValueError(f"{path!r} names no function (module:function)")
    return found


MODEL_FLAG_HELP = {"vectors": "Word vectors: packaged name (glove-6b-50d) or file.",
                   "encoder": "Sentence encoder: packaged name (all-minilm-l6-v2), HF id or "
                              "folder.",
                   "classifier": "Classifier SPEC: FILE.joblib|.pkl, module:callable, "
                                 "file.py:callable[()] or hf:MODEL. The first three RUN CODE: "
                                 "a pickle runs code when loaded, and module:name / "
                                 "file.py:name import and execute that Python; give only "
                                 "files and modules you trust."}
BATCH_SIZE_OPTION = typer.Option(64, "--batch-size", help="Texts per call of the classifier.")


def measure_command(name: str) -> Callable[..., None]:
    """The ``genderscope run NAME`` command of a declared measure: the model's flags
    (by what it needs), the measure's flags from its declaration
    (:mod:`genderscope.cli.declared`), its help, and the tables its declaration names
    (:func:`declared_table`)."""
    from genderscope.cli.declared import with_declared_options
    from genderscope.core.registry import get

    declared = get(name)
    show = declared_table(name)
    if declared.needs == "lm":
        def command(model: str = MODEL_OPTION, kind: str = KIND_OPTION,
                    start_token: str = START_OPTION, device: str | None = DEVICE_OPTION,
                    dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
                    store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
                    progress: bool = PROGRESS_OPTION, **options: Any) -> None:
            execute(name, model, kind, start_token, device, dtype, store_path, out,
                    progress, as_json, show, **options)
    elif declared.needs == "none":
        def command(out: Path | None = OUT_OPTION,  # type: ignore[misc]
                    store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
                    progress: bool = PROGRESS_OPTION, **options: Any) -> None:
            execute(name, None, "auto", "auto", None, "float32", store_path, out,
                    progress, as_json, show, **options)
    elif declared.needs == "classifier":  # its texts go in batches; it has no device
        def command(model: str = typer.Option(  # type: ignore[misc]
                        ..., "--classifier", help=MODEL_FLAG_HELP["classifier"]),
                    batch_size: int = BATCH_SIZE_OPTION, out: Path | None = OUT_OPTION,
                    store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
                    progress: bool = PROGRESS_OPTION, **options: Any) -> None:
            open_store(store_path).close()  # a bad store is refused before the work
            execute(name, model, "auto", "auto", None, "float32", store_path, out,
                    progress, as_json, show, batch_size=batch_size, **options)
    else:
        model_option = typer.Option(..., f"--{declared.needs}",
                                    help=MODEL_FLAG_HELP[declared.needs])

        def command(model: str = model_option,  # type: ignore[misc]
                    device: str | None = DEVICE_OPTION, out: Path | None = OUT_OPTION,
                    store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
                    progress: bool = PROGRESS_OPTION, **options: Any) -> None:
            execute(name, model, "auto", "auto", device, "float32", store_path, out,
                    progress, as_json, show, **options)

    command = with_declared_options(name)(command)
    command.__doc__ = "\n\n".join(p for p in (declared.summary, declared.description)
                                    if p).replace("``", "")  # reST marks read as noise
    command.__name__ = f"{name.replace('-', '_')}_cmd"
    return command

