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
``genderscope.datasets.locations.find_benchmark`` (under ``$GENDERSCOPE_DATA``, else the
fetch cache or a download), or ``--data-dir``. ``--record`` writes two rows
(query cache; LM batching) to benchmarks/results/ for the speed table (docs/performance.md).

``--whole-process``: instead, each way as a whole process timed from outside, python
start to exit (median of ``--repeats``, alternating). Set up once, untimed: the same
classifier saved with joblib and the same tweets written to a CSV. Baseline: a plain
script (joblib, the vectors, SmolLM2, the attack with the query cache off and the LM one
window per call, outcomes printed). genderscope: ``genderscope attack --classifier
FILE.joblib --data FILE.csv --limit N ... --out DIR`` as a user types it (same seed,
search, candidates, LM and window; fresh ``$GENDERSCOPE_STORE`` and ``--out`` each
repeat; it also computes bootstrap CIs, keeps the LM's scores in the store and writes
its files). Outcomes (status, adversarial text) are compared; record case
``whole-process``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from benchrecord import Recorder, add_record_options, genderscope_command, timed_process  # noqa: E402

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


# The attack's options, the same in every configuration and on both sides of --whole-process.
SEARCH = {"pop_size": 10, "max_generations": 5, "max_queries": 300}
CANDIDATES, LM_WINDOW = 5, 2
TYPED = ["--vectors", "glove-6b-50d", "--lm", "smollm2", "--lm-window", str(LM_WINDOW),
         "--candidates", str(CANDIDATES), "--pop-size", str(SEARCH["pop_size"]),
         "--generations", str(SEARCH["max_generations"]),
         "--max-queries", str(SEARCH["max_queries"])]


def pick_tweets(pool: np.ndarray, n: int, seed: int) -> list[str]:
    return list(pool[np.random.default_rng(seed).choice(len(pool), n, replace=False)])


def child_script(args: argparse.Namespace) -> None:
    """The baseline as a user's plain script: load, attack (query cache off, the LM one
    window per call), print each outcome; also written to ``--child-out`` (JSON)."""
    import joblib

    tweets = pd.read_csv(args.child_data, dtype=str, keep_default_na=False)["tweet"].tolist()
    clf = Classifier.wrap(joblib.load(args.child_classifier), cache=False, batch_size=64)
    neighbours = AnalogyNeighbours.from_vectors(load_vectors("glove-6b-50d"), n=CANDIDATES)
    lm = load_lm("smollm2", kind="causal", store=None, device=args.device)
    lm_filter = LMFilter(lm_scorer(lm), window=LM_WINDOW, batched=False, name="smollm2")
    atk = GenderAttack(clf, neighbours, lm_filter=lm_filter, seed=args.seed,
                       search=GeneticSearch(**SEARCH))
    outs = [(o.direction, o.status, o.adversarial or "") for o in atk.attack_many(tweets)]
    for i, (d, status, adv) in enumerate(outs):
        print(f"{i // 2}\t{d}\t{status}\t{adv}")
    Path(args.child_out).write_text(json.dumps(outs), encoding="utf-8")


