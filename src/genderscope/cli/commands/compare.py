"""``genderscope compare RUN_A RUN_B``: before/after comparison of two runs (store ids
or result folders), or of two models with ``--before MODEL --after MODEL --measure NAME``
(:mod:`genderscope.measures.compare`: the pairing, intervals and tests).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from genderscope.checks import COUNT_MAX
from genderscope.cli.common import (
    JSON_OPTION,
    STORE_OPTION,
    caveat_lines,
    console,
    default_out,
    fmt,
    open_store,
)
from genderscope.errors import GenderscopeError
from genderscope.results import Result, to_json

if TYPE_CHECKING:
    import pandas as pd


def _load(spec: str, store_path: Path | None) -> Result:
    from genderscope.measures.compare import load_result_dir

    p = Path(spec)
    if p.is_dir():
        return load_result_dir(p)
    try:
        store = open_store(store_path, readonly=True)
    except GenderscopeError as exc:
        raise GenderscopeError(f"no run or result folder {spec!r} ({exc})") from None
    with store:
        return store.load_run(spec)


def model_measures(app: typer.Typer) -> list[str]:
    """Measures that ``--before/--after`` can run on two language models: the
    ``genderscope run`` commands with a ``--model`` flag."""
    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    return [name for name, cmd in run.commands.items()
            if any(p.name == "model" for p in cmd.params)]


def _run_measure(app: typer.Typer, measure: str, model: str, folder: Path,
                 store: Path | None, extra: list[str]) -> str:
    """Run ``genderscope run MEASURE --model MODEL --out FOLDER``; returns the folder."""
    args = ["run", measure, "--model", model, "--out", str(folder), *extra]
    if store is not None:
        args += ["--store", str(store)]
    console.print(f"[bold]running {measure} on {model}[/bold]")
    app(args, standalone_mode=False)
    if not (folder / "items.csv").exists():
        raise GenderscopeError(f"compare: `genderscope run {measure}` wrote no items.csv to "
                               f"{folder}")
    return str(folder)


def _fmt(v: object) -> str:
    """A cell of the change table: a float by the CLI's one format, else as it is."""
    return fmt(v, small="g", missing="–") if isinstance(v, float) else str(v)


def change_rows(t: pd.DataFrame, groups: list[str]) -> tuple[list[str], list[dict[str, str]]]:
    """The change table as printed: column names and one dict of cells per group (the
    group's values joined in the first column, the change beside its 95 % CI)."""
    adj = [m for m in t.get("p_adjust_method", ()) if isinstance(m, str)]
    names = {"n": "n", "mean_before": "before", "mean_after": "after", "change": "",
             "test": "test", "p_value": "p",
             "p_adjusted": f"p ({adj[0]})" if adj else "p adjusted", "effect_size_r": "r"}
    for test in [c for c in t.columns if c.endswith("_mcnemar_test")]:
        value = test.removesuffix("_mcnemar_test")  # its shares first, then its test
        names |= {f"{value}_{w}": f"{value.replace('_', ' ')} {w} [95% CI]"
                  for w in ("before", "after") if f"{value}_{w}" in t.columns}
        names |= {c: c.replace("_", " ").replace("p adjusted", "p adj.") for c in (
            test, f"{value}_mcnemar_p", f"{value}_mcnemar_p_adjusted") if c in t.columns}
    shown = [c for c in names if c in t.columns and c != "change"]
    head = " · ".join(groups) or "group"
    columns = [head, *("change [95% CI]" if c == "change" else names[c]
                          for c in names if c in t.columns)]
    rows = []
    for _, r in t.iterrows():
        row = {head: " · ".join(str(r[g]) for g in groups) if groups else "all",
               "change [95% CI]": f"{_fmt(r['change'])} [{_fmt(r['change_ci_low'])}, "
                                  f"{_fmt(r['change_ci_high'])}]"}
        rows.append(row | {names[c]: _cell(r, c) for c in shown})
    return columns, rows


def _cell(r: pd.Series, column: str) -> str:
    """A cell: a share with its 95 % CI (``<column>_ci_low``/``_ci_high``; a comparison
    stored without them says so), a McNemar test with its counts, else the value."""
    if not column.endswith(("_before", "_after")) or column.startswith("mean_"):
        return _fmt(r[column]) + _flips(r, column)
    lo, hi = r.get(f"{column}_ci_low"), r.get(f"{column}_ci_high")
    if isinstance(lo, float) and isinstance(hi, float) and lo == lo and hi == hi:
        return f"{_fmt(r[column])} [{_fmt(lo)}, {_fmt(hi)}]"
    return f"{_fmt(r[column])} (no CI stored)"


def _flips(r: pd.Series, column: str) -> str:
    """After a McNemar test cell, the discordant pairs it counted: ' (B true→false, C
    false→true)', so that "too few discordant pairs to test" shows how few."""
    if not column.endswith("_mcnemar_test"):
        return ""
    value = column.removesuffix("_mcnemar_test")
    b, c = r.get(f"{value}_true_to_false"), r.get(f"{value}_false_to_true")
    if b is None or c is None or b != b or c != c:  # absent or NaN
        return ""
    return f" ({int(b)} true→false, {int(c)} false→true)"


