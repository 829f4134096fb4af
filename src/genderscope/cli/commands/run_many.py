"""``genderscope run-many``: word-vector models x queries x metrics into one table, with
rankings and rank correlations (WEFE's ``run_queries``, ``create_ranking``,
``calculate_ranking_correlations``; :mod:`genderscope.sweep.many`).

Writes to ``--out`` (default ``genderscope-results/run-many``): ``results.csv`` (one
row per model, query, metric and attribute set: value, 95 % CI, p-value, run id),
``scores.csv`` (one aggregated score per model and metric), ``rankings.csv``,
``correlations.csv`` (each pair of metrics: correlation, p-value) and the figures
``results-<metric>.png``, ``ranking.png`` and ``correlations.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from genderscope.checks import COUNT_MAX, SEED_MAX
from genderscope.cli.common import (
    JSON_OPTION,
    PROGRESS_OPTION,
    STORE_OPTION,
    ci_text,
    console,
    err_console,
    new_table,
)
from genderscope.errors import GenderscopeError

FILES = ("results.csv", "scores.csv", "rankings.csv", "correlations.csv", "ranking.png",
         "correlations.png")


def _queries(query: list[Path], test: list[str], tests_dir: Path | None) -> list[Any]:
    from genderscope.cli.commands.embeddings import _expand
    from genderscope.datasets.query import load_query

    out: list[Any] = [load_query(q) for q in query]
    if test:
        out.extend(_expand(test, tests_dir))
    if not out:
        raise GenderscopeError("give at least one --query FILE or --test NAME")
    return out


def weat_option(name: str) -> Any:
    """The flag of WEAT's declared option ``name`` for every metric that takes it: WEAT's
    help and default, so the two cannot drift (the command checks its value by the same
    declared option)."""
    from genderscope.cli.declared import option_help
    from genderscope.core.registry import get

    option = get("weat").options[name]
    return typer.Option(None, option.flag, help=f"{option_help(option)} For every metric "
                        f"that takes it [default: {option.default}].")


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @app.command("run-many")
    def run_many_command(
        vectors: list[str] = typer.Option(..., "--vectors", help="Word vectors (packaged "
                                          "name or file), or LABEL=SPEC; repeat for "
                                          "several models."),
        query: list[Path] = typer.Option([], "--query", help="Query file (JSON or YAML: "
                                         "named target and attribute sets); repeat."),
        test: list[str] = typer.Option([], "--test", help="WEAT/SEAT test name, glob or "
                                       "file, as a query; repeat."),
        tests_dir: Path | None = typer.Option(None, "--tests-dir",
                                              envvar="GENDERSCOPE_SEAT_DIR",
                                              help="Folder of <name>.jsonl test files."),
        metric: list[str] = typer.Option(["weat", "ripa", "rnd", "ect", "mac", "rnsb"],
                                         "--metric", help="weat, ripa, rnd, ect, mac or "
                                         "rnsb; repeat."),
        seed: int = typer.Option(0, "--seed", help="Seed of every metric's randomness.", min=0,
                                 max=SEED_MAX),
        resamples: int | None = typer.Option(None, "--resamples", min=100,
                                             max=COUNT_MAX["resamples"],
                                             help="Bootstrap replicates [each metric's "
                                             "default]."),
        max_oov: float | None = typer.Option(None, "--max-oov", min=0.0, max=1.0,
                                             help="Largest share of a set that may be out "
                                             "of vocabulary, for every metric (WEFE's "
                                             "lost_vocabulary_threshold) [default: each "
                                             "metric's, 0.2]."),
        case: str | None = weat_option("case"),
        strip_accents: str | None = weat_option("strip_accents"),
        effect_size: str | None = weat_option("effect_size"),
        aggregate: str = typer.Option("abs_avg", "--aggregate", help="Score of a model per "
                                      "metric over the queries: abs_avg, avg, sum, abs_sum."),
        rank_method: str = typer.Option("first", "--rank-method", help="Ties: first, "
                                        "average, min, max, dense (as WEFE)."),
        descending: bool = typer.Option(False, "--descending", help="Rank 1 = the highest "
                                        "score, for every metric (WEFE's ascending=False)."),
        reverse: list[str] = typer.Option([], "--reverse", help="Rank this metric from its "
                                          "highest score (ECT: 1 is no bias); repeat."),
        correlation: str = typer.Option("spearman", "--correlation",
                                        help="spearman or kendall."),
        out: Path | None = typer.Option(None, "--out", help="Output folder [default: "
                                        "genderscope-results/run-many]."),
        store_path: Path | None = STORE_OPTION,
        as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
    ) -> None:
        """Models x queries x metrics into one table with 95 % CIs, then each model's rank
        per metric and the metrics' rank correlations (WEFE's workflow)."""
        from genderscope.engine import declared
        from genderscope.outputs import check_output_folder, command_inputs
        from genderscope.stats.rankings import (
            AGGREGATIONS,
            CORRELATIONS,
            RANK_METHODS,
            correlation_tests,
            create_ranking,
            ranking_correlations,
        )
        from genderscope.sweep.many import METRICS, run_many, score_table

        for name, value, choices in (("--aggregate", aggregate, AGGREGATIONS),
                                     ("--rank-method", rank_method, RANK_METHODS),
                                     ("--correlation", correlation, CORRELATIONS)):
            if value not in choices:
                raise GenderscopeError(f"{name} must be one of {', '.join(choices)}, "
                                       f"got {value!r}")
        weat = declared("weat").options  # WEFE's look-up and d, checked as WEAT declares them
        look_up = {name: weat[name].check(value) for name, value in
                   (("case", case), ("strip_accents", strip_accents),
                    ("effect_size", effect_size)) if value is not None}
        bad = [m for m in metric if m not in METRICS]
        if bad:
            raise GenderscopeError(f"--metric must be one of {', '.join(METRICS)}, got "
                                   f"{bad[0]!r}")
        models: dict[str, str] = {}
        for v in vectors:
            label, _, spec = v.partition("=") if "=" in v and not Path(v).exists() \
                else (v, "", v)
            if label in models:
                raise GenderscopeError(f"--vectors {label!r} is given twice")
            models[label] = spec
        base = out if out is not None else Path("genderscope-results") / "run-many"
        check_output_folder(base, inputs=command_inputs(  # test files and the store too
            models=models.values(), paths=[*query, *test, tests_dir or ""], store=store_path),
                            files=(*FILES, *(f"results-{m}.png" for m in metric)))
        queries = _queries(query, test, tests_dir)
        options: dict[str, dict[str, Any]] = {"*": {"seed": seed}}
        if resamples is not None:
            options["*"]["resamples"] = resamples
        if max_oov is not None:  # the OOV refusal says "raise --max-oov to accept"
            options["*"]["max_oov"] = max_oov
        options["*"].update(look_up)
        table = run_many(models, queries, list(dict.fromkeys(metric)), store=store_path,
                         options=options, progress=progress)
        scores = score_table(table, aggregate)
        order: bool | dict[str, bool] = not descending
        if reverse:
            order = {m: descending for m in reverse}
            order.update({m: not descending for m in scores.columns if m not in reverse})
        errors = table[table["error"] != ""]
        for (q, m, e), part in errors.groupby(["query", "metric", "error"], sort=False):
            who = ("every model" if part["model"].nunique() == len(models)
                   else ", ".join(part["model"]))
            err_console.print(f"[yellow]{q} · {m} ({who}): {e}[/yellow]")
        if len(errors) == len(table):  # nothing to rank: refused before anything is written
            raise GenderscopeError("every run failed (see the lines above)")
        rankings = create_ranking(scores, rank_method, ascending=order)
        tests = correlation_tests(rankings, correlation)
        corr = ranking_correlations(rankings, correlation)
        _write(base, table, scores, rankings, tests, corr)
        if as_json:
            import json

            console.print_json(json.dumps({
                "results": table.to_dict("records"), "scores": scores.to_dict(),
                "rankings": rankings.to_dict(), "correlations": tests.to_dict("records")},
                default=str, allow_nan=True).replace("NaN", "null"))
        else:
            _print(table, rankings, tests, correlation)
            console.print(f"saved to {base}")


def _write(base: Path, table: Any, scores: Any, rankings: Any, tests: Any, corr: Any
           ) -> None:
    """The tables and figures, all or nothing."""
    from genderscope.outputs import mark_folder, write_files
    from genderscope.reporting import ranking_plots as rp

    writers: dict[Path, Any] = {
        base / "results.csv": lambda p: table.to_csv(p, index=False),
        base / "scores.csv": lambda p: scores.to_csv(p, index_label="model"),
        base / "rankings.csv": lambda p: rankings.to_csv(p, index_label="model"),
        base / "correlations.csv": lambda p: tests.to_csv(p, index=False),
        base / "ranking.png": lambda p: rp.save(rp.plot_ranking(rankings), p, "png"),
        base / "correlations.png": lambda p: rp.save(rp.plot_ranking_correlations(corr), p,
                                                     "png"),
    }
    for m in dict.fromkeys(table["metric"]):
        writers[base / f"results-{m}.png"] = (
            lambda p, m=m: rp.save(rp.plot_results(table, m), p, "png"))
    base.mkdir(parents=True, exist_ok=True)
    write_files(writers)
    mark_folder(base, [p.name for p in writers])


def _print(table: Any, rankings: Any, tests: Any, correlation: str) -> None:
    t = new_table("run-many: value [95% CI] per model, query, metric",
                  ("model", "query", "metric", "set", "value [95% CI]", "p"), labels=4)
    for r in table[table["error"] == ""].itertuples(index=False):
        p = r.p_value
        t.add_row(str(r.model), str(r.query), str(r.metric), str(r.attribute or ""),
                  ci_text({"estimate": r.value, "ci_low": r.ci_low, "ci_high": r.ci_high}),
                  f"{p:.2g}" if isinstance(p, float) and p == p else "")
    console.print(t)
    rt = new_table("rank of each model per metric (1 = lowest score unless reversed)",
                   ("model", *map(str, rankings.columns)), labels=1)
    for model, row in rankings.iterrows():
        rt.add_row(str(model), *("" if v != v else f"{v:g}" for v in row))
    console.print(rt)
    if len(tests):
        ct = new_table(f"rank correlations ({correlation})",
                       ("metric", "metric ", correlation, "p", "models"))
        for r in tests.itertuples(index=False):
            v, p = getattr(r, correlation), r.p_value
            ct.add_row(str(r.a), str(r.b), "" if v != v else f"{v:.3f}",
                       "" if p != p else f"{p:.2g}", str(r.n_models))
        console.print(ct)
