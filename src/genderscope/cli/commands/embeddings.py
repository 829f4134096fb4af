"""Embedding and corpus commands: ``genderscope run weat``, ``run seat`` and
``run bias-amplification``.

Tests (``--test``) are WEAT/SEAT JSON files (May et al. 2019 format), given by
path or by name inside ``--tests-dir`` (``$GENDERSCOPE_SEAT_DIR``); a name may be
a glob (``'weat*'``, ``'sent-*'``). Several tests run one after the other; each
gets ``OUT/<test>/`` and a store record, and ``OUT/tests.csv`` holds the table.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from genderscope.cli.common import (
    JSON_OPTION,
    OUT_OPTION,
    PROGRESS_OPTION,
    STORE_OPTION,
    caveat_lines,
    ci_text,
    command_line,
    console,
    default_out,
    err_console,
    new_table,
    open_store,
    share_text,
)
from genderscope.datasets.seat import AssociationTest, default_tests_dir, list_tests, resolve_test
from genderscope.errors import DataError, GenderscopeError
from genderscope.results import Result, to_json

TEST_OPTION = typer.Option(..., "--test", "--query", help="Test name (weat6), glob "
                           "('weat*'), JSON test file, or query file (JSON/YAML: named "
                           "target and attribute sets, docs/measures/wefe_workflow.md); "
                           "repeat for several.")
TESTS_DIR_OPTION = typer.Option(None, "--tests-dir", envvar="GENDERSCOPE_SEAT_DIR",
                                help="Folder of <name>.jsonl test files.")
VECTORS_OPTION = typer.Option("glove-6b-50d", "--vectors",
                              help="Word vectors: glove-6b-50d, or a GloVe/word2vec "
                                   "text, word2vec .bin or .npy file.")
FORMAT_OPTION = typer.Option("auto", "--format", help="auto, glove, word2vec, "
                             "word2vec-binary or numpy.")
VOCAB_OPTION = typer.Option(None, "--vocab", help="Vocabulary of a .npy "
                            "matrix (one word per line).")


def _expand(specs: list[str], tests_dir: Path | None) -> list[AssociationTest]:
    """The tests ``specs`` name; the default folder (a download) is resolved only when
    a spec is a name or pattern, never for test files alone. A query file (JSON/YAML,
    :mod:`genderscope.datasets.query`) gives its Query."""
    from genderscope.datasets.query import is_query_file, load_query

    if tests_dir is not None and not Path(tests_dir).is_dir():
        raise DataError(f"--tests-dir (or $GENDERSCOPE_SEAT_DIR) {tests_dir} is not a folder")
    files = all(Path(spec).is_file() for spec in specs)
    folder = tests_dir or (None if files else default_tests_dir())
    out: list[AssociationTest] = []
    for spec in specs:
        if is_query_file(spec):  # a Query: the catalog turns it into what each metric takes
            out.append(load_query(spec))  # type: ignore[arg-type]
        elif any(ch in spec for ch in "*?[") and not Path(spec).is_file():
            if folder is None or not folder.is_dir():
                raise DataError(f"--test {spec!r} is a pattern; pass --tests-dir")
            names = [n for n in list_tests(folder, "*.json*") if fnmatch.fnmatch(n, spec)]
            if not names:
                raise DataError(f"no test in {folder} matches {spec!r}")
            out.extend(resolve_test(n, folder) for n in names)
        else:
            out.append(resolve_test(spec, folder))
    return out


def _row(result: Result) -> dict[str, object]:
    """One test's row, as stored (``p_holm``: :func:`holm_over_rows`, never stored)."""
    s = result.summary
    c = s["categories"]
    return {"test": s["test"], "X": c["X"], "Y": c["Y"], "A": c["A"], "B": c["B"],
            "n_x": s["sizes"]["X"], "n_y": s["sizes"]["Y"], "n_a": s["sizes"]["A"],
            "n_b": s["sizes"]["B"], "oov": sum(s["n_oov"].values()),
            "d": s["effect_size"]["estimate"], "d_ci_low": s["effect_size"]["ci_low"],
            "d_ci_high": s["effect_size"]["ci_high"], "p": s["p_value"],
            "p_holm": None, "holm_family": "", "exact": s["exact"],
            "n_permutations": s["n_permutations"], "error": ""}


def holm_over_rows(method: str, rows: list[dict[str, object]]) -> None:
    """Set every test row's ``p_holm`` (in place): Holm (1979) over the two-sided p of the
    tests shown together (failed ones aside), and ``holm_family``, naming them. A stored
    run keeps its own p only, so what ran beside it before never changes this."""
    from genderscope.stats.multiplicity import adjust_pvalues

    members = [r for r in rows if not r.get("error")]
    family = f"{method} tests of this command: {', '.join(str(r['test']) for r in members)}"
    raw = [float("nan") if r["p"] is None else float(r["p"]) for r in members]  # type: ignore[arg-type]
    for r, p in zip(members, adjust_pvalues(raw), strict=True):
        r.update(p_holm=float(p), holm_family=family)


