"""Swap all of GAP and compare with Bartl et al.'s flipped GAP; print a Markdown report.

Usage: PYTHONPATH=src python benchmarks/cds_gap_fidelity.py [DATA_DIR]
(DATA_DIR: the folder holding gap/; default: the one
``genderscope.datasets.locations.find_benchmark`` finds, ``$GENDERSCOPE_DATA`` first)
"""

from __future__ import annotations

import time
from pathlib import Path

from genderscope.swap import GenderSwapper
from genderscope.swap.fidelity import gap_fidelity


def main(data_dir: str) -> None:
    sw = GenderSwapper(tagger="heuristic")
    t0 = time.perf_counter()
    f = gap_fidelity(Path(data_dir), sw)
    secs = time.perf_counter() - t0
    print(f"documents: {f.n_docs}, compared position by position: {f.n_compared}; "
          f"token agreement over all tokens: {f.token_agreement:.4f}; "
          f"time {secs:.1f} s\n")
    cols = ["category", "ref_changed", "ours_changed", "both_changed", "either_changed",
            "exact", "agreement", "change_agreement"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in f.table.itertuples(index=False):
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in row]
        print("| " + " | ".join(cells) + " |")
    print("\nMost frequent disagreements (lower-cased; names left out):\n")
    print("| category | original | reference | ours | count |\n|---|---|---|---|---|")
    for row in f.patterns.head(25).itertuples(index=False):
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0]
                                 if __doc__ else None)
    ap.add_argument("data_dir", nargs="?", default=None)
    ap.add_argument("--device", default="cpu", choices=["cpu"],
                    help="CDS substitution runs no model; accepted for a uniform interface")
    from genderscope.datasets.locations import find_benchmark

    given = ap.parse_args().data_dir
    main(given or str(find_benchmark("gap").parent))
