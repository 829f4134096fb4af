"""``genderscope run ripa|rnd|ect|mac|rnsb``: the WEFE-family metrics on word vectors.

Same tests as ``run weat`` (``--test`` name, glob or JSON file; ``--tests-dir``); each
test gets ``OUT/<test>/`` and a store record, and ``OUT/tests.csv`` holds the table.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table

from genderscope.cli.commands.embeddings import vectors_command
from genderscope.cli.common import ci_text, fmt, new_table
from genderscope.results import Result

TITLES = {
    "ripa": "RIPA (Ethayarajh et al. 2019): mean a . (x_i - y_i)/|x_i - y_i| over A or B",
    "rnd": "RND (Garg et al. 2018): mean |a - mean X| - |a - mean Y| over A or B",
    "ect": "ECT (Dev & Phillips 2019): Spearman of cos(mean X, a) and cos(mean Y, a)",
    "mac": "MAC (Manzini et al. 2019): mean cosine distance of X, Y words to A and B",
    "rnsb": "RNSB (Sweeney & Najafian 2019): KL of P(B | target) from uniform (>= 0: a CI "
            "above 0 is no evidence; compare with the no-bias value)",
}


def _rows(method: str, r: Result) -> list[dict[str, Any]]:
    s = r.summary
    c = s["categories"]
    if "X" in c:
        x, y, a, b = c["X"], c["Y"], c["A"], c["B"]
    else:  # a query of n target groups (MAC, RNSB): every group's name in X
        x = ", ".join(v for k, v in c.items() if k.startswith("T"))
        attrs = [v for k, v in c.items() if k.startswith("A")]
        y, a, b = "", attrs[0], " / ".join(attrs[1:])
    base = {"test": s["test"], "X": x, "Y": y, "A": a, "B": b,
            "oov": sum(s["n_oov"].values()), "error": ""}
    if s.get("n_unpaired"):  # RIPA: the longer target set's words past the shorter's
        base["unpaired"] = s["n_unpaired"]
    if "attributes" in s:
        return [{**base, "attribute": role, "value": e["estimate"], "ci_low": e["ci_low"],
                 "ci_high": e["ci_high"], "p": e.get("p_value", "")}
                for role, e in s["attributes"].items()]
    e = s[method]
    row = {**base, "attribute": "A,B", "value": e["estimate"], "ci_low": e["ci_low"],
           "ci_high": e["ci_high"], "p": ""}
    if e.get("absolute"):  # an absolute value: the value expected under no bias beside it
        row["no_bias_p95"] = e.get("no_bias_p95", float("nan"))
    return [row]


def metric_tables(method: str, rows: list[dict[str, Any]]) -> list[Table | str]:
    """One row per test and attribute set (:func:`_rows`; a failed test's row holds its
    ``error``); a p column where a row has a p (RIPA, RND; not MAC, ECT, RNSB), n/a where
    too few units were left to test; under it, RIPA's words left without a partner."""
    with_p = any(r.get("p", "") != "" for r in rows)  # None: a stored NaN
    table = new_table(TITLES[method], ("test", "X vs Y", "set", "value [95% CI]",
                                       *(("p",) if with_p else ())), labels=3)
    for r in rows:
        if r.get("error"):
            table.add_row(str(r["test"]), "", "", "[red]error[/red]", *([""] if with_p else []))
            continue
        attr = r["attribute"]
        label = r[attr] if attr in ("A", "B") else f"{r['A']} / {r['B']}"
        p = r["p"]
        groups = f"{r['X']} vs {r['Y']}" if r["Y"] else str(r["X"])  # Y "": n groups
        value = ci_text({"estimate": r["value"], "ci_low": r["ci_low"],
                         "ci_high": r["ci_high"]})  # a stored NaN reads nan
        if "no_bias_p95" in r:
            value += f" (absolute; no bias: up to {fmt(r['no_bias_p95'])})"
        # "": the metric has no p; NaN (None once stored): too few units to test
        p_cell = ["" if p == "" else "n/a" if p is None or p != p else f"{p:.2g}"
                  ] if with_p else []
        table.add_row(str(r["test"]), groups, str(label), value, *p_cell)
    unpaired = {str(r["test"]): r["unpaired"] for r in rows if r.get("unpaired")}
    return [table, *(f"{t}: {n} target words left out: RIPA pairs X_i with Y_i, and the "
                     "longer set's extra words have no partner" for t, n in unpaired.items())]


def one_test_tables(result: Result) -> list[Table | str]:
    """The table of one run of a metric (``genderscope runs show``; the metrics'
    declarations' ``table``)."""
    return metric_tables(result.method, _rows(result.method, result))


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    from genderscope.cli.help import WordTestsCommand

    for method in TITLES:
        run_app.command(method, cls=WordTestsCommand)(vectors_command(
            method, TITLES[method] + ".", lambda r, m=method: _rows(m, r), metric_tables))
