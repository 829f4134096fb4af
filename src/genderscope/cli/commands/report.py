"""``genderscope report``: every applicable measure on one or more models, one HTML page.

Stored runs are reused (same model identity, parameters and data hashes), so a
second report on the same model loads no model and runs no forward pass;
``--no-reuse`` re-runs the measures (their scores still come from the cache).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from genderscope.cli.common import (
    API_KEY_ENV_OPTION,
    BASE_URL_OPTION,
    CONCURRENCY_OPTION,
    DEVICE_OPTION,
    DTYPE_OPTION,
    HEADER_OPTION,
    RETRIES_OPTION,
    STORE_OPTION,
    TIMEOUT_OPTION,
    command_line,
    console,
    endpoint_client,
)
from genderscope.errors import GenderscopeError
from genderscope.text_blocks import plural

REPORT_MAX_NEW_TOKENS = 48
"""The report's chat cards' answer length (``reporting.cards.chat_probes.DECODING``; kept
here as a literal so that ``--help`` imports no card)."""


def with_decoding_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give the report command the chat probes' declared decoding flags (help, bounds and
    defaults from the declaration, ``--max-new-tokens`` defaulting to the report's 48);
    the command receives them in ``**decoding``."""
    from genderscope.cli.declared import typer_parameter, with_parameters
    from genderscope.core.registry import get
    from genderscope.reporting.build import DECODING_OPTIONS

    declared = get("direct").options
    return with_parameters(fn, [typer_parameter(declared[n].but(default=REPORT_MAX_NEW_TOKENS)
                                                if n == "max_new_tokens" else declared[n])
                                for n in DECODING_OPTIONS])


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @app.command("report")
    @with_decoding_options
    def report_cmd(
        model: list[str] = typer.Option([], "--model", "-m", help="Language model (HF id, "
                                        "folder, .gguf, smollm2, gemma3-270m), or a chat "
                                        "model openai:NAME with --base-url; repeat to "
                                        "compare several."),
        out: Path = typer.Option(Path("report.html"), "--out", "-o",
                                 help="HTML file to write."),
        lang: str = typer.Option("en", "--lang", help="Benchmark language: en or da."),
        vectors: list[str] = typer.Option([], "--vectors", help="Word vectors for WEAT "
                                          "(glove-6b-50d or a file); repeatable."),
        encoder: list[str] = typer.Option([], "--encoder", help="Sentence encoder for SEAT "
                                          "(all-minilm-l6-v2, folder or Hub id); repeatable."),
        classifier: list[str] = typer.Option([], "--classifier", help="Classifier SPEC for "
                                             "the flip test (see `genderscope run "
                                             "counterfactual --help`); needs --texts. "
                                             ".pkl/.joblib, module:name and file.py:name "
                                             "SPECs run code: trust them first."),
        texts: Path | None = typer.Option(None, "--texts", help="Texts for classifier "
                                          "measures (.txt or .csv/.tsv)."),
        measure: list[str] = typer.Option([], "--measure", help="Only these measures "
                                          "(repeatable); default: all that apply."),
        quick: bool = typer.Option(False, "--quick", help="Small subsets (~30-40 items per "
                                   "measure): a fast smoke test with wide CIs."),
        full: bool | None = typer.Option(None, "--full/--subsets", help="Every benchmark in "
                                         "full, or the seeded CPU-sized subsets [default: "
                                         "full on a GPU, subsets on a CPU]."),
        reuse: bool = typer.Option(True, "--reuse/--no-reuse", help="Reuse stored runs with "
                                   "the same model, parameters and data."),
        kind: str = typer.Option("auto", "--kind", help="LM kind: auto, masked or causal."),
        start_token: str = typer.Option("auto", "--start-token", help="Causal LM start "
                                        "token: auto, none or a token string (refused "
                                        "when no --model is causal)."),
        data: Path | None = typer.Option(None, "--data", help="Folder holding the benchmark data "
                                         "sets (<name>/ folders) [default: "
                                         "$GENDERSCOPE_DATA, else the packaged or "
                                         "fetched sets]."),
        seed: int = typer.Option(0, "--seed", help="Seed of subsets, bootstrap and "
                                 "permutations."),
        device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION,
        store_path: Path | None = STORE_OPTION,
        progress: bool = typer.Option(True, "--progress/--no-progress", help="Print the "
                                      "scope line and one line per measure as it runs."),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --out "
                                       "file."),
        base_url: str | None = BASE_URL_OPTION,
        concurrency: int | None = CONCURRENCY_OPTION,
        timeout: float | None = TIMEOUT_OPTION, retries: int | None = RETRIES_OPTION,
        api_key_env: str | None = API_KEY_ENV_OPTION,
        header: list[str] | None = HEADER_OPTION,
        **decoding: Any,
    ) -> None:
        """One HTML page with every measure that applies to the given model(s).

        Stored runs with the same model, parameters and data are reused (no forward
        pass); default subsets are listed in docs/report.md. An endpoint model
        (--model openai:NAME --base-url URL) gets the chat section: the GenderBench
        probes with their marks.
        """
        t0 = time.perf_counter()
        if out.exists() and not out.is_dir() and not overwrite:
            # refused before anything is imported, loaded or printed (the other checks of
            # --out follow in api.report, still before any model loads)
            raise GenderscopeError(f"--out {out} already exists; pass --overwrite to "
                                   "replace it")
        from genderscope.api import report
        from genderscope.reporting.registry import select
        from genderscope.reporting.runner import NEEDS_DATA, choose_scope
        from genderscope.reporting.terminal import SCOPE_WORDS, headline_rows, print_rows
        from genderscope.reporting.verdict import model_line

        select(measure)  # an unknown --measure: before the model's options are read
        client = endpoint_client(concurrency, timeout, retries, api_key_env, header)
        command = command_line()  # the key and a URL's credentials masked
        scope = choose_scope(device, full=full, quick=quick)
        planned = {"runs": 0, "started": 0}

        def data_known(check) -> None:  # every input checked: the first thing printed
            if progress:
                console.print(f"[dim]{SCOPE_WORDS[scope]}[/dim]")
            planned["runs"] = check.runs
            console.print(check.line())

        def started(m, s) -> None:
            planned["started"] += 1
            if progress:
                of = f"[{planned['started']}/{planned['runs']}] " if planned["runs"] else ""
                console.print(f"[dim]{of}{s.label}: {m.name} …[/dim]")

        def done(sec) -> None:
            if sec.status == "ok":
                mark = "[green]ok[/green]" + (" (reused)" if sec.reused else "")
            elif sec.status == "failed":
                mark = f"[red]failed[/red]: {sec.reason}"
            elif sec.status == NEEDS_DATA:
                mark = f"[yellow]{NEEDS_DATA}[/yellow]: {sec.reason}"
            else:
                mark = f"[yellow]not applicable[/yellow]: {sec.reason}"
            console.print(f"{sec.subject.label}: {sec.measure.name} {mark} "
                          f"[dim]{sec.seconds:.1f} s[/dim]")

        data_ = report(model, out, vectors=vectors, encoders=encoder, classifiers=classifier,
                       texts=texts, measures=measure, lang=lang, quick=scope == "quick",
                       full=scope == "full", reuse=reuse, kind=kind, start_token=start_token,
                       data=data, seed=seed, device=device, dtype=dtype, store=store_path,
                       overwrite=overwrite,
                       progress=progress, command=command, on_start=started,
                       on_section=done, on_data=data_known,
                       base_url=base_url, **client,
                       **{k: v for k, v in decoding.items() if v is not None})
        rows = headline_rows(data_)
        print_rows(console, rows, title=f"Headline numbers ({time.perf_counter() - t0:.0f} s)")
        if any("GenderBench mark" in r["reading"] for r in rows):  # explained where shown
            from genderscope.measures.genderbench import MARKS_LEGEND

            console.print(f"GenderBench mark: {MARKS_LEGEND}")
        for subject in data_.subjects:  # the page's verdict, one line per model
            console.print(f"[bold]{subject.label}[/bold]: {model_line(data_, subject)}")
        console.print(SCOPE_WORDS[scope])
        n_failed = sum(s.status == "failed" for s in data_.sections)
        console.print(f"report written to {out}"
                      + (f" ([red]{plural(n_failed, 'measure')} failed[/red]; see the page)"
                         if n_failed else ""))
        unfetched = sorted({str(s.dataset) for s in data_.sections if s.status == NEEDS_DATA})
        if unfetched:  # said once, not once per measure
            n = sum(s.status == NEEDS_DATA for s in data_.sections)
            console.print(f"[yellow]{plural(n, 'measure')} could not run: data set(s) "
                          f"{', '.join(unfetched)} could not be fetched[/yellow]; run "
                          f"`genderscope data fetch {' '.join(unfetched)}` where their source "
                          "is reachable, then rerun this command (finished runs are reused)")
        if n_failed:  # the page is written, but scripts should see that something failed
            raise typer.Exit(1)
        if unfetched:  # complete but for data it could not fetch
            raise typer.Exit(3)
