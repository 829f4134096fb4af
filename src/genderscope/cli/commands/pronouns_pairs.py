"""Pronoun, grammaticality and sentence-pair commands:
``genderscope run winobias | dawinobias | abc | crows-pairs | stereoset``.

Each loads the data set (``--data``, else ``$GENDERSCOPE_DATA/<folder>``, else
``./shared/data/<folder>`` or ``../shared/data/<folder>``), scores it with a
masked or causal LM, saves ``items.csv`` + ``summary.json`` (+ tables) under
``--out``, records the run in the store and prints a summary table. Scores are
cached in the store batch by batch, so a killed run resumes where it stopped
when the same command is run again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from genderscope.cli.common import (
    DEVICE_OPTION,
    DTYPE_OPTION,
    JSON_OPTION,
    OUT_OPTION,
    STORE_OPTION,
    command_line,
    console,
    run_note,
)
from genderscope.results import Result, to_json

MODEL_OPTION = typer.Option(..., "--model", help="HF id, local folder, .gguf file, or a "
                            "packaged model name (smollm2, gemma3-270m).")
KIND_OPTION = typer.Option("auto", "--kind", help="auto, masked or causal.")
DATA_OPTION = typer.Option(None, "--data", help="Data folder (CrowS-Pairs and StereoSet: "
                           "also the file) [default: $GENDERSCOPE_DATA/<dataset>].")
LIMIT_OPTION = typer.Option(None, "--limit", min=1, help="Score a seeded random subset of N "
                            "items (see --subset-seed).")
SUBSET_SEED_OPTION = typer.Option(0, "--subset-seed", help="Seed of the --limit subset.")
SEED_OPTION = typer.Option(0, "--seed", help="Seed of the bootstrap.")
RESAMPLES_OPTION = typer.Option(10_000, "--resamples", min=100, help="Bootstrap resamples.")
PROGRESS_OPTION = typer.Option(True, "--progress/--no-progress", help="Show a progress bar.")
START_OPTION = typer.Option("auto", "--start-token", help="Causal LM start-of-text token: "
                            "auto (BOS, else EOS), none, or a token string.")


def _fmt(x: Any, nd: int = 3) -> str:
    try:
        return f"{float(x):.{nd}f}"
    except (TypeError, ValueError):
        return str(x)


def _ci(d: dict[str, Any] | None, nd: int = 3) -> str:
    if not d:
        return "-"
    return f"{_fmt(d.get('estimate'), nd)} [{_fmt(d.get('ci_low'), nd)}, " \
           f"{_fmt(d.get('ci_high'), nd)}]"


def _execute(measure: str, model: str, kind: str, start_token: str, device: str | None,
             dtype: str, store_path: Path | None, out: Path | None, progress: bool,
             **options: Any) -> tuple[Result, str, Path]:
    """``genderscope.run`` with the command line recorded; (result, run id, folder)."""
    from genderscope.cli.common import run_measure as run

    result = run(measure, model, store=store_path, out=out, save=True, progress=progress,
                 kind=kind, device=device, dtype=dtype, start_token=start_token,
                 command=command_line(), **options)
    return result, result.metadata["run_id"], Path(result.metadata["out"])


def _finish(result: Result, run_id: str, base: Path, as_json: bool,
            table: Callable[[Result], list[Table]]) -> None:
    if as_json:
        console.print_json(to_json({"run_id": run_id, "reused": bool(result.metadata.get(
            "reused")), "summary": result.summary}))
        return
    for t in table(result):
        console.print(t)
    console.print(run_note(result, base))


def _wino_tables(result: Result) -> list[Table]:
    s = result.summary
    t = Table(title=f"{result.method}: pronoun prediction, {s['n_items']} sentences "
                    f"({s['n_excluded_multi_pronoun']} multi-pronoun excluded)")
    t.add_column("measure")
    t.add_column("estimate [95% CI]", justify="right")
    for key, label in (("main_effect", "main effect log2(acc pro / acc anti)"),
                       ("main_effect_macro_f1", "log2(macro-F1 pro / anti)"),
                       ("accuracy_pro", "accuracy pro"), ("accuracy_anti", "accuracy anti"),
                       ("macro_f1_pro", "macro-F1 pro"), ("macro_f1_anti", "macro-F1 anti"),
                       ("difference_pro_minus_anti", "accuracy pro - anti"),
                       ("share_male_predictions", "share of male predictions")):
        t.add_row(label, _ci(s.get(key)))
    n = Table(title="Nuance: by pronoun gender")
    for col in ("condition", "pronoun", "n", "accuracy [95% CI]", "F1"):
        n.add_column(col)
    for _, r in result.tables["nuance"].iterrows():
        n.add_row(r.condition, r.pronoun_gender, str(int(r.n)),
                  f"{_fmt(r.accuracy)} [{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]", _fmt(r.f1))
    return [t, n]


def _abc_tables(result: Result) -> list[Table]:
    s = result.summary
    t = Table(title=f"ABC: {s['n_groups']} groups ({s['n_invalid_skipped']} malformed skipped)")
    t.add_column("measure")
    t.add_column("estimate [95% CI]", justify="right")
    t.add_row("main effect log2(median rel. ppl F / M)", _ci(s["main_effect"]))
    t.add_row("  same, common token count (length-robust)", _ci(s["main_effect_common_length"]))
    for st in ("female", "male"):
        if f"main_effect_{st}_occupations" in s:
            t.add_row(f"  {st}-stereotyped occupations", _ci(s[f"main_effect_{st}_occupations"]))
    t.add_row("mean ll(male) - ll(female), nats", _ci(s["mean_ll_male_minus_female"]))
    t.add_row("reflexive preferred (total ll)", _ci(s["reflexive_preferred_ll"]))
    t.add_row("reflexive preferred (perplexity)", _ci(s["reflexive_preferred_ppl"]))
    n = Table(title="Nuance: occupation stereotype x pronoun")
    for col in ("occupations", "pronoun", "n", "median rel. ppl (IQR)", "median Δll",
                "reflexive preferred"):
        n.add_column(col)
    for _, r in result.tables["nuance"].iterrows():
        n.add_row(str(r.stereotype), r.pronoun, str(int(r.n)),
                  f"{_fmt(r.median_rel_ppl)} ({_fmt(r.q1)}, {_fmt(r.q3)})",
                  _fmt(r.median_delta_ll), _fmt(r.reflexive_preferred_share))
    return [t, n]


def _crows_tables(result: Result) -> list[Table]:
    s = result.summary
    t = Table(title=f"CrowS-Pairs: % pairs where the stereotypical sentence is preferred "
                    f"({s['n_pairs']} pairs, {s['n_ties']} ties)")
    for col in ("bias type", "n", "% stereotypical [95% CI]"):
        t.add_column(col, justify="left" if col == "bias type" else "right")
    t.add_row("[bold]all[/bold]", str(s["n_pairs"]), _ci(s["percent_stereotypical"], 1))
    # from the summary, not the by_bias_type table: printing a stored run then needs
    # neither pandas nor pyarrow (the table is the same numbers)
    by_type = sorted((s.get("by_bias_type") or {}).items(), key=lambda kv: -kv[1]["n"])
    for bias_type, d in by_type:  # largest first, as the table
        name = f"[bold]{bias_type}[/bold]" if bias_type == "gender" else bias_type
        t.add_row(name, str(int(d["n"])), _ci(d, 1))
    return [t]


def _stereoset_tables(result: Result) -> list[Table]:
    s = result.summary
    t = Table(title="StereoSet intrasentence (ideal: LMS 100, SS 50, ICAT 100)",
              caption="95% CIs over target terms; p: t-test of SS vs 50 over targets, "
                      "Holm over the bias types")
    for col in ("domain", "n", "targets", "LMS [95% CI]", "SS [95% CI]", "ICAT [95% CI]",
                "p (Holm)"):
        t.add_column(col, justify="left" if col == "domain" else "right")
    rows = [("all", s["overall"])] + sorted(s["by_bias_type"].items())
    for name, m in rows:
        label = f"[bold]{name}[/bold]" if name in ("all", "gender") else name
        ss = m["ss"]
        p = "–" if ss.get("p_value") is None else _fmt(ss["p_value"], 3) + (
            f" ({_fmt(ss['p_adjusted'], 3)})" if ss.get("p_adjusted") is not None else "")
        t.add_row(label, str(m["n_items"]), str(m.get("n_targets", "")), _ci(m["lms"], 1),
                  _ci(ss, 1), _ci(m["icat"], 1), p)
    return [t]


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @run_app.command("winobias")
    def winobias_cmd(
        model: str = MODEL_OPTION,
        split: str = typer.Option("test", "--split", help="dev, test or all."),
        types: str = typer.Option("1,2", "--types", help="WinoBias types, e.g. 1 or 1,2."),
        include_multi_pronoun: bool = typer.Option(
            False, "--include-multi-pronoun", help="Keep sentences with a second coreferent "
            "pronoun (it reveals the gender)."),
        data: Path | None = DATA_OPTION, kind: str = KIND_OPTION,
        start_token: str = START_OPTION, limit: int | None = LIMIT_OPTION,
        subset_seed: int = SUBSET_SEED_OPTION, seed: int = SEED_OPTION,
        resamples: int = RESAMPLES_OPTION, device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
    ) -> None:
        """WinoBias (English): pronoun prediction on pro- vs anti-stereotypical sentences."""
        result, run_id, base = _execute(
            "winobias", model, kind, start_token, device, dtype, store_path, out, progress,
            split=split, types=types, include_multi_pronoun=include_multi_pronoun, data=data,
            limit=limit, subset_seed=subset_seed, seed=seed, resamples=resamples)
        _finish(result, run_id, base, as_json, _wino_tables)

    @run_app.command("dawinobias")
    def dawinobias_cmd(
        model: str = MODEL_OPTION,
        split: str = typer.Option("all", "--split", help="dev, test or all (GenDa Lens uses "
                                  "all 674 sentences per condition)."),
        data: Path | None = DATA_OPTION, kind: str = KIND_OPTION,
        start_token: str = START_OPTION, limit: int | None = LIMIT_OPTION,
        subset_seed: int = SUBSET_SEED_OPTION, seed: int = SEED_OPTION,
        resamples: int = RESAMPLES_OPTION, device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
    ) -> None:
        """DaWinoBias (Danish, GenDa Lens): pronoun prediction, pro vs anti."""
        result, run_id, base = _execute(
            "dawinobias", model, kind, start_token, device, dtype, store_path, out, progress,
            split=split, data=data, limit=limit, subset_seed=subset_seed, seed=seed,
            resamples=resamples)
        _finish(result, run_id, base, as_json, _wino_tables)

    @run_app.command("abc")
    def abc_cmd(
        model: str = MODEL_OPTION,
        lang: str = typer.Option("da", "--lang", help="da, sv, ru or zh."),
        source: str = typer.Option("auto", "--source", help="genda-lens (Danish, split by "
                                   "occupation stereotype), abc (original ABC files) or auto "
                                   "(genda-lens for da, abc otherwise)."),
        include_invalid: bool = typer.Option(False, "--include-invalid", help="Also score "
                                             "groups whose sentences break the pattern."),
        valid_only: bool = typer.Option(False, "--valid-only", help="Draw the --limit "
                                        "subset from the well-formed groups only, so "
                                        "--limit N scores N groups (the report's subset); "
                                        "default: from all groups, malformed ones skipped."),
        data: Path | None = DATA_OPTION, kind: str = KIND_OPTION,
        start_token: str = START_OPTION, limit: int | None = LIMIT_OPTION,
        subset_seed: int = SUBSET_SEED_OPTION, seed: int = SEED_OPTION,
        resamples: int = RESAMPLES_OPTION, device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
    ) -> None:
        """ABC anti-reflexive possessives: relative perplexity, female vs male."""
        result, run_id, base = _execute(
            "abc", model, kind, start_token, device, dtype, store_path, out, progress,
            lang=lang, source=source, include_invalid=include_invalid,
            valid_only=valid_only, data=data,
            limit=limit, subset_seed=subset_seed, seed=seed, resamples=resamples)
        _finish(result, run_id, base, as_json, _abc_tables)

    @run_app.command("crows-pairs")
    def crows_cmd(
        model: str = MODEL_OPTION,
        bias_type: str | None = typer.Option(None, "--bias-type", help="Only this bias type "
                                             "(e.g. gender)."),
        data: Path | None = DATA_OPTION, kind: str = KIND_OPTION,
        start_token: str = START_OPTION, limit: int | None = LIMIT_OPTION,
        subset_seed: int = SUBSET_SEED_OPTION, device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
    ) -> None:
        """CrowS-Pairs: % of pairs where the stereotypical sentence is preferred."""
        result, run_id, base = _execute(
            "crows-pairs", model, kind, start_token, device, dtype, store_path, out, progress,
            bias_type=bias_type, data=data, limit=limit, subset_seed=subset_seed)
        _finish(result, run_id, base, as_json, _crows_tables)

    @run_app.command("stereoset")
    def stereoset_cmd(
        model: str = MODEL_OPTION,
        bias_type: str | None = typer.Option(None, "--bias-type", help="Only this domain "
                                             "(gender, profession, race, religion)."),
        split: str = typer.Option("dev", "--split", help="Only the dev split is available in "
                                  "the flattened copy; pass --data for another file."),
        scoring: str = typer.Option(
            "reference", "--scoring",
            help="Masked LMs: 'reference' (the paper's code: mean probability of the "
                 "filler's pieces, left to right, later pieces left out), 'l2r' (same, "
                 "later pieces masked) or 'pll' (mean pseudo-log-likelihood of the "
                 "filler's pieces). Causal LMs: 'bias-bench' reproduces bias-bench's rule "
                 "(start token for the first token only); any other value keeps the start "
                 "token for every token."),
        data: Path | None = DATA_OPTION, kind: str = KIND_OPTION,
        start_token: str = START_OPTION, limit: int | None = LIMIT_OPTION,
        subset_seed: int = SUBSET_SEED_OPTION, seed: int = SEED_OPTION,
        resamples: int = RESAMPLES_OPTION, device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
    ) -> None:
        """StereoSet intrasentence: LMS, SS and ICAT (Nadeem et al. 2021)."""
        result, run_id, base = _execute(
            "stereoset", model, kind, start_token, device, dtype, store_path, out, progress,
            bias_type=bias_type, split=split, scoring=scoring, data=data, limit=limit,
            subset_seed=subset_seed, seed=seed, resamples=resamples)
        _finish(result, run_id, base, as_json, _stereoset_tables)
