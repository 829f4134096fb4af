"""SEAT before/after on SmolLM2-135M and its debiased folders (the ones
benchmarks/debias_smollm2.py wrote): prints the markdown tables of
docs/results/debias_smollm2.md's SEAT section.

    flock /tmp/gs-heavy.lock python benchmarks/debias_smollm2_seat.py

Each model is read as bias-bench reads a language model for SEAT (the last hidden state,
mean-pooled over every token, normalised; a debias folder's projection applied;
:mod:`genderscope.models.lm_encoder`). For each of bias-bench's six gender tests
(sent-weat6/6b/7/7b/8/8b): the effect size d with its t interval over source words before
and after, and ``gs.compare`` of the per-target associations by target set (cluster t
interval over source words, paired test over source-word means); the techniques of one
test and set are one Holm family.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import genderscope as gs
from genderscope.models.lm_encoder import LMSentenceEncoder
from genderscope.stats import adjust_pvalues
from genderscope.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from debias_smollm2 import STORE, WORK  # noqa: E402

TESTS = ("sent-weat6", "sent-weat6b", "sent-weat7", "sent-weat7b", "sent-weat8",
         "sent-weat8b")
TECHS = ("inlp", "sentence-debias", "self-debias", "dropout")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--work", type=Path, default=WORK)
    ap.add_argument("--store", default=str(STORE))
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--tests-dir", type=Path, default=None)
    args = ap.parse_args()
    techs = [t for t in TECHS if (args.work / t / "manifest.json").is_file()]
    results: dict[str, dict[str, object]] = {}
    timing = {}
    store = Store(args.store)
    for name, spec in [("base", args.model), *[(t, str(args.work / t)) for t in techs]]:
        t0 = time.perf_counter()
        enc = LMSentenceEncoder.load(spec, store=store)
        results[name] = {t: gs.run("seat", model=enc, test=t, tests_dir=args.tests_dir,
                                   store=store) for t in TESTS}
        timing[name] = time.perf_counter() - t0
        print(f"{name}: {timing[name]:.1f} s (encoded {enc.n_encoded} sentences)",
              flush=True)
    d_rows, c_rows = [], []
    for test in TESTS:
        base = results["base"][test]
        for tech in techs:
            after = results[tech][test]
            eb, ea = base.summary["effect_size"], after.summary["effect_size"]
            d_rows.append({"test": test, "technique": tech, "d_before": eb["estimate"],
                           "lo_b": eb["ci_low"], "hi_b": eb["ci_high"],
                           "p_before": base.summary["p_value"], "d_after": ea["estimate"],
                           "lo_a": ea["ci_low"], "hi_a": ea["ci_high"],
                           "p_after": after.summary["p_value"]})
            cmp = gs.compare(base, after, record=False)
            t = cmp.tables["change_by_group"]
            for _, r in t[t["set"] != "(all)"].iterrows():
                c_rows.append({"test": test, "set": r["set"], "technique": tech,
                               "n_units": int(r["n_units"]), "change": r["change"],
                               "lo": r["change_ci_low"], "hi": r["change_ci_high"],
                               "test_name": r["test"], "p": r["p_value"]})
    d = pd.DataFrame(d_rows)
    c = pd.DataFrame(c_rows)
    c["p_holm"] = np.nan
    for _, idx in c.groupby(["test", "set"]).groups.items():
        c.loc[idx, "p_holm"] = adjust_pvalues(c.loc[idx, "p"].to_numpy(float))
    print("\n| test | technique | d before [95% CI] | p before | d after [95% CI] | "
          "p after |\n|---|---|---|---|---|---|")
    for r in d.itertuples():
        print(f"| {r.test} | {r.technique} | {r.d_before:.2f} [{r.lo_b:.2f}, {r.hi_b:.2f}] "
              f"| {r.p_before:.3g} | {r.d_after:.2f} [{r.lo_a:.2f}, {r.hi_a:.2f}] | "
              f"{r.p_after:.3g} |")
    mean_abs = {"base": float(np.mean([abs(results["base"][t].summary["effect_size"][
        "estimate"]) for t in TESTS]))}
    for tech in techs:
        mean_abs[tech] = float(np.mean([abs(results[tech][t].summary["effect_size"][
            "estimate"]) for t in TESTS]))
    print("\nmean |d| over the six tests: " + ", ".join(f"{k} {v:.3f}"
                                                         for k, v in mean_abs.items()))
    print("\n| test | set | technique | source words | change in association [95% CI] | "
          "test | p | p (Holm) |\n|---|---|---|---|---|---|---|---|")
    for r in c.itertuples():
        print(f"| {r.test} | {r.set} | {r.technique} | {r.n_units} | {r.change:.4f} "
              f"[{r.lo:.4f}, {r.hi:.4f}] | {r.test_name} | {r.p:.3g} | {r.p_holm:.3g} |")
    print("\nseconds: " + ", ".join(f"{k} {v:.0f}" for k, v in timing.items()))


if __name__ == "__main__":
    main()