def _check_before_work(method: str, out: Path | None, seed: int,
                       tests: list[AssociationTest], inputs: list[object]) -> None:
    """The output folder(s) and the seed, checked before the store opens or a vector is
    read (issue 24: nothing changes on disk when a command is refused)."""
    from genderscope.checks import whole_number
    from genderscope.outputs import check_output_folder

    whole_number(seed, "seed", 0)
    base = default_out(method, out)
    check_output_folder(base, inputs=inputs, files=("summary.json", "items.csv", "tests.csv"))
    if len(tests) > 1:
        for t in tests:
            check_output_folder(base / t.name, inputs=inputs,
                                files=("summary.json", "items.csv"))


def _write_table(path: Path, rows: list[dict[str, object]]) -> None:
    """The tests' rows as CSV (every column any row has; a missing value left empty),
    written with ``csv`` so a rerun of stored runs needs no pandas; a fresh sibling
    renamed into place (:func:`genderscope.outputs.write_file`)."""
    import csv

    from genderscope.outputs import mark_folder, write_file

    columns = list(dict.fromkeys(k for r in rows for k in r))

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, columns, restval="")
            writer.writeheader()
            writer.writerows(rows)

    write_file(path, write)
    mark_folder(path.parent, [path.name])


def tests_tables(method: str, rows: list[dict[str, object]]) -> list[Table | str]:
    """One row per test (:func:`_row`; a failed test's row holds its ``error``), and how
    to read it."""
    table = new_table(f"{method.upper()} (effect size d: Caliskan et al. 2017; two-sided "
                      "permutation p over words)", ("test", "X vs Y", "A vs B", "n", "OOV",
                                                    "d [95% CI]", "p", "p Holm"), labels=3)
    for r in rows:
        if r.get("error"):
            table.add_row(str(r["test"]), "", "", "", "", "[red]error[/red]", "")
            continue
        table.add_row(str(r["test"]), f"{r['X']} vs {r['Y']}", f"{r['A']} vs {r['B']}",
                      f"{r['n_x']}/{r['n_y']}/{r['n_a']}/{r['n_b']}", str(r["oov"]),
                      f"{r['d']:.2f} [{r['d_ci_low']:.2f}, {r['d_ci_high']:.2f}]",
                      f"{r['p']:.2g}" + ("" if r["exact"] else "*"), f"{r['p_holm']:.2g}")
    n = sum(1 for r in rows if not r.get("error"))
    holm = "one test shown, so p Holm = p" if n == 1 else f"Holm over the {n} tests shown"
    return [table, f"n = |X|/|Y|/|A|/|B|; * = p from random permutations (else exact); {holm}"]


def one_test_tables(result: Result) -> list[Table | str]:
    """The table of one WEAT or SEAT run (``genderscope runs show``): a family of one test."""
    holm_over_rows(result.method, rows := [_row(result)])
    return tests_tables(result.method, rows)


def amplification_tables(result: Result) -> list[Table]:
    """Mean bias amplification, its share of objects and the extremes."""
    s = result.summary
    m = s["mean_bias_amplification"]
    table = new_table("Mean bias amplification (Zhao et al. 2017)", ("quantity", "value"),
                      labels=1)
    table.add_row("mean bias amplification [95% CI]", ci_text(m, 4, sign=True))
    for key, label in (("biasamp_t_to_a", "BiasAmp-> task -> gender [95% CI]"),
                       ("biasamp_a_to_t", "BiasAmp-> gender -> task [95% CI]")):
        if key in s:  # Wang & Russakovsky 2021 (a model's answers, or --directional)
            b = s[key]
            table.add_row(label, ci_text(b, 4, sign=True))
    if "n_objects" in s:
        table.add_row("objects (included)", str(s["n_objects"]))
        table.add_row("objects amplified", f"{s['share_amplified']['estimate']:.1%}")
    else:  # a model's answers
        table.add_row("items (with a gendered answer)", f"{s['n_items']} of "
                      f"{s['n_items'] + s['n_items_no_gendered_answer']}")
        table.add_row("answers", f"{s['n_answers']} ({s['n_templates']} templates)")
        for what in ("none", "both"):
            v = s[f"share_{what}"]
            table.add_row(f"answers naming {'no gender' if what == 'none' else 'both'}",
                          share_text(v))
    table.add_row("most amplified", ", ".join(f"{r['object']} ({r['amplification']:+.3f})"
                                              for r in s["most_amplified"][:3]))
    table.add_row("least amplified", ", ".join(f"{r['object']} ({r['amplification']:+.3f})"
                                               for r in s["least_amplified"][:3]))
    return [table]


