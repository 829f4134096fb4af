"""``genderscope report``: every applicable measure on one or more models, one HTML page.

Stored runs are reused (same model identity, parameters and data hashes), so a
second report on the same model loads no model and runs no forward pass;
``--no-reuse`` re-runs the measures (their scores still come from the cache).
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import typer
from rich.table import Table

from genderscope.cli.common import DEVICE_OPTION, DTYPE_OPTION, STORE_OPTION, console, open_store
from genderscope.errors import GenderscopeError


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @app.command("report")
    def report_cmd(
        model: list[str] = typer.Option([], "--model", "-m", help="Language model (HF id, "
                                        "folder, .gguf, smollm2, gemma3-270m); repeat to "
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
        reuse: bool = typer.Option(True, "--reuse/--no-reuse", help="Reuse stored runs with "
                                   "the same model, parameters and data."),
        kind: str = typer.Option("auto", "--kind", help="LM kind: auto, masked or causal."),
        start_token: str = typer.Option("auto", "--start-token", help="Causal LM start "
                                        "token: auto, none or a token string."),
        data: Path | None = typer.Option(None, "--data", help="Benchmark data folder; default: "
                                         "$GENDERSCOPE_DATA, ./shared/data or "
                                         "../shared/data."),
        seed: int = typer.Option(0, "--seed", help="Seed of subsets, bootstrap and "
                                 "permutations."),
        device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION,
        store_path: Path | None = STORE_OPTION,
        progress: bool = typer.Option(True, "--progress/--no-progress"),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --out "
                                       "file."),
    ) -> None:
        """One HTML page with every measure that applies to the given model(s).

        Stored runs with the same model, parameters and data are reused (no forward
        pass); default subsets are listed in docs/report.md.
        """
        from genderscope.models.hf import check_dtype
        from genderscope.report import html as page
        from genderscope.report import runner
        from genderscope.report.registry import LANGS, Context

        check_dtype(dtype)  # an unknown --dtype fails here, not once per measure
        if lang not in LANGS:
            raise GenderscopeError(f"--lang must be one of {', '.join(LANGS)}, got {lang!r}")
        if not (model or vectors or encoder or classifier):
            raise GenderscopeError("give at least one --model (or --vectors, --encoder, "
                                   "--classifier)")
        if data is not None and not data.is_dir():
            raise GenderscopeError(f"--data {data}: no such folder")
        if texts is not None and not texts.is_file():
            raise GenderscopeError(f"--texts {texts}: no such file")
        page.check_writable(out, overwrite=overwrite)
        command = "genderscope " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        ctx = Context(lang=lang, quick=quick, seed=seed, data_dir=data, progress=progress,
                      texts=texts)
        store = open_store(store_path)
        t0 = time.perf_counter()
        try:
            subjects = [runner.lm_subject(m, store, kind=kind, device=device, dtype=dtype,
                                          start_token=start_token) for m in model]
            subjects += [runner.vectors_subject(v) for v in vectors]
            subjects += [runner.encoder_subject(e, store, device=device) for e in encoder]
            subjects += [runner.classifier_subject(c) for c in classifier]

            def started(m, s) -> None:
                if progress:
                    console.print(f"[dim]{s.label}: {m.name} …[/dim]")

            def done(sec) -> None:
                if sec.status == "ok":
                    mark = "[green]ok[/green]" + (" (reused)" if sec.reused else "")
                elif sec.status == "failed":
                    mark = f"[red]failed[/red]: {sec.reason}"
                else:
                    mark = f"[yellow]not applicable[/yellow]: {sec.reason}"
                console.print(f"{sec.subject.label}: {sec.measure.name} {mark} "
                              f"[dim]{sec.seconds:.1f} s[/dim]")

            data_ = runner.run_report(subjects, ctx, store, names=measure or None,
                                      reuse=reuse, command=command, on_section=done,
                                      on_start=started)
            path = page.write(data_, out)
        finally:
            store.close()
        table = Table(title=f"Headline numbers ({time.perf_counter() - t0:.0f} s)")
        for col in ("model", "measure", "number", "estimate [95% CI]", "reading", "time"):
            table.add_column(col, overflow="fold", justify="right" if col == "time" else "left")
        from genderscope.report.compare import cell

        for sec in data_.sections:
            took = f"{sec.seconds:.1f} s" + (" reused" if sec.reused else "")
            if sec.status != "ok":
                table.add_row(sec.subject.label, sec.measure.name, "", sec.status, sec.reason,
                              took)
                continue
            for h in sec.headlines[:1]:
                table.add_row(sec.subject.label, sec.measure.name, h.label.strip(), cell(h),
                              h.reading(), took)
        console.print(table)
        n_failed = sum(s.status == "failed" for s in data_.sections)
        console.print(f"report written to {path}"
                      + (f" ([red]{n_failed} measure(s) failed[/red]; see the page)"
                         if n_failed else ""))
        if n_failed:  # the page is written, but scripts should see that something failed
            raise typer.Exit(1)
