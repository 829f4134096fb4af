"""INLP, SentenceDebias and Self-Debias on SmolLM2-135M, before/after, on seeded subsets:
writes docs/results/debias_smollm2.md.

    flock /tmp/gs-heavy.lock python benchmarks/debias_smollm2.py

Each debiased model is scored on the same items as the base model: CrowS-Pairs (gender),
StereoSet intrasentence (gender; SS and LMS), BEC-Pro (EN) and the language-modelling
cost (per-token negative log-likelihood, i.e. log perplexity, of held-out GAP sentences
that no subspace was estimated from). Every change comes from ``gs.compare`` (paired
bootstrap CI, paired test); the three techniques' p-values of one measure are one Holm
family.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

import genderscope as gs
from genderscope.results import Result
from genderscope.stats import adjust_pvalues

WORK = Path.home() / ".cache" / "genderscope" / "debias-smollm2"
"""The debiased models' folders (one per technique) and the scripts' outputs."""
STORE = WORK.with_name("debias-smollm2.sqlite")

ROOT = Path(__file__).resolve().parents[1]
TECHS = ("inlp", "sentence-debias", "self-debias")
MEASURES = {  # name: (gs.run options, compare key, compare value, label)
    "crows-pairs": ({"bias_type": "gender"}, ("pair_id",), "stereotypical_preferred",
                    "CrowS-Pairs gender: % stereotypical preferred"),
    "stereoset-ss": ({"bias_type": "gender"}, ("item_id",), "stereo_over_anti",
                     "StereoSet gender SS: % stereotype over anti-stereotype"),
    "stereoset-lms": ({"bias_type": "gender"}, ("item_id",), "n_related",
                      "StereoSet gender LMS: % related over unrelated"),
    "bec-pro": ({}, None, None, "BEC-Pro EN: association (nats)"),
    "perplexity": ({}, ("sentence_id",), "nll_per_token",
                   "held-out GAP: NLL per token (nats; log perplexity)"),
}
SCALE = {"crows-pairs": 100.0, "stereoset-ss": 100.0, "stereoset-lms": 50.0,
         "bec-pro": 1.0, "perplexity": 1.0}
"""Item value -> reported unit (LMS: n_related / 2 x 100)."""


def heldout_sentences(n: int, skip: int) -> list[str]:
    from genderscope.datasets.corpus import load_corpus, split_sentences

    docs = load_corpus("gap").texts[skip:]
    sents = [s for s in split_sentences(docs[:n]) if 6 <= len(s.split()) <= 40]
    return sents[:n]


def perplexity_result(lm: object, sentences: list[str]) -> Result:
    scores = lm.log_likelihood(sentences)  # type: ignore[attr-defined]
    items = pd.DataFrame({"sentence_id": range(len(sentences)), "sentence": sentences,
                          "ll": [s.total for s in scores],
                          "n_tokens": [s.n_tokens for s in scores]})
    items["nll_per_token"] = -items["ll"] / items["n_tokens"]
    ppl = math.exp(-items["ll"].sum() / items["n_tokens"].sum())
    return Result("perplexity", {"perplexity": ppl, "n_sentences": len(sentences)}, items)


def run_all(model: object, args: argparse.Namespace, sents: list[str]) -> dict[str, Result]:
    out: dict[str, Result] = {}
    kw = {"subset_seed": args.seed, "store": args.store}
    out["crows-pairs"] = gs.run("crows-pairs", model=model, limit=args.crows, **kw,
                                **MEASURES["crows-pairs"][0])
    ss = gs.run("stereoset", model=model, limit=args.stereoset, **kw,
                **MEASURES["stereoset-ss"][0])
    out["stereoset-ss"] = out["stereoset-lms"] = ss
    out["bec-pro"] = gs.run("bec-pro", model=model, limit=args.bec_pro, store=args.store)
    out["perplexity"] = perplexity_result(model, sents)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--work", type=Path, default=WORK)
    ap.add_argument("--store", default=str(STORE))
    ap.add_argument("--docs", type=int, default=400, help="GAP passages for estimation")
    ap.add_argument("--per-class", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--classifiers", type=int, default=80)
    ap.add_argument("--crows", type=int, default=120)
    ap.add_argument("--stereoset", type=int, default=100)
    ap.add_argument("--bec-pro", type=int, default=300)
    ap.add_argument("--heldout", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default="smollm2", help="causal LM (smoke tests: a tiny one)")
    ap.add_argument("--dropout-steps", type=int, default=0, help="also Dropout: N training "
                    "steps (batch 1) on GAP sentences; 0 skips it")
    ap.add_argument("--reuse", action="store_true", help="keep debias folders already in "
                    "--work (same settings) instead of estimating them again")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "results" /
                    "debias_smollm2.md")
    args = ap.parse_args()
    from genderscope.lm_debias.estimate import debias_lm

    args.work.mkdir(parents=True, exist_ok=True)
    timing: dict[str, float] = {}
    manifests = {}
    from genderscope.models.debias_folder import read_manifest

    techs = TECHS + (("dropout",) if args.dropout_steps else ())
    for tech in techs:
        folder = args.work / tech
        if args.reuse and (folder / "manifest.json").is_file():
            manifests[tech] = read_manifest(folder)
            print(f"{tech}: reused {folder}", flush=True)
            continue
        t0 = time.perf_counter()
        if tech == "dropout":
            from genderscope.lm_debias.dropout_training import dropout_debias

            manifests[tech] = dropout_debias(args.model, "gap", folder, limit=args.docs,
                                             max_steps=args.dropout_steps, seed=args.seed,
                                             overwrite=True)
            timing["debias dropout"] = time.perf_counter() - t0
            continue
        opts = {"inlp": {"limit": args.docs, "n_per_class": args.per_class,
                         "n_classifiers": args.classifiers, "seed": args.seed},
                "sentence-debias": {"limit": args.docs, "max_pairs": args.pairs},
                "self-debias": {}}[tech]
        manifests[tech] = debias_lm(tech, args.model, args.work / tech, overwrite=True,
                                    **opts)
        timing[f"debias {tech}"] = time.perf_counter() - t0
        print(f"{tech}: {timing[f'debias {tech}']:.1f} s", flush=True)
    sents = heldout_sentences(args.heldout, skip=args.docs + 1000)
    results: dict[str, dict[str, Result]] = {}
    for name, spec in [("base", args.model), *[(t, str(args.work / t)) for t in techs]]:
        t0 = time.perf_counter()
        model = gs.load_model(spec, store=args.store)
        results[name] = run_all(model, args, sents)
        timing[f"measures on {name}"] = time.perf_counter() - t0
        print(f"measures on {name}: {timing[f'measures on {name}']:.1f} s", flush=True)
    rows = []
    for meas, (_, key, value, label) in MEASURES.items():
        for tech in techs:
            before, after = (_as_float(results[m][meas], value) for m in ("base", tech))
            cmp = gs.compare(before, after, key=key, value=value, seed=args.seed,
                             record=False)
            t = cmp.tables["change_by_group"]
            row = t[t.iloc[:, 0].astype(str).str.contains("all")].iloc[0] if len(t) > 1 \
                else t.iloc[0]
            s = SCALE[meas]
            rows.append({"measure": label, "technique": tech, "n": int(row["n"]),
                         "before": row["mean_before"] * s, "after": row["mean_after"] * s,
                         "change": row["change"] * s, "ci_low": row["change_ci_low"] * s,
                         "ci_high": row["change_ci_high"] * s, "ci_unit": row["ci_unit"],
                         "test": row.get("test"), "p": row.get("p_value")})
    table = pd.DataFrame(rows)
    table["p_holm"] = np.nan
    for _, idx in table.groupby("measure").groups.items():
        table.loc[idx, "p_holm"] = adjust_pvalues(table.loc[idx, "p"].to_numpy(float))
    write_page(args, table, manifests, results, timing)


def _as_float(res: Result, value: str | None) -> Result:
    """``res`` with a binary item value as 0/1 floats (its mean is a share)."""
    if value is None or value not in res.items:
        return res
    return Result(res.method, res.summary, res.items.assign(
        **{value: res.items[value].astype(float)}), metadata=res.metadata)


def _f(x: float, d: int = 2) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def write_page(args: argparse.Namespace, table: pd.DataFrame, manifests: dict,
               results: dict, timing: dict[str, float]) -> None:
    ppl = {k: v["perplexity"].summary["perplexity"] for k, v in results.items()}
    lines = [
        "# INLP, SentenceDebias and Self-Debias on SmolLM2-135M (before/after)", "",
        "Generated by `flock /tmp/gs-heavy.lock python benchmarks/debias_smollm2.py` "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, 2-core CPU, shared with "
        "other jobs). Model: SmolLM2-135M-Instruct (GGUF Q4_1, de-quantised), start token "
        "`<|endoftext|>`. Seeded subsets (seed "
        f"{args.seed}): CrowS-Pairs gender {args.crows} pairs, StereoSet intrasentence "
        f"gender {args.stereoset} items, BEC-Pro EN first {args.bec_pro} rows, "
        f"{len(results['base']['perplexity'].items)} held-out GAP sentences.", "",
        "## Estimation", "",
        f"- INLP: GAP's first {args.docs} passages, "
        f"{manifests['inlp']['data']['sentences']} sentences, {args.classifiers} "
        "LinearSVC classifiers; dev accuracy of the first / last classifier "
        f"{manifests['inlp']['estimate']['dev_accuracy'][0]:.3f} / "
        f"{manifests['inlp']['estimate']['dev_accuracy'][-1]:.3f} (majority share "
        f"{manifests['inlp']['estimate']['dev_majority_share']:.3f}); "
        f"{manifests['inlp']['estimate']['rank_removed']} of 576 dimensions removed.",
        f"- SentenceDebias: {manifests['sentence-debias']['data']['counterfactual_pairs']} "
        "counterfactual sentence pairs; the direction explains "
        f"{manifests['sentence-debias']['estimate']['explained_variance_ratio']:.3f} of "
        "the pairs' centred variance.",
        "- Self-Debias: bias-bench's gender prefix, λ = 50, ε = 0.01.",
        *([f"- Dropout: {manifests['dropout']['steps']} steps (batch 1, lr 2e-5) on sentences "
           f"of GAP's first {args.docs} passages with attention dropout 0.15; mean loss "
           f"first / last 10 % {manifests['dropout']['loss_first_10pct']:.3f} / "
           f"{manifests['dropout']['loss_last_10pct']:.3f}."] if "dropout" in manifests
          else []), "",
        "## Changes (after − before), 95% bootstrap CI over items (professions for BEC-Pro)",
        "", "Paired test as `genderscope compare`; p (Holm) adjusts the techniques of one "
        "measure as one family.", "",
        "| measure | technique | n | before | after | change [95% CI] | test | p | p (Holm) |",
        "|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| {r.measure} | {r.technique} | {r.n} | {_f(r.before)} | "
                     f"{_f(r.after)} | {_f(r.change)} [{_f(r.ci_low)}, {_f(r.ci_high)}] | "
                     f"{r.test} | {_f(r.p, 3)} | {_f(r.p_holm, 3)} |")
    lines += ["", "Perplexity of the held-out sentences (exp of total NLL / tokens): " +
              ", ".join(f"{k} {v:.2f}" for k, v in ppl.items()) + ".", "",
              "## Time (seconds, wall clock on the shared machine)", "",
              "| step | s |", "|---|---|"]
    lines += [f"| {k} | {v:.0f} |" for k, v in timing.items()]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(table.to_string())


if __name__ == "__main__":
    main()