def run_tests(method: str, tests: list[AssociationTest], run_one, out: Path | None,
              as_json: bool, *, rows_of=lambda r: [_row(r)], tables=None,
              folder_name=lambda t: t.name) -> None:
    """Run ``run_one(test, folder)`` for each test (one folder each when several) and
    write ``tests.csv`` (``rows_of(result)``); a failed test is a row with its error
    when several run. WEAT and SEAT (no ``tables``): Holm over this command's tests in
    the rows only (:func:`holm_over_rows`); the WEFE metrics pass ``tables(method, rows)``."""
    base = default_out(method, out)
    family = tables is None
    rows: list[dict[str, object]] = []
    runs: dict[str, str] = {}
    done: list[tuple[str, Result | None, str]] = []
    for test in tests:
        try:
            folder = base / folder_name(test) if len(tests) > 1 else base
            done.append((test.name, run_one(test, folder), ""))
        except GenderscopeError as exc:
            if len(tests) == 1:
                raise
            done.append((test.name, None, str(exc)))
            err_console.print(f"[yellow]{test.name}: {exc}[/yellow]")
    for name, result, error in done:
        if result is None:
            rows.append({"test": name, "error": error})
            continue
        runs[name] = result.metadata["run_id"]
        rows.extend(rows_of(result))
    if family:  # the tests of this command: Holm over their two-sided p, in the rows only
        holm_over_rows(method, rows)
    base.mkdir(parents=True, exist_ok=True)
    _write_table(base / "tests.csv", rows)
    reused = [name for name, r, _ in done if r is not None and r.metadata.get("reused")]
    if as_json:
        console.print_json(to_json({"runs": runs, "tests": rows,
                                    **({"reused": reused} if family else {})}))
    elif tables is not None:
        for t in tables(method, rows):
            console.print(t)
        console.print(f"saved to {base}; runs {', '.join(runs.values())}")
    else:
        table, note = tests_tables(method, rows)
        console.print(table)
        for name, result, _ in done:  # d's interval outside its calibrated range
            for line in caveat_lines(result.summary if result else {}, name):
                console.print(line)
        console.print(f"{note}; saved to {base}")
        if reused:
            console.print(f"reused stored run {', '.join(runs[n] for n in reused)} (same "
                          "model, options and test; `genderscope run --no-reuse ...` "
                          "recomputes)")
    failed = [name for name, r, _ in done if r is None]
    if failed:  # refused, its rows in tests.csv
        raise GenderscopeError(f"{len(failed)} of {len(tests)} tests failed: "
                               f"{', '.join(failed)} (details in {base / 'tests.csv'})")


