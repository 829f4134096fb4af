"""WEFE 1.0.1's workflow (``run_queries``, ``create_ranking``,
``calculate_ranking_correlations``) inside its own venv (tests/wefe_env.py), for
tests/agreement/test_wefe_workflow_agreement.py. Not a test module:
``python wefe_workflow_reference.py SPEC.json OUT.json``.

SPEC: {"models": {name: word2vec binary}, "runs": [{"metric", "queries": [{"targets":
{name: words}, "attributes": {name: words}}], "subqueries": bool, "params": {...}}],
"tables": [{"name", "scores": {column: {model: value}}}]}.
OUT: {"runs": [{"cells": {model: {query name: value}}, "aggregate": {model: value}}],
"rankings": {f"{table}:{method}:{asc}": {column: {model: rank}}},
"correlations": {f"{table}:{method}:{corr}": {column: {column: value}}}}.
"""

import json
import math
import sys
from pathlib import Path

import pandas as pd
from gensim.models import KeyedVectors
from wefe.metrics import ECT, MAC, RIPA, RND, RNSB
from wefe.query import Query
from wefe.utils import calculate_ranking_correlations, create_ranking, run_queries
from wefe.word_embedding_model import WordEmbeddingModel

METRICS = {"ripa": RIPA, "rnd": RND, "ect": ECT, "mac": MAC, "rnsb": RNSB}
RANK_METHODS = ("first", "average", "min", "max", "dense")


def _clean(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) \
        else float(value)


def main(spec_path: str, out_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    models = [WordEmbeddingModel(KeyedVectors.load_word2vec_format(path, binary=True), name)
              for name, path in spec["models"].items()]
    out: dict = {"runs": [], "rankings": {}, "correlations": {}}
    for run in spec.get("runs", []):
        queries = [Query(list(q["targets"].values()), list(q["attributes"].values()),
                         list(q["targets"]), list(q["attributes"])) for q in run["queries"]]
        table = run_queries(METRICS[run["metric"]], queries, models,
                            metric_params=run.get("params", {}),
                            generate_subqueries=run.get("subqueries", False),
                            aggregate_results=True)
        cells = table.iloc[:, :-1]
        out["runs"].append({
            "cells": {m: {q: _clean(v) for q, v in row.items()}
                      for m, row in cells.iterrows()},
            "aggregate": {m: _clean(v) for m, v in table.iloc[:, -1].items()}})
    for t in spec.get("tables", []):
        scores = pd.DataFrame(t["scores"])
        frames = [scores[[c]] for c in scores.columns]  # the last column of each is ranked
        for method in RANK_METHODS:
            for asc in (True, False):
                rank = create_ranking(frames, method=method, ascending=asc)
                out["rankings"][f"{t['name']}:{method}:{asc}"] = {
                    c: {m: _clean(v) for m, v in rank[c].items()} for c in rank.columns}
                if asc:
                    for corr in ("spearman", "kendall"):
                        mat = calculate_ranking_correlations(rank, method=corr)
                        out["correlations"][f"{t['name']}:{method}:{corr}"] = {
                            c: {r: _clean(v) for r, v in mat[c].items()} for c in mat.columns}
    Path(out_path).write_text(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
