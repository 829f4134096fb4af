"""``genderscope runs list | show | diff | export``: the results store as an interface
(what each prints or writes: its ``--help``). Models are shown by the name typed
(``smollm2``) beside their fingerprint.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from genderscope.checks import whole_number
from genderscope.cli.common import JSON_OPTION, STORE_OPTION, console, open_store
from genderscope.errors import GenderscopeError
from genderscope.results import Result, to_json
from genderscope.text_blocks import plural

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("csv", "parquet", "json")


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def flatten(d: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts -> {"a.b.c": value}; lists become JSON strings."""
    out: dict[str, Any] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(d, list):
        out[prefix[:-1]] = to_json(d)
    else:
        out[prefix[:-1]] = d
    return out


def iter_runs(store: Any, method: str | None, model: str | None,
              run_ids: Sequence[str] = ()) -> Iterator[tuple[dict[str, Any], str, Result]]:
    """The stored runs of ``method`` (all when None), oldest first, as (row, the model's
    name as typed, e.g. ``smollm2``, the loaded run), whose fingerprint or name contains
    ``model``, case aside (all when None), and whose id starts with one of ``run_ids``
    (all when empty): ``runs list`` shows both names, so either selects. Each run is
    loaded once, when it is reached, and none is kept (a loaded run holds its tables'
    bytes: keeping every one would hold the whole store in memory)."""
    from genderscope.reporting.export import model_name

    want = None if model is None else model.casefold()
    prefixes = tuple(run_ids)
    for r in store.list_runs(method=method):
        if prefixes and not r["run_id"].startswith(prefixes):
            continue
        res = store.load_run(r["run_id"])
        name = model_name(res.metadata)
        if want is None or want in r["model"].casefold() or want in name.casefold():
            yield r, name, res


def runs_frame(store: Any, method: str | None, model: str | None,
               run_ids: Sequence[str] = ()) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for r, name, res in iter_runs(store, method, model, run_ids):
        summary = res.summary
        rows.append({"run_id": r["run_id"], "model_name": name,
                     "model": r["model"], "method": r["method"],
                     "created": _when(r["created"]), "version": r["version"],
                     "params": r["params"], **{f"summary.{k}": v for k, v in
                                                flatten(summary).items()}})
    return pd.DataFrame(rows)


def _short(v: Any, width: int = 60) -> str:
    text = f"{v:.6g}" if isinstance(v, float) else "–" if v is None else str(v)
    return text if len(text) <= width else text[:width - 1] + "…"


