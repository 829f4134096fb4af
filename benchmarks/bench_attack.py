"""Benchmark: classifier queries and wall time per attack, with and without the
classifier query cache and LM-filter batching.

Same tweets, seed and components in every configuration; only the cache / batching
switches change. Outcomes (status and adversarial text) are compared across
configurations. Run it on an otherwise idle machine so timings are valid:

    python benchmarks/bench_attack.py --n 10

Classifier: MiniLM embeddings + logistic regression trained on ``--n-train`` Davidson
tweets (or ``--classifier SPEC``); GloVe 6B 50d substitutions; SmolLM2 LM filter
without a score store (nothing cached between configurations except the GloVe
neighbours, warmed up before timing). Data: the gsoc2019-bias folder found by
``genderscope.datasets.locations.find_benchmark`` (``$GENDERSCOPE_DATA``, else
``shared/data`` or ``../shared/data``), or ``--data-dir``. ``--record`` writes two rows
(query cache; LM batching) to benchmarks/results/ for the README speed table.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from benchrecord import Recorder, add_record_options  # noqa: E402

from genderscope.attack import (  # noqa: E402
    DIRECTIONS,
    AnalogyNeighbours,
    GenderAttack,
    GeneticSearch,
    LMFilter,
    WordText,
    lm_scorer,
)
from genderscope.datasets.locations import find_benchmark  # noqa: E402
from genderscope.models.classifier import Classifier, load_classifier  # noqa: E402
from genderscope.models.loading import load_lm  # noqa: E402
from genderscope.models.vectors import load_vectors  # noqa: E402


def davidson_classifier(data_dir: Path, n_train: int, seed: int) -> tuple[object, np.ndarray]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline

    from genderscope.models.classifier import SentenceEmbeddingFeatures

    df = pd.read_csv(data_dir / "data_files" / "davidson-data.csv")
    texts, y = df["tweet"].astype(str).to_numpy(), df["class"].to_numpy()
    tr, rest = train_test_split(np.arange(len(df)), train_size=n_train, random_state=seed,
                                stratify=y)
    feats = SentenceEmbeddingFeatures("minilm")
    lr = LogisticRegression(max_iter=2000, class_weight="balanced").fit(
        feats.transform(texts[tr]), y[tr])
    return Pipeline([("minilm", feats), ("logreg", lr)]), texts[rest]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="the gsoc2019-bias folder (default: find_benchmark's lookup)")
    ap.add_argument("--classifier", default=None, help="SPEC; default: train MiniLM+logreg")
    ap.add_argument("--n-train", type=int, default=600)
    ap.add_argument("--n", type=int, default=10, help="tweets to attack (both directions)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (the SmolLM2 filter)")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)
    if args.data_dir is None:
        args.data_dir = find_benchmark("gsoc2019-bias")

    t = time.perf_counter()
    model, pool = davidson_classifier(args.data_dir, args.n_train, args.seed)
    clf_obj = load_classifier(args.classifier) if args.classifier else None
    rng = np.random.default_rng(args.seed)
    tweets = list(pool[rng.choice(len(pool), args.n, replace=False)])
    neighbours = AnalogyNeighbours.from_vectors(load_vectors("glove-6b-50d"), n=5)
    for tw in tweets:  # warm the neighbour cache: not what is measured
        for w in WordText.parse(tw).words:
            for d in DIRECTIONS:
                neighbours(w, d)
    lm = load_lm("smollm2", kind="causal", store=None, device=args.device)
    print(f"setup {time.perf_counter() - t:.0f} s; {len(tweets)} tweets x 2 directions")

    configs = [("cache on, LM batched", True, True), ("cache off, LM batched", False, True),
               ("cache on, LM one window per call", True, False)]
    rows = []
    outcomes = {}
    for name, cache, batched in configs:
        base = clf_obj if clf_obj is not None else model
        clf = Classifier.wrap(base, cache=cache, batch_size=64)
        lm_filter = LMFilter(lm_scorer(lm), window=2, batched=batched, name="smollm2")
        atk = GenderAttack(clf, neighbours, lm_filter=lm_filter, seed=args.seed,
                           search=GeneticSearch(pop_size=10, max_generations=5,
                                                max_queries=300))
        t = time.perf_counter()
        outs = atk.attack_many(tweets)
        wall = time.perf_counter() - t
        outcomes[name] = [(o.status, o.adversarial) for o in outs]
        rows.append({"config": name, "attacks": len(outs),
                     "evaluated/attack": np.mean([o.evaluated for o in outs]),
                     "queries/attack": np.mean([o.queries for o in outs]),
                     "requests/attack": np.mean([o.requests for o in outs]),
                     "s/attack": wall / len(outs), "lm calls": lm_filter.calls,
                     "lm windows": lm_filter.scored, "wall s": wall})
    table = pd.DataFrame(rows).set_index("config")
    print(table.round(3).to_string())
    on, off, unb = (table.iloc[i] for i in range(3))
    print(f"query cache: {off['evaluated/attack'] / on['evaluated/attack']:.2f}x fewer "
          "model evaluations, "
          f"{off['s/attack'] / on['s/attack']:.2f}x faster per attack")
    print(f"LM batching: {unb['lm calls'] / max(on['lm calls'], 1):.1f}x fewer LM calls, "
          f"{unb['s/attack'] / on['s/attack']:.2f}x faster per attack")
    same = all(v == outcomes[configs[0][0]] for v in outcomes.values())
    print(f"identical outcomes across configurations: {same}")
    n_att = len(outcomes[configs[0][0]])
    what = (f"gender-analogy attack per text ({n_att} attack{'s' * (n_att != 1)} on "
            f"{len(tweets)} tweet{'s' * (len(tweets) != 1)})")
    recorder.write(
        case="query-cache", what=what + ": classifier query cache",
        baseline="no query cache", baseline_s=float(off["s/attack"]),
        genderscope="query cache", genderscope_s=float(on["s/attack"]), device=args.device,
        extra=[{"name": "model evaluations per attack", "value": float(off["evaluated/attack"]),
                "side": "baseline"},
               {"name": "model evaluations per attack", "value": float(on["evaluated/attack"])},
               {"name": "identical outcomes", "value": "yes" if same else "no"}])
    recorder.write(
        case="lm-batching", what=what + ": LM filter batching",
        baseline="LM one window per call", baseline_s=float(unb["s/attack"]),
        genderscope="LM batched", genderscope_s=float(on["s/attack"]), device=args.device,
        extra=[{"name": "LM calls", "value": int(unb["lm calls"]), "side": "baseline"},
               {"name": "LM calls", "value": int(on["lm calls"])},
               {"name": "identical outcomes", "value": "yes" if same else "no"}])


if __name__ == "__main__":
    main()
