"""``genderscope probe``: Kurita et al.'s bias score for targets in one template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from genderscope.cli.common import (
    DEVICE_OPTION,
    DTYPE_OPTION,
    JSON_OPTION,
    STORE_OPTION,
    ci_text,
    console,
    fmt,
    new_table,
    open_store,
)


def probe_tables(result: Any, model: str | None = None) -> list[Any]:
    """Each target's fill, prior, prior-corrected and target-fill bias, and how to read
    them (``model``: the name typed, else the one recorded)."""
    p, kind = result.metadata.get("params", {}), result.metadata.get("model", {}).get("kind")
    if model is None:
        from genderscope.reporting.export import model_name

        model = model_name(result.metadata) or "?"
    table = new_table(f"{p.get('template')}  ({p.get('male')} vs {p.get('female')}; "
                      f"{kind} LM {model})", ("target", "fill bias", "prior", "corrected",
                                              "target-fill"), labels=1, title_justify="left")
    for _, r in result.items.iterrows():
        table.add_row(str(r["target"]), f"{r['fill_bias']:+.3f}", f"{r['prior_bias']:+.3f}",
                      f"{r['corrected_bias']:+.3f}", f"{r['target_fill_bias']:+.3f}")
    table.add_section()
    table.add_row("mean [95% CI]", *(_mean_text(result.summary.get(c)) for c in COLUMNS))
    method = (result.summary.get("fill_bias") or {}).get("method") or "interval"
    return [table, f"nats; > 0 leans '{p.get('male')}', < 0 leans '{p.get('female')}'; the "
                   f"mean's CI is over targets ({method})."]


COLUMNS = ("fill_bias", "prior_bias", "corrected_bias", "target_fill_bias")
"""The summary's four means, in the table's column order."""


def _mean_text(d: dict[str, Any] | None) -> str:
    """``-0.574 [-2.994, +1.847]``: a mean over targets with its CI, or the mean and why
    it has none (the summary's ``no_interval``; one target: nothing to resample)."""
    if not d:
        return "n/a"
    one = (d.get("n") or 0) < 2  # one target: its stored interval is the point itself
    if not one and fmt(d.get("ci_low"), missing="") and fmt(d.get("ci_high"), missing=""):
        return ci_text(d, sign=True)
    why = d.get("no_interval") or ("one target" if one else "not estimable")
    return f"{fmt(d.get('estimate'), sign=True, missing='n/a')} (no CI: {why})"


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    @app.command("probe")
    def probe_cmd(
        targets: list[str] = typer.Argument(..., help="Target words or phrases (XXX)."),
        model: str = typer.Option("bert-base-uncased", "--model", "-m",
                                  help="Hub id, local folder, .gguf file, or a packaged "
                                       "offline model: smollm2, gemma3-270m."),
        template: str = typer.Option("GGG is a XXX.", "--template", "-t",
                                     help="Sentence with a gender slot GGG and a target slot "
                                          "XXX."),
        pair: str = typer.Option("he,she", "--pair", "-p",
                                 help="Male and female word for GGG, comma-separated."),
        strategy: str = typer.Option("l2r", "--strategy",
                                     help="Multi-piece scoring for masked LMs: l2r, "
                                          "independent, first-piece (legacy)."),
        kind: str = typer.Option("auto", "--kind", help="auto, masked or causal."),
        start_token: str = typer.Option("auto", "--start-token",
                                        help="Causal LMs: start-of-text token (auto = BOS, "
                                             "else EOS; none; or a token string)."),
        store: Path | None = STORE_OPTION,
        device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION,
        as_json: bool = JSON_OPTION,
        progress: bool = typer.Option(True, "--progress/--no-progress",
                                      help="Show a progress bar."),
    ) -> None:
        """Gender-fill, prior-corrected and target-fill bias (Kurita et al. 2019).

        Positive numbers lean towards the first (male) word of --pair; units are
        nats (natural-log probability ratios).
        """
        from genderscope.api import load_model, run
        from genderscope.cli.common import command_line
        from genderscope.engine import plan_of

        plan_of("probe", {"targets": targets, "template": template, "pair": pair,
                          "strategy": strategy})  # bad input: no model load
        with open_store(store) as st:
            adapter = load_model(model, kind=kind, device=device, dtype=dtype,
                                 start_token=start_token, store=st)
            result = run("probe", adapter, store=st, progress=progress and not as_json,
                         command=command_line(), targets=targets, template=template,
                         pair=pair, strategy=strategy)
        run_id = result.metadata["run_id"]
        if as_json:
            typer.echo(result.summary_json())
            return
        table, note = probe_tables(result, model)
        console.print(table)
        console.print(f"{note} run {run_id} saved in {st.path}")