def vectors_command(method: str, doc: str, rows_of: Any = None, tables: Any = None) -> Any:
    """``genderscope run METHOD`` for a measure of tests on word vectors (WEAT; the
    WEFE-family metrics give their ``rows_of`` and ``tables``, see :func:`run_tests`):
    the vectors load once, then each ``--test`` runs."""
    from genderscope.cli.declared import with_declared_options

    @with_declared_options(method)  # --permutations, --seed, ... as the measure declares them
    def command(
        vectors: str = VECTORS_OPTION,
        fmt: str = FORMAT_OPTION,
        vocab: Path | None = VOCAB_OPTION,
        test: list[str] = TEST_OPTION,
        tests_dir: Path | None = TESTS_DIR_OPTION,
        out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION,
        as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
        **options: Any,
    ) -> None:
        from genderscope.cli.common import run_measure as run
        from genderscope.models.vectors import load_vectors
        from genderscope.outputs import command_inputs

        tests = _expand(test, tests_dir)
        if method == "weat":  # --phrases and the other declared options: checked already
            _check_before_work("weat", out, options.get("seed", 0), tests, command_inputs(
                models=[vectors], paths=[vocab, tests_dir, *test], store=store_path))
        # with the store's memo, a stored run's rerun never parses the vectors
        with open_store(store_path) as store:
            vecs = load_vectors(vectors, fmt=fmt, vocab=vocab, store=store)
            run_tests(method, tests, lambda t, folder: run(
                method, vecs, store=store, out=folder, command=command_line(), test=t,
                progress=progress and not as_json, **options), out, as_json,
                rows_of=rows_of or (lambda r: [_row(r)]), tables=tables,
                folder_name=lambda t: f"{t.name}-swapped" if options.get("swap_roles")
                else t.name)

    command.__doc__ = doc
    return command


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    from genderscope.cli.declared import with_declared_options
    from genderscope.cli.help import SentenceTestsCommand, WordTestsCommand

    run_app.command("weat", cls=WordTestsCommand)(vectors_command(
        "weat", "WEAT (Caliskan et al. 2017) on static word vectors."))

    @run_app.command("seat", cls=SentenceTestsCommand)
    @with_declared_options("seat")
    def seat_cmd(
        encoder: str | None = typer.Option(None, "--encoder",
                                           help="Sentence encoder: all-minilm-l6-v2 "
                                                "(default), a sentence-transformers folder "
                                                "or Hub id."),
        model: str | None = typer.Option(None, "--model", "-m", help="A masked or causal LM "
                                         "instead (HF id, folder, .gguf, smollm2, or a "
                                         "`debias` folder): SEAT on its mean-pooled last "
                                         "hidden states, as bias-bench."),
        kind: str = typer.Option("auto", "--kind", help="With --model: auto, masked or "
                                 "causal."),
        dtype: str = typer.Option("float32", "--dtype", help="With --model: float32, "
                                  "float16 or bfloat16."),
        test: list[str] = TEST_OPTION,
        tests_dir: Path | None = TESTS_DIR_OPTION,
        batch_size: int = typer.Option(64, "--batch-size", min=1,
                                       help="Sentences per forward pass."),
        device: str | None = typer.Option(None, "--device", help="cpu, cuda or mps "
                                            "[default: cpu for --encoder, the best "
                                            "available for --model]."),
        out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION,
        as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
        **options: Any,
    ) -> None:
        """SEAT (May et al. 2019): WEAT statistics over sentence embeddings (of a sentence
        encoder, or of a language model with --model)."""
        from genderscope.cli.common import run_measure as run
        from genderscope.models.encoder import SentenceEncoder
        from genderscope.outputs import command_inputs

        if encoder is not None and model is not None:
            raise GenderscopeError("give --encoder or --model, not both")
        if kind not in ("auto", "masked", "causal"):
            raise GenderscopeError(f"--kind must be auto, masked or causal, got {kind!r}")
        if dtype != "float32":
            from genderscope.models.source import check_dtype

            check_dtype(dtype)
            if model is None:
                raise GenderscopeError("--dtype is for a language model (--model); a "
                                       "sentence encoder runs in float32")
        tests = _expand(test, tests_dir)
        _check_before_work("seat", out, options.get("seed", 0), tests, command_inputs(
            models=[model or encoder], paths=[tests_dir, *test], store=store_path))
        with open_store(store_path) as store:
            if model is not None:
                from genderscope.models.lm_encoder import LMSentenceEncoder

                enc = LMSentenceEncoder.load(model, kind=kind, device=device, dtype=dtype,
                                             store=store, batch_size=batch_size)
            else:
                enc = SentenceEncoder.load(encoder or "all-minilm-l6-v2", device=device,
                                           batch_size=batch_size, store=store)
            run_tests("seat", tests, lambda t, folder: run(
                "seat", enc, store=store, out=folder, progress=progress and not as_json,
                command=command_line(), test=t, **options), out, as_json)

    @run_app.command("bias-amplification")
    @with_declared_options("bias-amplification")  # --train, --generated, ... as declared
    def amplification_cmd(
        out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION,
        as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
        model: str | None = typer.Option(
            None, "--model", "-m", help="A chat model (HF id, folder, .gguf, smollm2, or "
            "openai:NAME with --base-url): measure its answers instead of caption files."),
        base_url: str | None = typer.Option(
            None, "--base-url", help="OpenAI-compatible endpoint for --model openai:NAME."),
        device: str | None = typer.Option(None, "--device", help="cpu, cuda or mps "
                                            "[default: best available]."),
        **options: Any,
    ) -> None:
        """Mean bias amplification (Zhao et al. 2017) between training data and output:
        two caption corpora, a ratio table, or a chat model's answers (--model)."""
        from genderscope.cli.common import run_measure as run

        if model is not None and any(options.get(k) is not None
                                     for k in ("train", "generated", "ratios")):
            raise GenderscopeError("give --model, or --train and --generated (or --ratios), "
                                   "not both")
        if model is None and all(options.get(k) is None
                                 for k in ("train", "generated", "ratios")):
            raise GenderscopeError("give --train and --generated (or --ratios), or --model")
        open_store(store_path).close()  # a bad store is refused before the work
        extra = {} if model is None else {"base_url": base_url, "device": device}
        result = run("bias-amplification", model, store=store_path, out=out, save=True,
                     progress=progress, command=command_line(), **extra, **options)
        run_id, folder, fig = (result.metadata[k] for k in ("run_id", "out", "figure"))
        s = result.summary
        if as_json:
            console.print_json(to_json({"run_id": run_id, "summary": s}))
            return
        for t in amplification_tables(result):
            console.print(t)
        console.print(f"saved to {folder}, plot {fig} (run {run_id})")