def change_caveats(summary: dict[str, Any]) -> list[str]:
    """'caveat: GROUP: TEXT' for each row of the change table whose interval has a caveat
    (:mod:`genderscope.stats.diagnostics`), the group named as in the table."""
    groups = [str(g) for g in summary.get("groups") or []]
    out: list[str] = []
    for r in summary.get("by_group") or []:
        label = " · ".join(str(r.get(g)) for g in groups) or str(r.get("group", "all"))
        out += caveat_lines({label: {"caveat": r.get("caveat")}})
    return out


def print_change(res: Result) -> None:
    """A comparison's change table (:func:`change_rows`), its design and its caveats, as
    ``genderscope compare`` prints them and ``genderscope runs show`` of its run."""
    from genderscope.reporting.terminal import print_rows

    title = (f"{res.method}: {res.summary['value']} after - before "
             f"({res.summary['n_items']} paired items)")
    columns, rows = change_rows(res.tables["change_by_group"], res.summary["groups"])
    print_rows(console, rows, title=title, columns=columns, wide=None, head=columns[:1],
               sub=None, fields=[(c, c) for c in columns[1:]])
    for label in ("design", "design_note"):  # the crossed design, or why it is not used
        if res.summary.get(label):
            console.print(f"{label.replace('_', ' ')}: {res.summary[label]}")
    for line in change_caveats(res.summary):
        console.print(line)


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @app.command("compare")
    def compare(
        run_a: str | None = typer.Argument(None, help="Run before (store id or result "
                                           "folder)."),
        run_b: str | None = typer.Argument(None, help="Run after (store id or result folder)."),
        before_model: str | None = typer.Option(None, "--before", help="Instead of runs: "
                                                "model before (with --after, --measure)."),
        after_model: str | None = typer.Option(None, "--after", help="Model after (e.g. a "
                                               "`debias cds` output folder)."),
        measure: str | None = typer.Option(None, "--measure", help="Measure to run on both "
                                           "models, e.g. bec-pro or crows-pairs."),
        run_arg: list[str] = typer.Option([], "--run-arg", help="Extra option passed to "
                                          "`genderscope run MEASURE` (repeatable), e.g. "
                                          "--run-arg=--bias-type --run-arg=gender."),
        key: list[str] = typer.Option([], "--key", help="Item key column(s) [default: per "
                                      "measure]."),
        value: str | None = typer.Option(None, "--value", help="Compared item column."),
        group_by: list[str] = typer.Option([], "--group-by", help="Group column(s)."),
        n_resamples: int = typer.Option(10_000, "--n-resamples", min=100,
                                         max=COUNT_MAX["resamples"],
                                         help="Bootstrap resamples."),
        seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
        p_adjust: str = typer.Option("holm", "--p-adjust", help="Multiplicity adjustment over "
                                     "the per-group tests: holm (family-wise) or bh "
                                     "(Benjamini-Hochberg, false discovery rate)."),
        plot: bool = typer.Option(True, "--plot/--no-plot", help="Write change.png/.svg."),
        store: Path | None = STORE_OPTION,
        out: Path | None = typer.Option(None, "--out", help="Folder for the comparison "
                                        "[default: ./genderscope-results/<method>-compare]."),
        as_json: bool = JSON_OPTION,
    ) -> None:
        """Per-group before/after differences with CIs and paired tests."""
        from genderscope.api import compare as compare_results
        from genderscope.measures.compare import plot_change
        from genderscope.outputs import check_output_folder, command_inputs, save_with_figures

        if p_adjust not in ("holm", "bh"):
            raise GenderscopeError(f"--p-adjust must be holm or bh, got {p_adjust!r}")
        if before_model or after_model or measure:
            if run_a or run_b or not (before_model and after_model and measure):
                raise GenderscopeError("compare: give either RUN_A RUN_B, or --before, "
                                       "--after and --measure")
            if measure not in (lm_measures := model_measures(app)):
                raise GenderscopeError(f"compare --measure {measure}: choose one of "
                                       f"{', '.join(lm_measures)} (language-model measures)")
            # the models are what it reads; the before/after runs it writes under --out
            inputs = command_inputs(models=[before_model, after_model], store=store)
            if out is not None:
                check_output_folder(out, inputs=inputs)  # before either run
            base = default_out(f"{measure}-compare", out)
            run_a, run_b = (_run_measure(app, measure, m, base / name, store, run_arg)
                            for name, m in (("before", before_model), ("after", after_model)))
        elif not (run_a and run_b):
            raise GenderscopeError("compare: give RUN_A and RUN_B (or --before, --after, "
                                   "--measure)")
        else:
            inputs = command_inputs(paths=[run_a, run_b], store=store)
            if out is not None:
                check_output_folder(out, inputs=inputs)
        open_store(store).close()  # a bad store is refused before the work
        before, after = _load(run_a, store), _load(run_b, store)
        res = compare_results(before, after, key=key or None, value=value,
                              group_by=group_by or None, resamples=n_resamples, seed=seed,
                              p_adjust=p_adjust, record=False)  # recorded once saved
        folder = default_out(res.method, out)
        check_output_folder(folder, inputs=inputs)
        save_with_figures(res, folder, {folder / "change": lambda p: plot_change(res, p)}
                          if plot else {})
        with open_store(store) as st:
            run_id = st.record_run(res)
        if as_json:
            console.print_json(to_json({"run_id": run_id, "summary": res.summary}))
            return
        print_change(res)
        # the id first: a long folder wraps after it, never through it
        console.print(f"run {run_id} saved to {folder}")
