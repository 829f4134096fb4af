"""What a WEFE 1.0.1 user writes to get one of bench_wefe's figures: the baseline of its
``--whole-process`` rows, run with WEFE's venv python (tests/wefe_env.py), never
imported by genderscope.

    python wefe_user_script.py VECTORS.kv ripa|rnd|ect|mac|rnsb [--result JSON]
    python wefe_user_script.py VECTORS.kv hard --lists DIR --out DEBIASED.bin [--result JSON]

Loads GloVe with gensim (``KeyedVectors.load`` of gensim's own format, its fastest
load; a ``.bin`` file is read as word2vec binary), wraps it in a ``WordEmbeddingModel`` and
builds WEAT 6 from WEFE's own word sets (``load_weat``: male and female names, career
and family; lower-cased by WEFE's preprocessor, GloVe being lower case). RIPA, RND and
ECT take one attribute set, so they run twice (career, then family); MAC and RNSB take
both. ``hard``: ``HardDebias`` fitted on Bolukbasi's definitional and equalize pairs
(the debiaswe JSON files in ``--lists``), applied to the whole vocabulary except the
gender-specific words, saved as word2vec binary. Prints the result; ``--result`` also
writes it as JSON (for the benchmark's agreement check).
"""

import argparse
import json
from pathlib import Path

from gensim.models import KeyedVectors
from wefe.datasets import load_weat
from wefe.metrics import ECT, MAC, RIPA, RND, RNSB
from wefe.query import Query
from wefe.word_embedding_model import WordEmbeddingModel

METRICS = {"ripa": RIPA, "rnd": RND, "ect": ECT, "mac": MAC, "rnsb": RNSB}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("vectors")
    ap.add_argument("what", choices=[*METRICS, "hard"])
    ap.add_argument("--lists", type=Path, help="folder of debiaswe's JSON word lists")
    ap.add_argument("--out", type=Path, help="debiased vectors (word2vec binary)")
    ap.add_argument("--result", type=Path)
    args = ap.parse_args()
    kv = (KeyedVectors.load_word2vec_format(args.vectors, binary=True)
          if args.vectors.endswith(".bin") else KeyedVectors.load(args.vectors))
    model = WordEmbeddingModel(kv, "glove-6b-50d")
    if args.what == "hard":
        from wefe.debias.hard_debias import HardDebias

        def read(name: str) -> list:
            return json.loads((args.lists / name).read_text())

        debiased = HardDebias().fit(
            model, definitional_pairs=read("definitional_pairs.json"),
            equalize_pairs=read("equalize_pairs.json")).transform(
            model, ignore=read("gender_specific_full.json"), copy=True)
        debiased.wv.save_word2vec_format(str(args.out), binary=True)
        result = {"words": len(debiased.wv), "out": str(args.out)}
        print(f"Hard Debias: {result['words']:,} words saved to {args.out}")
    else:
        weat = load_weat()
        targets, names = [weat["male_names"], weat["female_names"]], ["Male names",
                                                                      "Female names"]
        lower = [{"lowercase": True}]
        metric = METRICS[args.what]()
        kwargs = {"random_state": 0} if args.what == "rnsb" else {}
        if args.what in ("mac", "rnsb"):
            queries = {"all": Query(targets, [weat["career"], weat["family"]], names,
                                    ["Career", "Family"])}
        else:
            queries = {"A": Query(targets, [weat["career"]], names, ["Career"]),
                       "B": Query(targets, [weat["family"]], names, ["Family"])}
        result = {}
        for name, query in queries.items():
            out = metric.run_query(query, model, preprocessors=lower, **kwargs)
            result[name] = float(out["result"])
            print(f"{out['query_name']}: {args.what.upper()} = {result[name]:.6f}")
    if args.result:
        args.result.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
