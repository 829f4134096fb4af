"""Runs WEFE 1.0.1 queries with its look-up and metric options, inside its own venv
(tests/wefe_env.py builds it), for tests/agreement/test_wefe_modes_agreement.py. Not a
test module: ``python wefe_modes_reference.py SPEC.json OUT.json``.

SPEC: {"vectors": word2vec binary file, "queries": [{"name", "metric" (weat, ripa,
rnd, ect), "targets": [[...], [...]], "attributes": [[...], [...]] (RIPA, RND, ECT:
one attribute set), "options": keyword arguments of ``run_query`` (preprocessors,
normalize, distance, lost_vocabulary_threshold, return_effect_size)}]}.
OUT: {name: {"result": .., "weat": .., "effect_size": ..} (the numbers WEFE returned;
NaN as null)}.

SPEC may also hold "debias": [{"name", "method" (hard, multiclass-hard), "definitional",
"equalize", "target", "ignore", "n_components", "out": .npy path}]: WEFE's fit on the
lists, then ``transform(model, target=, ignore=)``; the vectors are saved in the
vocabulary's order.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
from gensim.models import KeyedVectors
from wefe.debias.hard_debias import HardDebias
from wefe.debias.multiclass_hard_debias import MulticlassHardDebias
from wefe.metrics import ECT, RIPA, RND, WEAT
from wefe.query import Query
from wefe.word_embedding_model import WordEmbeddingModel

METRICS = {"weat": WEAT, "ripa": RIPA, "rnd": RND, "ect": ECT}


def _number(value: object) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def main(spec_path: str, out_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    kv = KeyedVectors.load_word2vec_format(spec["vectors"], binary=True)
    model = WordEmbeddingModel(kv, "ref")
    out = {}
    for q in spec.get("queries", []):
        query = Query(q["targets"], q["attributes"])
        res = METRICS[q["metric"]]().run_query(query, model, **q.get("options", {}))
        out[q["name"]] = {k: _number(res.get(k)) for k in ("result", "weat", "effect_size")}
    for job in spec.get("debias", []):
        if job["method"] == "hard":
            deb = HardDebias().fit(model, definitional_pairs=job["definitional"],
                                   equalize_pairs=job["equalize"])
        else:
            deb = MulticlassHardDebias(pca_args={"n_components": job["n_components"]}).fit(
                model, definitional_sets=job["definitional"], equalize_sets=job["equalize"])
        new = deb.transform(model, target=job.get("target"), ignore=job.get("ignore"),
                            copy=True)
        np.save(job["out"], np.asarray(new.wv.vectors, dtype=np.float32))
    Path(out_path).write_text(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
