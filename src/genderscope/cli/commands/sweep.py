"""``genderscope sweep``: many models (and revisions) x many measures on Ray.

Each model is one Ray task with its measures (the model loads once); finished
tasks are recorded in the store; jobs already recorded are skipped, so an
interrupted sweep resumes by running the same command. See docs/sweep.md.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from genderscope.cli.common import (
    API_KEY_ENV_OPTION,
    BASE_URL_OPTION,
    CONCURRENCY_OPTION,
    DEVICE_OPTION,
    HEADER_OPTION,
    RETRIES_OPTION,
    STORE_OPTION,
    TIMEOUT_OPTION,
    command_line,
    console,
    endpoint_client,
    open_store,
)
from genderscope.errors import GenderscopeError


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @app.command("sweep")
    def sweep_cmd(
        file: Path | None = typer.Argument(None, help="YAML sweep file (models, measures, "
                                           "settings, resources); flags add to it."),
        model: list[str] = typer.Option([], "--model", "-m", help="Language model (HF id, "
                                        "folder, .gguf, smollm2), or openai:NAME with "
                                        "--base-url; repeatable."),
        revision: list[str] = typer.Option([], "--revision", help="Hub revision (branch, tag "
                                           "or commit) of every --model; repeatable: one job "
                                           "per revision, plotted as a trajectory."),
        vectors: list[str] = typer.Option([], "--vectors", help="Word vectors (WEAT); "
                                          "repeatable. Their jobs ask Ray for no GPU."),
        encoder: list[str] = typer.Option([], "--encoder", help="Sentence encoder (SEAT); "
                                          "repeatable."),
        measure: list[str] = typer.Option([], "--measure", help="Report measure by name "
                                          "(repeatable), e.g. crows-pairs, bec-pro."),
        address: str | None = typer.Option(None, "--address", help="Existing Ray cluster "
                                           "(auto or ray://host:port); default: start Ray "
                                           "on this machine."),
        num_cpus: int | None = typer.Option(None, "--num-cpus", help="CPUs of the local Ray "
                                            "instance [default: all]."),
        cpus_per_job: float | None = typer.Option(None, "--cpus-per-job", help="CPUs each "
                                                  "job asks Ray for [default: 1]."),
        gpus_per_job: float | None = typer.Option(None, "--gpus-per-job", help="GPUs each "
                                                  "language-model/encoder job asks for "
                                                  "[default: 0]."),
        max_retries: int | None = typer.Option(None, "--max-retries", help="Re-runs of a job "
                                               "whose worker died [default: 3]."),
        out: Path | None = typer.Option(None, "--out", "-o", help="Leaderboard HTML page "
                                        "[default: sweep-report.html]."),
        lang: str | None = typer.Option(None, "--lang", help="Benchmark language: en or da."),
        quick: bool = typer.Option(False, "--quick", help="Small subsets (~30-40 items per "
                                   "measure): a fast smoke test with wide CIs (as in "
                                   "`genderscope report`)."),
        full: bool | None = typer.Option(None, "--full/--subsets", help="Every benchmark "
                                         "in full, or the seeded CPU-sized subsets (as in "
                                         "`genderscope report`) [default: subsets]."),
        seed: int | None = typer.Option(None, "--seed", help="Seed of subsets and resampling."),
        data: Path | None = typer.Option(None, "--data", help="Benchmark data folder (on a "
                                         "cluster: a path every node can read)."),
        kind: str = typer.Option("auto", "--kind", help="Kind of every --model: auto, masked "
                                 "or causal."),
        device: str | None = DEVICE_OPTION,
        dtype: str | None = typer.Option(None, "--dtype", help="float32, float16 or bfloat16."),
        store_path: Path | None = STORE_OPTION,
        progress: bool = typer.Option(True, "--progress/--no-progress", help="Show the "
                                      "progress bar."),
        base_url: str | None = BASE_URL_OPTION,
        concurrency: int | None = CONCURRENCY_OPTION,
        timeout: float | None = TIMEOUT_OPTION, retries: int | None = RETRIES_OPTION,
        api_key_env: str | None = API_KEY_ENV_OPTION,
        header: list[str] | None = HEADER_OPTION,
    ) -> None:
        """Many models x many measures as Ray tasks, recorded in the store; one leaderboard.

        Jobs already recorded (same model, revision, measure, options and data) are
        skipped, so rerunning an interrupted sweep resumes it.
        """
        from genderscope.models.source import pick_dtype
        from genderscope.reporting import html as page
        from genderscope.sweep import spec as sweep_spec

        spec = sweep_spec.load_file(file) if file is not None else sweep_spec.SweepSpec()
        if revision and not model:
            raise GenderscopeError("--revision applies to --model; give at least one --model")
        if (base_url or header or any(v is not None for v in (concurrency, timeout, retries,
                                                                api_key_env))) \
                and not any(m.startswith("openai:") for m in model):
            raise GenderscopeError("--base-url and the endpoint client flags are for an "
                                   "endpoint model (--model openai:NAME); none was given")
        client = tuple((k, tuple(v) if k == "headers" else v) for k, v in endpoint_client(
            concurrency, timeout, retries, api_key_env, header).items() if v is not None)
        spec.models += [sweep_spec.ModelSpec(m, kind=kind, revision=r, base_url=base_url,
                                             client=client)
                        if m.startswith("openai:") else
                        sweep_spec.ModelSpec(m, kind=kind, revision=r)
                        for m in model for r in (revision or [None])]
        spec.models += [sweep_spec.ModelSpec(v, kind="vectors") for v in vectors]
        spec.models += [sweep_spec.ModelSpec(e, kind="encoder") for e in encoder]
        spec.measures += [sweep_spec.MeasureSpec(m) for m in measure]
        for key, value in (("address", address), ("cpus_per_job", cpus_per_job),
                           ("gpus_per_job", gpus_per_job), ("max_retries", max_retries),
                           ("out", out), ("lang", lang), ("quick", quick or None),
                           ("full", full), ("seed", seed),
                           ("data", data), ("device", device), ("dtype", dtype),
                           ("store", store_path)):
            if value is not None:
                setattr(spec, key, value)
        spec.check()
        from genderscope.sweep.driver import local_gpus

        spec.check_fits(num_cpus, local_gpus())  # a job no node can run would wait forever
        pick_dtype(spec.dtype)
        from genderscope.outputs import command_inputs

        page.check_writable(spec.out, inputs=command_inputs(
            models=[m.spec for m in spec.models], paths=[file, spec.data], store=spec.store))
        command = command_line()  # the key and a URL's credentials masked
        run_and_report(spec, command, progress=progress, num_cpus=num_cpus)


def run_and_report(spec, command: str, *, progress: bool = True,
                   num_cpus: int | None = None) -> None:
    """Run the sweep with a progress bar and status lines, then write the page."""
    from genderscope.reporting.compare import cell
    from genderscope.sweep.driver import run_sweep
    from genderscope.sweep.report import write_report

    bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=console, disable=not progress, transient=False)
    task = bar.add_task("jobs", total=None)
    running = False  # the jobs that run are counted once the driver says how many (every
    # status told before is settled at planning: skipped, not applicable, failed to load)
    words = {"done": "[green]done[/green]", "skipped": "[cyan]skipped[/cyan] (already "
             "recorded)", "failed": "[red]failed[/red]", "not applicable":
             "[yellow]not applicable[/yellow]", "retried": "[magenta]retried[/magenta]"}

    def status(st, event: str) -> None:
        line = f"{st.model}: {st.measure} {words.get(event, event)}"
        if event == "failed" or event == "not applicable":
            line += f": {st.reason}"
        elif event == "retried":
            line += f" (attempt {st.attempts}: its worker died)"
        elif event == "done":
            line += f" [dim]{st.seconds:.1f} s" + (f", attempt {st.attempts}"
                                                   if st.attempts > 1 else "") + "[/dim]"
        bar.console.print(line)
        if running and event != "retried":  # a job that ran settled: keyed or not (a
            bar.advance(task)  # model the store has not seen has no key before it runs)

    def total(n: int) -> None:
        nonlocal running
        running = True
        bar.update(task, total=n)

    with open_store(spec.store) as store:
        with bar:
            run = run_sweep(spec, store, command=command, on_status=status,
                            on_total=total, num_cpus=num_cpus)
        path, data = write_report(spec, run, store, spec.out, command)
    table = Table(title=f"Sweep: {len(spec.models)} model(s) x {len(spec.measures)} "
                        f"measure(s) in {run.seconds:.0f} s")
    for col in ("model", "measure", "status", "estimate [95% CI]", "reading"):
        table.add_column(col, overflow="fold")
    for sec in data.sections:
        st = run.statuses[(sec.subject.label, sec.measure.name)]
        if sec.status != "ok":
            table.add_row(sec.subject.label, sec.measure.name, sec.status, "", sec.reason)
            continue
        h = sec.headlines[0] if sec.headlines else None
        table.add_row(sec.subject.label, sec.measure.name, st.status,
                      cell(h) if h else "", h.reading() if h else "")
    console.print(table)
    n_failed = run.count("failed")
    console.print(f"{run.count('done')} job(s) ran, {run.count('skipped')} already recorded, "
                  f"{n_failed} failed; report written to {path}")
    if n_failed:
        raise typer.Exit(1)