def whole_process(args: argparse.Namespace, recorder: Recorder) -> None:
    """Both ways as whole processes, python start to exit, timed from outside."""
    if args.device != "cpu":
        raise SystemExit("--whole-process: `genderscope attack` has no --device; use cpu")
    work = Path(tempfile.mkdtemp(prefix="gs-bench-attack-"))
    model, pool = davidson_classifier(args.data_dir, args.n_train, args.seed)
    import joblib

    joblib.dump(model, work / "davidson.joblib")
    tweets = pick_tweets(pool, args.n, args.seed)
    pd.DataFrame({"tweet": tweets}).to_csv(work / "tweets.csv", index=False)
    env = dict(os.environ, COLUMNS="100",  # the data folder, as docs/data.md tells a user
               GENDERSCOPE_DATA=str(args.data_dir.resolve().parent))
    head = genderscope_command()
    typed = ["attack", "--classifier", str(work / "davidson.joblib"), "--data",
             str(work / "tweets.csv"), "--limit", str(args.n), *TYPED, "--seed",
             str(args.seed)]
    child = [sys.executable, __file__, "--child-script", "--seed", str(args.seed), "--device",
             args.device, "--child-classifier", str(work / "davidson.joblib"),
             "--child-data", str(work / "tweets.csv"), "--child-out", str(work / "plain.json")]
    plain_t, cli_t, differ = [], [], []
    for k in range(args.repeats):  # alternating, so a drift in load hits both
        plain_t.append(timed_process(child, env))
        out = work / f"out-{k}"
        cli_t.append(timed_process([*head, *typed, "--out", str(out)], dict(
            env, GENDERSCOPE_STORE=str(work / f"store-{k}.sqlite"))))
        plain = [tuple(x) for x in json.loads((work / "plain.json").read_text())]
        items = pd.read_csv(out / "items.csv", dtype=str, keep_default_na=False)
        cli = list(zip(items["direction"], items["status"], items["adversarial"], strict=True))
        same = sum(a == b for a, b in zip(plain, cli, strict=False))
        differ.append(max(len(plain), len(cli)) - same)
        statuses = dict(Counter(x[1] for x in cli))
        print(f"repeat {k + 1}: plain script {plain_t[-1]:.1f} s, genderscope "
              f"{cli_t[-1]:.1f} s; outcomes differing {differ[-1]} of {len(plain)} "
              f"(genderscope's: {statuses})", flush=True)
    plain_s, cli_s = statistics.median(plain_t), statistics.median(cli_t)
    shown = ["attack", "--classifier", "FILE.joblib", "--data", "FILE.csv", "--limit",
             str(args.n), *TYPED, "--seed", str(args.seed), "--out", "DIR"]
    print(f"whole processes: plain script {plain_s:.1f} s, `genderscope {' '.join(shown)}` "
          f"{cli_s:.1f} s: {plain_s / cli_s:.2f}x")
    shutil.rmtree(work, ignore_errors=True)
    n_att = 2 * len(tweets)
    recorder.write(
        case="whole-process",
        what=f"gender-analogy attack, {n_att} attacks on {len(tweets)} Davidson tweets "
             "(MiniLM+logreg classifier, GloVe 6B 50d, SmolLM2 filter), as typed",
        baseline=f"a plain script (query cache off, LM one window per call), median of "
                 f"{args.repeats}", baseline_s=plain_s,
        genderscope=f"`genderscope {' '.join(shown)}` (also bootstrap CIs, LM scores kept "
                    f"in the store, result files written), median of {args.repeats}",
        genderscope_s=cli_s, device=args.device,
        extra=[{"name": "outcomes differing", "value": max(differ), "unit": f"of {n_att}"}])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="the gsoc2019-bias folder (default: find_benchmark's lookup)")
    ap.add_argument("--classifier", default=None, help="SPEC; default: train MiniLM+logreg")
    ap.add_argument("--n-train", type=int, default=600)
    ap.add_argument("--n", type=int, default=10, help="tweets to attack (both directions)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps (the SmolLM2 filter)")
    ap.add_argument("--whole-process", action="store_true",
                    help="each way as a whole process, as typed (record case whole-process)")
    ap.add_argument("--repeats", type=int, default=3, help="--whole-process: runs of each way")
    for hidden in ("--child-classifier", "--child-data", "--child-out"):
        ap.add_argument(hidden, help=argparse.SUPPRESS)
    ap.add_argument("--child-script", action="store_true", help=argparse.SUPPRESS)
    add_record_options(ap)
    args = ap.parse_args()
    if args.child_script:
        child_script(args)
        return
    recorder = Recorder.from_args(__file__, args)
    if args.data_dir is None:
        args.data_dir = find_benchmark("gsoc2019-bias")
    if args.whole_process:
        whole_process(args, recorder)
        return

    t = time.perf_counter()
    model, pool = davidson_classifier(args.data_dir, args.n_train, args.seed)
    clf_obj = load_classifier(args.classifier) if args.classifier else None
    tweets = pick_tweets(pool, args.n, args.seed)
    neighbours = AnalogyNeighbours.from_vectors(load_vectors("glove-6b-50d"), n=CANDIDATES)
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
        lm_filter = LMFilter(lm_scorer(lm), window=LM_WINDOW, batched=batched, name="smollm2")
        atk = GenderAttack(clf, neighbours, lm_filter=lm_filter, seed=args.seed,
                           search=GeneticSearch(**SEARCH))
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
