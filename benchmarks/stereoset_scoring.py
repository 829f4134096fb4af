"""StereoSet masked-LM scoring: how often the reference, l2r and pll rules disagree.

Not a timing benchmark. Builds the bert-base-shaped masked LM with the real
bert-base-uncased vocabulary and seeded random weights (no pretrained masked LM
with its head is available offline; see docs/models.md), scores the StereoSet
gender items under each masked-LM scoring and prints:

- how many fillers have more than one word piece (only those can differ);
- SS and LMS per scoring, and how many items change their stereo-vs-anti or
  related-vs-unrelated outcome between scorings.

A random model's preferences mean nothing; the disagreement counts show that
the rules are not interchangeable. Run:

    python benchmarks/stereoset_scoring.py [--size base|tiny] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

from genderscope.datasets.stereoset import load_stereoset  # noqa: E402
from genderscope.measures.stereoset import (  # noqa: E402
    KINDS,
    SCORINGS,
    filled_context,
    run_stereoset,
)
from genderscope.models.masked import MaskedLM  # noqa: E402
from genderscope.models.testing import build_bert  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="base", choices=("base", "tiny"))
    ap.add_argument("--data", type=Path, default=None,
                    help="the stereoset folder (default: find_benchmark's lookup)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or mps")
    args = ap.parse_args()
    from genderscope.datasets.locations import find_benchmark

    items = load_stereoset(args.data or find_benchmark("stereoset"), bias_types=("gender",))
    with tempfile.TemporaryDirectory() as d:
        lm = MaskedLM.from_pretrained(build_bert(Path(d), size=args.size), device=args.device)
    tok = lm.tokenizer
    n_multi = 0
    for it in items:
        for s in it.sentences():
            text, spans = filled_context(it.context, s)
            n_multi += len(tok.tokenize(" ".join(text[a:b] for a, b in spans))) > 1
    print(f"gender items: {len(items)}; fillers with > 1 word piece: {n_multi} of "
          f"{3 * len(items)}")
    masked_rules = [sc for sc in SCORINGS if sc != "bias-bench"]  # bias-bench's rule is causal-only
    res = {sc: run_stereoset(lm, items, scoring=sc, n_resamples=200).items for sc in masked_rules}
    for sc, df in res.items():
        print(f"{sc:9s} stereo>anti {int(df.stereo_over_anti.sum()):3d}  "
              f"related {int(df.n_related.sum()):3d}")
    for a, b in (("reference", "l2r"), ("reference", "pll"), ("l2r", "pll")):
        x, y = res[a], res[b]
        print(f"{a} vs {b}: stereo>anti differs in "
              f"{int((x.stereo_over_anti != y.stereo_over_anti).sum())} items, related count "
              f"in {int((x.n_related != y.n_related).sum())} items")
    # one multi-piece filler, piece by piece
    for it in items:
        for kind, s in zip(KINDS, it.sentences(), strict=True):
            text, spans = filled_context(it.context, s)
            pieces = tok.tokenize(" ".join(text[a:b] for a, b in spans))
            if len(pieces) > 2:
                print(f"\nexample ({it.item_id}, {kind}): filler pieces {pieces}")
                for rule in ("l2r-drop", "l2r", "pll"):
                    lp = lm.span_logprobs([text], [spans], rule=rule)[0]
                    print(f"  {rule:8s} log P per piece {np.round(lp, 4).tolist()}  "
                          f"mean P {np.exp(lp).mean():.3e}  mean log P {lp.mean():.4f}")
                return


if __name__ == "__main__":
    main()
