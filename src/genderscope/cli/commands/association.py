"""Template and association measures: the ``genderscope run bec-pro`` command (Bartl et
al. 2020; it also draws the association figure), and the terminal tables of BEC-Pro and
``genderscope run lpbs`` (Kurita et al. 2019; its command is made from its declaration).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from genderscope.cli.common import (
    DEVICE_OPTION,
    DTYPE_OPTION,
    JSON_OPTION,
    KIND_OPTION,
    MODEL_OPTION,
    OUT_OPTION,
    PROGRESS_OPTION,
    STORE_OPTION,
    command_line,
    console,
    fmt,
    new_table,
    p_text,
    run_note,
    run_output,
)
from genderscope.results import to_json
from genderscope.text_blocks import plural


def _bec_pro_plots(result: Any, path: Path) -> list[str]:
    """The association figure (.png, .svg) at ``path``; a reused run whose output
    folder already held it draws nothing (and imports no plotting or pandas)."""
    done = [path.with_suffix(".png"), path.with_suffix(".svg")]
    if result.metadata.get("out_unchanged") and all(p.is_file() for p in done):
        return [str(p) for p in done]
    from genderscope.measures import bec_pro_plot as measure

    return [str(p) for p in measure.plot(result, path)]


def _difference_line(d: dict[str, Any] | None) -> str:
    """The headline, male − female person words (nats), with its 95 % CI, or why it has
    none (the summary's ``no_interval``, else how few units the CI would resample)."""
    if not d:
        return "male − female person words: n/a (not in this run's summary)"
    text = f"male − female person words (nats): {fmt(d.get('estimate'), missing='n/a')}"
    if fmt(d.get("ci_low"), missing="") and fmt(d.get("ci_high"), missing=""):
        return f"{text} [{fmt(d['ci_low'])}, {fmt(d['ci_high'])}], 95% CI resampling " \
               f"{d.get('ci_unit') or 'professions'}"
    why = d.get("no_interval") or (f"too few units, {d['n_units']} "
                                   f"{d.get('ci_unit') or 'units'}"
                                   if d.get("n_units") is not None else "not estimable")
    return f"{text} (no CI: {why})"


def _r_text(t: dict[str, Any]) -> str:
    """The effect size r, or n/a with why there is none (no test run: the test's words)."""
    r = fmt(t.get("effect_size_r"), small="e", missing="")
    if r:
        return r
    tested = p_text(t.get("p_value")) != "–"
    return f"n/a ({'not estimable' if tested else t.get('test') or 'no test'})"


def bec_pro_tables(result: Any) -> list[Any]:
    """The headline male − female with its CI, the association per profession group and
    person gender, and the male vs female tests per group."""
    n_rows = result.metadata["data"]["n_rows"]
    table = new_table(f"BEC-Pro association (nats), {plural(n_rows, 'row')}, "
                      f"{result.metadata['params']['model_kind']} LM",
                      ("professions", "person words", "n", "mean [95% CI]"), labels=2)
    for group, by_gender in result.summary["association_by_group"].items():
        for gender, g in by_gender.items():
            bounds = [fmt(g.get(k), small="e", missing="") for k in ("ci_low", "ci_high")]
            table.add_row(group, gender, str(int(g["n"])),
                          f"{fmt(g['estimate'], small='e', missing='n/a')} "
                          + (f"[{bounds[0]}, {bounds[1]}]" if all(bounds) else
                             f"(no CI: {plural(int(g['n']), 'row')})"))
    tests = new_table("Male vs female person words per profession group (paired over "
                      "professions; Holm across groups)",
                      ("professions", "n professions", "pairs", "test", "p", "p Holm",
                       "effect size r"))
    for group, t in result.summary["male_vs_female"].items():
        tests.add_row(group, str(int(t["n_professions"])), str(int(t["n_pairs"])),
                      str(t["test"]), p_text(t["p_value"]), p_text(t.get("p_adjusted")),
                      _r_text(t))
    return [_difference_line(result.summary.get("male_minus_female")), table, tests]


def lpbs_tables(result: Any) -> list[Any]:
    """The LPBS test over all templates and per template, and how to read d."""
    s = result.summary
    table = new_table(f"LPBS {result.metadata['data']['test']}: {s['x']} vs {s['y']} "
                      f"({plural(s['n_templates'], 'template')}, "
                      f"{plural(s['n_items'], 'item')})",
                      ("templates", "d", "p one-sided", "p two-sided", f"mean {s['x']}",
                       f"mean {s['y']}"), labels=1)
    perm = s["permutation"]
    table.add_row("all (word means)" if s.get("test_unit") == "words" else
                  "all (pooled items)", fmt(s["effect_size"], 2, small="e"),
                  p_text(s["p_one_sided"]), p_text(s["p_two_sided"]),
                  fmt(perm["mean_x"], small="e"), fmt(perm["mean_y"], small="e"))
    for _, r in result.tables["by_template"].iterrows():
        table.add_row(f"{r.template} ({r.male}/{r.female})",
                      fmt(r.effect_size, 2, small="e"),
                      p_text(r.p_one_sided), p_text(r.p_two_sided), fmt(r.mean_x, small="e"),
                      fmt(r.mean_y, small="e"))
    return [table, f"d > 0: {s['x']} words raise male vs female fill more than {s['y']} "
                   "words (prior-corrected)."]


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    from genderscope.cli.declared import with_declared_options

    @run_app.command("bec-pro")
    @with_declared_options("bec-pro")  # --lang, --professions, ... as BEC-Pro declares them
    def bec_pro_cmd(
        model: str = MODEL_OPTION,
        kind: str = KIND_OPTION,
        plot: bool = typer.Option(True, "--plot/--no-plot", help="Write association.png/.svg."),
        device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION,
        out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION,
        as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION,
        **options: Any,
    ) -> None:
        """BEC-Pro association of person words and professions (Bartl et al. 2020, eq. 1)."""
        from genderscope.cli.common import run_measure as run

        result = run("bec-pro", model, store=store_path, out=out, save=True,
                     progress=progress, kind=kind, device=device, dtype=dtype,
                     command=command_line(), **options)
        run_id, base = result.metadata["run_id"], Path(result.metadata["out"])
        plots = _bec_pro_plots(result, base / "association") if plot else []
        if as_json:
            console.print_json(to_json({"run_id": run_id, "reused": bool(result.metadata.get(
                "reused")), "summary": result.summary,
                                        "plots": plots}))
            return
        for t in run_output(result, bec_pro_tables):
            console.print(t)
        console.print(run_note(result, base) + (f"; plot {plots[0]}" if plots else ""))
