"""Many word-vector models x many queries x many metrics into one table (WEFE 1.0.1's
``run_queries``, one metric at a time there), then rankings and rank correlations.

Every cell is one :func:`genderscope.engine.run`, stored under the run's key and shared
with ``genderscope run mac --test q.json ...``. Not a mode of ``genderscope sweep``: it
needs a third axis (queries) and per-metric options, and runs in seconds in this process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from genderscope.errors import GenderscopeError

METRICS = ("weat", "ripa", "rnd", "ect", "mac", "rnsb")
COLUMNS = ["model", "query", "metric", "attribute", "value", "ci_low", "ci_high",
           "p_value", "n_oov", "run_id", "reused", "error"]
"""The long table: one row per model, query, metric and reported attribute set
(RIPA, RND, ECT report each attribute set; WEAT its effect size d; MAC and RNSB one
value). ``error``: why the cell has no value (its other cells are then empty)."""


def _label(model: Any) -> str:
    if isinstance(model, (str, Path)):
        return Path(str(model)).name if Path(str(model)).exists() else str(model)
    return str(getattr(model, "name", None) or type(model).__name__)


def _query_name(query: Any) -> str:
    """A query's name: a Query's (query files are Queries by now) or a test's, else a test
    file's stem."""
    from genderscope.datasets.query import Query

    if isinstance(query, Query):
        return query.name
    name = getattr(query, "name", None)
    return str(name) if name else Path(str(query)).name.removesuffix(".jsonl").removesuffix(
        ".json")


def result_rows(metric: str, summary: Mapping[str, Any], single_attribute: bool
                ) -> list[dict[str, Any]]:
    """The table rows of one run's summary (:data:`COLUMNS` less model, query, run)."""
    oov = sum(summary.get("n_oov", {}).values())

    def row(attribute: str, e: Mapping[str, Any], p_value: Any) -> dict[str, Any]:
        return {"attribute": attribute, "value": e["estimate"], "ci_low": e["ci_low"],
                "ci_high": e["ci_high"], "p_value": p_value, "n_oov": oov}

    if metric in ("weat", "seat"):
        return [row("", summary["effect_size"], summary.get("p_value"))]
    if "attributes" in summary:  # RIPA, RND, ECT: each attribute set
        each = summary["attributes"]
        roles = ["A"] if single_attribute else list(each)
        return [row(summary["categories"].get(r, r), each[r], each[r].get("p_value"))
                for r in roles]
    return [row("", summary[metric], None)]


def run_many(models: Sequence[Any] | Mapping[str, Any], queries: Sequence[Any],
             metrics: Sequence[str] = METRICS, *, store: Any = None,
             options: Mapping[str, Mapping[str, Any]] | None = None,
             tests_dir: str | Path | None = None, reuse: bool = True,
             raise_errors: bool = False, progress: bool = False) -> pd.DataFrame:
    """Run every metric on every query on every model; one row per reported value
    (:data:`COLUMNS`), each with its 95 % CI and p-value where the metric has one.

    ``models``: word-vector specs (``glove-6b-50d``, a file) or loaded vectors, or a
    mapping ``{label: spec}``. ``queries``: :class:`~genderscope.datasets.query.Query`
    objects, query files (JSON/YAML), WEAT/SEAT test names (in ``tests_dir``, else
    ``$GENDERSCOPE_SEAT_DIR`` or the data folder) or files, or ``AssociationTest``
    objects. ``metrics``: among :data:`METRICS`. ``options``:
    per-metric options, ``{"rnsb": {"resamples": 200}}``, or ``{"*": {...}}`` for every
    metric that declares them.
    A query a metric's template does not take, or a model that cannot run it, gives a
    row whose ``error`` says why (``raise_errors=True``: raised instead).
    """
    from genderscope.datasets.query import Query, is_query_file, load_query
    from genderscope.engine import declared, load_model, using_store
    from genderscope.engine import run as engine_run

    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise GenderscopeError(f"unknown metric {unknown[0]!r} (run-many takes "
                               f"{', '.join(METRICS)})")
    if not metrics or not queries or not models:
        raise GenderscopeError("run-many needs at least one model, query and metric")
    named = dict(models) if isinstance(models, Mapping) else {_label(m): m for m in models}
    if not isinstance(models, Mapping) and len(named) != len(models):
        raise GenderscopeError("two models have the same name; pass {label: model}")
    loaded = [load_query(q) if isinstance(q, (str, Path)) and is_query_file(q) else q
              for q in queries]
    names = [_query_name(q) for q in loaded]
    opts = dict(options or {})
    takes = {m: {o.name for o in declared(m).options} for m in metrics}  # "*": where taken
    rows: list[dict[str, Any]] = []
    with using_store(store) as st:
        for label, spec in named.items():
            adapter = (load_model(spec, kind="vectors", store=st)
                       if isinstance(spec, (str, Path)) else spec)
            for qname, query in zip(names, loaded, strict=True):
                single = isinstance(query, Query) and query.template == (2, 1)
                for metric in metrics:
                    base = {"model": label, "query": qname, "metric": metric}
                    given = {**{k: v for k, v in opts.get("*", {}).items()
                                if k in takes[metric]}, **opts.get(metric, {})}
                    if tests_dir is not None and isinstance(query, str):
                        given["tests_dir"] = Path(tests_dir)
                    try:
                        r = engine_run(metric, adapter, store=st, test=query, reuse=reuse,
                                       progress=progress, **given)
                    except GenderscopeError as exc:
                        if raise_errors:
                            raise
                        rows.append({**base, "error": str(exc)})
                        continue
                    for row in result_rows(metric, r.summary, single):
                        rows.append({**base, **row, "run_id": r.metadata.get("run_id"),
                                     "reused": bool(r.metadata.get("reused", False)),
                                     "error": ""})
    return pd.DataFrame(rows, columns=COLUMNS)


def score_table(table: pd.DataFrame, how: str = "abs_avg") -> pd.DataFrame:
    """One score per model (rows, in the table's order) and metric (columns): the
    metric's values over the queries (and attribute sets) aggregated as WEFE's
    ``run_queries(aggregate_results=True, aggregation_function=how)``."""
    from genderscope.stats.rankings import aggregate

    ok = table[table["error"].fillna("") == ""]
    models = list(dict.fromkeys(table["model"]))
    out = {}
    for metric in dict.fromkeys(table["metric"]):
        part = ok[ok["metric"] == metric]
        if part.empty:  # every cell of the metric failed (its rows' error says why)
            out[metric] = pd.Series(dtype=float)
            continue
        col = part.assign(cell=part["query"] + "|" + part["attribute"].fillna("")).pivot(
            index="model", columns="cell", values="value")
        out[metric] = aggregate(col.astype(float), how) if len(col) else pd.Series(
            dtype=float)
    return pd.DataFrame(out).reindex(models)
