"""GenderBench probes on chat models: ``genderscope run discrimination-tamkin | bbq |
direct | diversity-med-qa | jobs-lum | hiring-an | hiring-bloomberg | inventories | isear |
dreaddit | relationship-levy | business-vocabulary | gest | gest-creative --model MODEL``,
MODEL a causal LM with a chat template or ``openai:NAME`` with ``--base-url URL``. The
endpoint client's flags change how answers are asked for, not which, so they are not part
of any key. Every answer is cached in the store, so a rerun generates nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from genderscope.cli.common import (
    API_KEY_ENV_OPTION,
    BASE_URL_OPTION,
    CONCURRENCY_OPTION,
    DEVICE_OPTION,
    DTYPE_OPTION,
    HEADER_OPTION,
    JSON_OPTION,
    OUT_OPTION,
    PROGRESS_OPTION,
    RETRIES_OPTION,
    STORE_OPTION,
    TIMEOUT_OPTION,
    fmt,
)
from genderscope.measures.genderbench import MARKS_LEGEND
from genderscope.results import Result

MODEL_OPTION = typer.Option(..., "--model", "-m", help="Chat model: HF id, folder, .gguf, smollm2, "
                            "or openai:NAME with --base-url.")


def _absolute(v: dict[str, Any]) -> str:
    """Beside an absolute value's interval (>= 0, never containing 0): the label, and
    the value expected under no bias where the probe computes it (as RNSB's table)."""
    if not v.get("absolute"):
        return ""
    ref = v.get("no_bias_p95")
    return f" (absolute; no bias: up to {fmt(ref)})" if ref is not None else " (absolute)"


def interval(low: Any, high: Any) -> str:
    """`` [low, high]``, or nothing where either end is missing (NaN, or None as a
    stored run reads a NaN back)."""
    if low is None or high is None or low != low or high != high:
        return ""
    return f" [{fmt(low)}, {fmt(high)}]"


def estimate_cell(v: dict[str, Any]) -> str:
    """``estimate [low, high]`` (n/a where missing), then `` (why)`` where the estimate
    (``no_estimate``) or its interval (``no_interval``, e.g. too few scenarios) is
    missing."""
    ci = interval(v["ci_low"], v["ci_high"])
    why = v.get("no_estimate") or (None if ci else v.get("no_interval"))
    return fmt(v["estimate"], missing="n/a") + ci + (f" ({why})" if why else "")


def tables(result: Result) -> list[Table | str]:
    """The probe's metrics (with CIs and marks, explained under them) and its paired
    tests."""
    s = result.summary
    t = Table(title=f"{result.method}: {s['n_items']} items, {s['n_attempts']} answers "
                    f"({100 * s['undetected_rate_attempts']:.1f} % undetected)")
    for col in ("metric", "estimate [95% CI]", "mark (CI / point)"):
        t.add_column(col)
    for name, v in s.items():
        if isinstance(v, dict) and "estimate" in v:
            m = s["marks"].get(name)
            t.add_row(name, estimate_cell(v) + _absolute(v),
                      f"{m['mark'] or '-'} / {m['mark_point'] or '-'}" if m else "")
    out: list[Table | str] = [t, f"marks: {MARKS_LEGEND}"] if s["marks"] else [t]
    if s.get("tests"):
        unit = result.metadata["params"]["cluster_unit"]
        out.append(tests_table(s["tests"], f"paired tests over {unit} (Holm over the probe)"))
    return out


def tests_table(tests: list[dict[str, Any]], title: str, *, probes: bool = False) -> Table:
    """The paired tests' table (``probes``: each test's probe); a missing number: n/a."""
    p = Table(title=title)
    for col in ("probe",) * probes + ("test", "difference", "clusters", "p", "p Holm"):
        p.add_column(col)
    for x in tests:
        p.add_row(*([x["probe"]] if probes else []), x["name"], fmt(x["estimate"], missing="n/a"),
                  str(x["n_clusters"]), fmt(x["p_value"], 4, missing="n/a"),
                  fmt(x.get("p_adjusted"), 4, missing="n/a"))
    return p


def chat_command(run_app: typer.Typer, measure: str, doc: str,
                 table: Callable[[Result], list[Table | str]]) -> None:
    """``genderscope run MEASURE`` for a chat measure: the model, its endpoint client
    settings and the measure's declared options; ``table``: its terminal tables."""
    from genderscope.cli.declared import with_declared_options

    @with_declared_options(measure)  # data, limit, ... as the measure declares them
    def cmd(model: str = MODEL_OPTION, base_url: str | None = BASE_URL_OPTION,
            device: str | None = DEVICE_OPTION, dtype: str = DTYPE_OPTION,
            out: Path | None = OUT_OPTION, store_path: Path | None = STORE_OPTION,
            as_json: bool = JSON_OPTION, progress: bool = PROGRESS_OPTION,
            concurrency: int | None = CONCURRENCY_OPTION,
            timeout: float | None = TIMEOUT_OPTION, retries: int | None = RETRIES_OPTION,
            api_key_env: str | None = API_KEY_ENV_OPTION,
            header: list[str] | None = HEADER_OPTION, **options: Any) -> None:
        from genderscope.cli.common import endpoint_client, execute

        client = endpoint_client(concurrency, timeout, retries, api_key_env, header)
        execute(measure, model, "auto", "auto", device, dtype, store_path, out, progress,
                as_json, table, base_url=base_url, **client, **options)

    cmd.__doc__ = doc
    run_app.command(measure)(cmd)


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    """``genderscope run NAME`` for every chat measure (the GenderBench probes and suite):
    help and tables from its declaration."""
    from genderscope.cli.common import declared_table
    from genderscope.core.registry import declarations

    for name, d in declarations().items():
        if d.family == "chat (GenderBench)":
            chat_command(run_app, name, "\n\n".join(p for p in (d.summary, d.description)
                                                     if p).replace("``", ""),
                         declared_table(name))
