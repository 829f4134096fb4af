"""Sizes of the differences between genderscope's default LM-debias features and
``--features bias-bench`` on SmolLM2-135M and GAP's first 400 passages (docs/measures/
debiasing.md, "Differences from bias-bench"). Prints one line per figure.

    python benchmarks/bias_bench_differences.py

Then ``python benchmarks/debias_downstream.py`` runs the downstream probe on SmolLM2 and
the folders written here (the default-feature ones) and a Self-Debias folder.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from genderscope.datasets.corpus import load_corpus
from genderscope.lm_debias.attribute_data import (
    counterfactual_pairs,
    inlp_sentences,
    load_word_pairs,
)
from genderscope.lm_debias.estimate import debias_lm
from genderscope.models.debias_folder import load_projection, read_manifest


def removed_basis(p: np.ndarray, k: int) -> np.ndarray:
    """An orthonormal basis of the k directions the projection p removes."""
    w, v = np.linalg.eigh(np.eye(len(p)) - p)
    return v[:, np.argsort(w)[::-1][:k]]


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    docs = load_corpus("gap", limit=400).texts
    pairs = load_word_pairs()[0]
    a = inlp_sentences(docs, pairs, n_per_class=100, seed=0)
    b = inlp_sentences(docs, pairs, n_per_class=100, seed=0, rule="bias-bench")
    same = sum(x == y for g in ("male", "female", "neutral")
               for x, y in zip(getattr(a, g), getattr(b, g), strict=False))
    print("inlp sentences identical at the same place:", same, "of", 300, flush=True)
    cfa = counterfactual_pairs(docs, pairs, limit=None)
    cfb = counterfactual_pairs(docs, pairs, limit=None, rule="bias-bench")
    print("sentence-debias pairs from 400 GAP passages: default", len(cfa), "bias-bench",
          len(cfb), "pairs in common", len(set(cfa) & set(cfb)), flush=True)
    for tech, kw, k in (("sentence-debias", {"max_pairs": 100}, 1),
                        ("inlp", {"n_per_class": 100, "n_classifiers": 10}, 30)):
        ps = {}
        for feats in ("genderscope", "bias-bench"):
            out = tmp / f"{tech}-{feats}"
            t0 = time.time()
            m = debias_lm(tech, "smollm2", out, limit=400, features=feats, **kw)
            ps[feats] = load_projection(out, read_manifest(out)).astype(np.float64)
            print(tech, feats, "data", m["data"].get("counterfactual_pairs",
                                                     m["data"].get("sentences")),
                  "left out", m["data"].get("pairs_left_out"), f"{time.time()-t0:.0f}s",
                  flush=True)
        d = np.abs(ps["genderscope"] - ps["bias-bench"]).max()
        qa, qb = removed_basis(ps["genderscope"], k), removed_basis(ps["bias-bench"], k)
        cos = np.linalg.svd(qa.T @ qb, compute_uv=False)
        print(tech, "projection max abs difference", f"{d:.3g}", "principal-angle cosines min",
              f"{cos.min():.3g}", "max", f"{cos.max():.3g}", flush=True)


if __name__ == "__main__":
    main()