def _format(out: Path, fmt: str | None) -> str:
    if fmt is None:
        suffix = out.suffix.lower().lstrip(".")
        fmt = {"pq": "parquet", "jsonl": "json"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise GenderscopeError(f"export format must be one of {', '.join(FORMATS)} (from "
                               f"--format or the file suffix), got {fmt!r}")
    return fmt


METHOD_FILTER = typer.Option(None, "--method", help="Only runs of this measure (e.g. "
                             "crows-pairs).")
MODEL_FILTER = typer.Option(None, "--model", help="Only runs whose model name (as "
                            "typed, e.g. smollm2) or fingerprint contains this text.")


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    runs_app = typer.Typer(help="List, show and export the runs in the results store.",
                           no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(runs_app, name="runs")

    @runs_app.command("list")
    def list_cmd(method: str | None = METHOD_FILTER, model: str | None = MODEL_FILTER,
                 store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION) -> None:
        """Stored runs, oldest first: the model's name as typed beside its fingerprint."""
        with open_store(store_path, readonly=True) as store:  # (row, the model's name)
            picked = [(r, name) for r, name, _ in iter_runs(store, method, model)]
        if as_json:
            typer.echo(to_json([{**r, "model_name": name, "created": _when(r["created"]),
                                 "params": json.loads(r["params"])} for r, name in picked],
                               indent=2))
            return
        table = Table(title=f"{plural(len(picked), 'run')} in {store.path}")
        table.add_column("run id", no_wrap=True, min_width=22)
        table.add_column("created (UTC)", overflow="fold")
        table.add_column("method", no_wrap=True)
        table.add_column("model", no_wrap=True)
        for col in ("fingerprint", "parameters"):
            table.add_column(col, overflow="fold")
        for r, name in picked:
            table.add_row(r["run_id"], _when(r["created"]), r["method"], name or "–",
                          _short(r["model"], 24), r["params"][:80])
        console.print(table)

    @runs_app.command("show")
    def show_cmd(run_id: str = typer.Argument(..., help="Run id or a unique prefix."),
                 items: int = typer.Option(0, "--items", help="Also print the first N items."),
                 store_path: Path | None = STORE_OPTION,
                 as_json: bool = typer.Option(False, "--json", help="Print the whole "
                                              "record (summary, metadata) as JSON instead "
                                              "of the tables.")) -> None:
        """One run's tables, as `genderscope run` printed them, its model and options."""
        whole_number(items, "items", 0, label="--items")  # -1 printed all items but the last
        with open_store(store_path, readonly=True) as store:
            res = store.load_run(run_id)
        if as_json:
            typer.echo(to_json({"run_id": res.metadata.get("run_id"), "method": res.method,
                                "summary": res.summary, "metadata": res.metadata,
                                "n_items": len(res.items), "tables": list(res.tables)},
                               indent=2))
            return
        from genderscope.cli.tables import tables_of
        from genderscope.reporting.export import model_name

        console.print(f"[bold]{res.method}[/bold] run {res.metadata.get('run_id')} "
                      f"({plural(len(res.items), 'item')}; tables: "
                      f"{', '.join(res.tables) or '-'})")
        if res.method.endswith("-compare") and "change_by_group" in res.tables:
            from genderscope.cli.commands.compare import print_change

            print_change(res)  # the change table compare printed (its McNemar cells too)
        else:
            for t in tables_of(res):
                console.print(t)
        model = res.metadata.get("model") or {}
        fingerprint = model.get("fingerprint") if isinstance(model, dict) else None
        console.print(f"model: {model_name(res.metadata) or '–'}"
                      + (f" ({_short(fingerprint, 40)})" if fingerprint else ""))
        console.print(f"params: {to_json(res.metadata.get('params', {}))}")
        console.print("the whole record: genderscope runs show "
                      f"{res.metadata.get('run_id')} --json")
        if items:
            console.print(res.items.head(items).to_string())

    @runs_app.command("diff")
    def diff_cmd(run_a: str = typer.Argument(..., help="Run id (or unique prefix)."),
                 run_b: str = typer.Argument(..., help="Run id (or unique prefix)."),
                 store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION) -> None:
        """What differs between two runs: summary numbers, model, parameters, data, seed.

        Timings and ids are left out. For item-level differences with CIs and paired
        tests, use `genderscope compare RUN_A RUN_B`."""
        from genderscope.results import diff_results

        with open_store(store_path, readonly=True) as store:
            a, b = store.load_run(run_a), store.load_run(run_b)
        df = diff_results(a, b)
        ids = (a.metadata.get("run_id"), b.metadata.get("run_id"))
        if as_json:
            typer.echo(to_json({"a": ids[0], "b": ids[1],
                                "differences": df.to_dict(orient="records")}, indent=2))
            return
        if df.empty:
            console.print(f"runs {ids[0]} and {ids[1]} agree (timings and ids aside)")
            return
        table = Table(title=f"{plural(len(df), 'difference')}: A = {ids[0]}, B = {ids[1]}")
        for col in ("part", "key", "A", "B", "B - A"):
            table.add_column(col, overflow="fold",
                             justify="right" if col in ("A", "B", "B - A") else "left")
        for _, r in df.iterrows():
            change = r["change"]
            table.add_row(r["part"], r["key"], _short(r["a"]), _short(r["b"]),
                          "" if change is None or change != change else f"{change:+.4g}")
        console.print(table)

    @runs_app.command("export")
    def export_cmd(out: Path = typer.Option(..., "--out", "-o", help="File to write "
                                            "(.csv, .parquet or .json)."),
                   fmt: str | None = typer.Option(None, "--format", help="csv, parquet or "
                                                  "json [default: from the suffix]."),
                   what: str = typer.Option("runs", "--what", help="runs (one row per run), "
                                            "headlines (one row per headline number: "
                                            "estimate, CI, unit, p, Holm p, n, reading) or "
                                            "items (item tables with run_id)."),
                   run_id: list[str] = typer.Option([], "--run", help="Only these runs "
                                                    "(repeatable)."),
                   method: str | None = METHOD_FILTER,
                   model: str | None = MODEL_FILTER,
                   store_path: Path | None = STORE_OPTION,
                   overwrite: bool = typer.Option(False, "--overwrite",
                                                  help="Replace an existing --out file.")
                   ) -> None:
        """Write runs or their item tables to CSV, Parquet or JSON."""
        from genderscope.outputs import check_output_file, command_inputs

        inputs = command_inputs(store=store_path)
        check_output_file(out, "--out", overwrite=overwrite, inputs=inputs)  # a folder: named
        kind = _format(out, fmt)
        if what not in ("runs", "headlines", "items"):
            raise GenderscopeError(f"--what must be runs, headlines or items, got {what!r}")
        if any(not r.strip() for r in run_id):  # a prefix of every id: it would match all
            raise GenderscopeError("--run is empty; give a run id or a unique prefix of one "
                                   "(genderscope runs list shows them)")
        with open_store(store_path, readonly=True) as store:
            known = [r["run_id"] for r in store.list_runs()] if run_id else []
            unknown = [r for r in run_id if not any(k.startswith(r) for k in known)]
            if unknown:
                raise GenderscopeError(f"--run: no run {unknown[0]!r} in store {store.path}")
            if what == "runs":
                df = runs_frame(store, method, model, run_id)
            elif what == "headlines":
                import pandas as pd

                from genderscope.reporting.export import HEADLINE_COLUMNS, headline_records

                # each run loaded once, here, and handed on (not loaded again by id)
                loaded = ((r, res) for r, _, res in iter_runs(store, method, model, run_id))
                df = pd.DataFrame(headline_records(loaded), columns=HEADLINE_COLUMNS)
            else:  # --run: those runs, in the order given; else every selected run
                chosen = (store.load_run(r) for r in run_id) if run_id else \
                    (res for _, _, res in iter_runs(store, method, model))
                parts = [res.items.assign(run_id=res.metadata["run_id"], method=res.method)
                         for res in chosen]
                import pandas as pd

                df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        if df.empty:
            raise GenderscopeError("no runs match; nothing exported")
        from genderscope.outputs import write_file

        if kind == "parquet":
            for col in df.columns:  # mixed-type summary columns -> JSON text
                if df[col].dtype == object:
                    df[col] = df[col].map(lambda v: v if v is None or isinstance(v, str)
                                          else to_json(v))
        writers = {"csv": lambda p: df.to_csv(p, index=False),
                   "parquet": lambda p: df.to_parquet(p, index=False),
                   "json": lambda p: p.write_text(df.to_json(orient="records",
                                                              force_ascii=False, indent=1),
                                                  encoding="utf-8")}
        # checked again, then a fresh sibling renamed into place (never through a link)
        check_output_file(out, "--out", overwrite=overwrite, inputs=inputs)
        write_file(out, writers.get(kind, writers["json"]))
        console.print(f"exported {plural(len(df), 'row')} to {out} ({kind})")
