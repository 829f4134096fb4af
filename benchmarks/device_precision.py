"""Numerical precision across devices and batch sizes (issue 36, item 5).

A run rescored on another device (CPU vs CUDA), at another batch size or in another
dtype moves each float32 score by rounding alone. ``genderscope compare`` must call such
a difference a tie (the measure's declared tolerance, docs/calibration.md, "Numerical
precision") and must still call a real change a change. This script scores the same
items twice for each pair of settings below, then prints, per pair: the largest
|difference| of the compared item value (``pairing.value`` of the measure's
declaration), how many items fall within the tolerance, and what ``compare`` concludes.

    python benchmarks/device_precision.py --device cuda [--gguf FILE] [--vocab FILE]
        [--limit N] [--json OUT]

Pairs (reference first): CPU vs ``--device`` at the default token budget; ``--device``
at one sequence per batch (``batch_size=1``) vs the default; on CUDA, float32 vs
bfloat16 (a real change of the scores: it must not read as a tie). Models: SmolLM2-135M
(``--gguf``, default the packaged ``smollm2``) for CrowS-Pairs, perplexity (GAP
sentences) and GAP; a bert-base-shaped BERT
with random weights and the real uncased vocabulary (built here, ``--vocab``) for
BEC-Pro. Nothing here is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
from benchrecord import machine  # noqa: E402

CAUSAL = (("crows-pairs", {"bias_type": "gender"}), ("perplexity", {}), ("gap", {}))
MASKED = (("bec-pro", {}),)


def build_bert(folder: Path, vocab: Path | None) -> Path:
    """A bert-base-shaped random BertForMaskedLM (seed 0) with the uncased vocabulary."""
    if vocab is None:
        from genderscope.models.testing import build_bert as build

        return build(folder, size="base")
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    tok = BertTokenizerFast(vocab=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    BertForMaskedLM(BertConfig(vocab_size=len(tok))).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def one_pair(measure: str, options: dict[str, Any], spec: str, a: dict[str, Any],
             b: dict[str, Any], store: Path) -> dict[str, Any]:
    """Score ``measure`` under settings ``a`` and ``b``; the compared values' largest
    |difference|, the ties and ``compare``'s verdict."""
    import genderscope as gs
    from genderscope.engine import declared
    from genderscope.measures.compare import _derive, compare_runs, tolerance_of
    from genderscope.models.loading import load_lm

    store.mkdir(parents=True, exist_ok=True)
    runs = []
    for i, s in enumerate((a, b)):
        lm = load_lm(spec, device=s["device"], dtype=s.get("dtype", "float32"),
                     batch_size=s.get("batch_size"))  # no store: every score computed
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs.append(gs.run(measure, model=lm, store=store / f"{measure}-{i}.sqlite",
                               reuse=False, **options))
    pairing = declared(measure).pairing  # every measure here declares one
    key, value = list(pairing.key), pairing.value
    x, y = (_derive(r.items, measure).set_index(key)[value].astype(float)
            for r in runs)
    y = y.reindex(x.index)
    diff = np.abs((y - x).to_numpy())
    tol = tolerance_of(measure)
    within = diff <= tol.atol + tol.rtol * np.maximum(np.abs(x.to_numpy()),
                                                      np.abs(y.to_numpy()))
    cmp = compare_runs(runs[0], runs[1], n_resamples=999).tables["change_by_group"]
    return {"measure": measure, "a": a, "b": b, "value": value, "n": int(diff.size),
            "max_abs_diff": float(np.nanmax(diff)), "median_abs_diff": float(np.nanmedian(diff)),
            "within_tolerance": int(within.sum()), "tolerance": tol.describe(),
            "compare": [{"group": str(r.get("group", "")), "test": r["test"],
                         "change": float(r["change"]), "p_value": float(r["p_value"]),
                         "n_ties": int(r["n_ties"]), "n": int(r["n"])}
                        for _, r in cmp.iterrows()]}


def pairs_for(device: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(reference, other) settings compared for each measure."""
    out = [({"device": "cpu"}, {"device": device}),
           ({"device": device, "batch_size": 1}, {"device": device})]
    if device.startswith("cuda"):
        out.append(({"device": device}, {"device": device, "dtype": "bfloat16"}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--gguf", default="smollm2", help="SmolLM2 GGUF file (or 'smollm2')")
    ap.add_argument("--vocab", type=Path, default=None, help="bert-base-uncased vocab.txt")
    ap.add_argument("--limit", type=int, default=300, help="items per measure")
    ap.add_argument("--json", type=Path, default=None, help="write the rows here")
    ap.add_argument("--only", default=None, help="comma-separated measures")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bert = build_bert(work / "bert", args.vocab)
        cases = [(m, o, args.gguf) for m, o in CAUSAL] + [(m, o, str(bert)) for m, o in MASKED]
        for measure, options, spec in cases:
            if only and measure not in only:
                continue
            for a, b in pairs_for(args.device):
                try:
                    row = one_pair(measure, {**options, "limit": args.limit}, spec, a, b,
                                   work / f"s{len(rows)}")
                except Exception as e:  # noqa: BLE001 - report it and go on to the next
                    print(f"{measure:12s} {a} vs {b}: FAILED {type(e).__name__}: {e}")
                    continue
                rows.append(row)
                verdict = "; ".join(f"{c['test']} ({c['n_ties']}/{c['n']} ties)"
                                    for c in row["compare"])
                print(f"{measure:12s} {a} vs {b}: max |d {row['value']}| "
                      f"{row['max_abs_diff']:.3g} (median {row['median_abs_diff']:.3g}), "
                      f"{row['within_tolerance']}/{row['n']} within {row['tolerance']}; "
                      f"compare: {verdict}", flush=True)
    report = {"machine": machine(args.device), "limit": args.limit, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
