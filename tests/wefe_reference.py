"""Runs WEFE 1.0.1 inside its own venv (tests/wefe_env.py builds it) for the agreement
test and the benchmark. Not a test module: ``python wefe_reference.py SPEC.json OUT.json``.

SPEC: {"vectors": word2vec binary file, "queries": [{"name", "metric", "targets":
[[...], [...]], "attributes": [[...], ...] (or "attribute_sets": [[[...]], [[...]]], each
run as its own query, timed together), "seed"}], "debias": [{"name", "method", its lists and
options, "out": .npy path or null}], "repeat": n (timing samples), "inner": calls
per sample of a query (its mean is the sample)}.
OUT: {"metrics": {name: value}, "seconds": {name: [s, ...]}, "debias_words": {name:
[...]}, "max_rss_mib"}.
"""

import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
from gensim.models import KeyedVectors
from sklearn.decomposition import PCA
from wefe.debias.double_hard_debias import DoubleHardDebias
from wefe.debias.half_sibling_regression import HalfSiblingRegression
from wefe.debias.hard_debias import HardDebias
from wefe.debias.multiclass_hard_debias import MulticlassHardDebias
from wefe.metrics import ECT, MAC, RIPA, RND, RNSB
from wefe.query import Query
from wefe.word_embedding_model import WordEmbeddingModel

CHOSEN: dict = {}
"""Double-Hard Debias: the frequency component WEFE chose, by job name."""
METRICS = {"ripa": RIPA, "rnd": RND, "ect": ECT, "mac": MAC, "rnsb": RNSB}


def _debias(model: WordEmbeddingModel, job: dict) -> WordEmbeddingModel:
    """One debiasing method, fitted and applied as WEFE's documentation shows."""
    method = job["method"]
    if method == "hard":
        deb = HardDebias().fit(model, definitional_pairs=job["definitional"],
                               equalize_pairs=job["equalize"])
    elif method == "multiclass-hard":
        deb = MulticlassHardDebias(pca_args={"n_components": job["n_components"]}).fit(
            model, definitional_sets=job["definitional"], equalize_sets=job["equalize"])
    elif method == "double-hard":
        deb = DoubleHardDebias(n_words=job["n_words"], n_components=job["n_components"])
        if job.get("exact_pca"):  # scikit-learn's exact PCA instead of IncrementalPCA
            deb.pca_type = PCA(n_components=10, svd_solver="full")
        deb.fit(model, definitional_pairs=job["definitional"],
                bias_representation=["he", "she"])
        choose = deb._get_optimal_dimension

        def record(*args: object, **kwargs: object) -> int:
            CHOSEN[job["name"]] = int(choose(*args, **kwargs))
            return CHOSEN[job["name"]]

        deb._get_optimal_dimension = record
    elif method == "ran":  # needs torch in the venv (wefe_env.ensure_torch)
        from wefe.debias.repulsion_attraction_neutralization import (
            RepulsionAttractionNeutralization,
        )

        deb = RepulsionAttractionNeutralization().fit(model,
                                                      definitional_pairs=job["definitional"])
        return deb.transform(model, target=job["target"], ignore=job["ignore"], copy=True)
    elif method == "hsr":
        deb = HalfSiblingRegression().fit(model, definitional_words=job["definitional_words"],
                                          alpha=job["alpha"])
        return deb.transform(model, copy=True)
    else:
        raise ValueError(method)
    return deb.transform(model, ignore=job["ignore"], copy=True)


def main(spec_path: str, out_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    t0 = time.perf_counter()
    kv = KeyedVectors.load_word2vec_format(spec["vectors"], binary=True)
    load_s = time.perf_counter() - t0
    model = WordEmbeddingModel(kv, "ref")
    repeat = int(spec.get("repeat", 1))
    inner = int(spec.get("inner", 1))
    out = {"metrics": {}, "seconds": {"load": [load_s]}}
    for q in spec.get("queries", []):
        # "attribute_sets": several queries timed as one (the work of one genderscope
        # call, which reports attribute sets A and B); else one query of "attributes"
        sets = q["attribute_sets"] if "attribute_sets" in q else [q["attributes"]]
        queries = [Query(q["targets"], a) for a in sets]
        kwargs = {"random_state": q["seed"]} if q["metric"] == "rnsb" else {}
        times = []
        for _ in range(repeat):  # a sample: the mean of "inner" calls
            t0 = time.perf_counter()
            for _ in range(inner):
                res = [METRICS[q["metric"]]().run_query(query, model, **kwargs)
                       for query in queries]
            times.append((time.perf_counter() - t0) / inner)
        out["metrics"][q["name"]] = float(res[0]["result"])
        out["seconds"][q["name"]] = times
    for job in spec.get("debias", []):
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            new = _debias(model, job)
            times.append(time.perf_counter() - t0)
        out["seconds"][job["name"]] = times
        if job.get("out"):
            np.save(job["out"], np.asarray(new.wv.vectors, dtype=np.float32))
            out.setdefault("debias_words", {})[job["name"]] = list(new.wv.index_to_key)
    out["chosen_component"] = CHOSEN
    out["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Path(out_path).write_text(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
