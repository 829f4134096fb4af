"""Calibration of ``genderscope compare`` of two PLAIN runs of a word-vector metric
(``genderscope run weat|ripa|rnd|ect|mac --out ...`` on two vector files, then compare of
the two folders; issue 36, row 2): the runs record their word rows, so compare tests the
change with its crossed design (words crossed with the word sets they share) instead of
treating the per-word items as independent. Before and after are two noisy copies of the
same vectors (tests/calibration_sims_debias.world: 8 + 8 target words, 8 + 8 attribute
words, 20 dimensions, independent N(0, 0.5^2) noise per word): no change, so the test of
no change over all items should reject in about 5 % of runs."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from calibration_sims import Row
from calibration_sims_debias import FPR, METRICS, world
from calibration_size import Runs, runs

ALPHA = 0.05
FAST = {"weat": {}, "ripa": {"resamples": 100}, "rnd": {"resamples": 100},
        "ect": {"resamples": 100}, "mac": {"resamples": 100}}
"""The runs' options: the fewest bootstrap resamples (the change compared reads none)."""


def plain_compare_rows(sims: int, seed: int = 3624) -> list[Row]:
    """One FPR row per metric: compare (``compare_runs`` of the two ``--out`` folders, as
    the command reads them; its test only) of plain runs (``genderscope.run``, the path of
    ``genderscope run``) on two noisy copies of the same vectors."""
    from genderscope.engine import run
    from genderscope.measures.compare import compare_runs, load_result_dir
    from genderscope.measures.vector_change import DESIGNS

    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(METRICS, 0)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(sims):
            before, after, test = world(rng)
            for m in METRICS:
                folders = [Path(tmp) / f"{i}-{m}-{side}" for side in ("before", "after")]
                for vecs, folder in zip((before, after), folders, strict=True):
                    run(m, vecs, store=Path(tmp) / "s.sqlite", test=test, out=folder,
                        reuse=False, record=False, **FAST[m])
                res = compare_runs(*map(load_result_dir, folders), interval=False)
                assert res.summary.get("design") == DESIGNS[m].describe(), m
                rows = res.tables["change_by_group"].set_index("set")
                hits[m] += int(rows.loc["(all)", "p_value"] < ALPHA)
    design = ("8 + 8 target words, 8 + 8 attribute words, 20 dimensions; the same vectors "
              "before and after, each with independent N(0, 0.5^2) noise; two plain runs "
              "saved and compared")
    return [Row(f"compare-plain-{m}-all-null-8-8", design,
                f"compare of two plain {m.upper()} runs: change over all items, t test of "
                "no change (crossed design)", "FPR", sims, hits[m],
                "tests/stats/test_calibration_plain_compare.py::"
                "test_compare_of_plain_runs_is_sized") for m in METRICS]


@pytest.mark.parametrize("runs", runs(100, 600))
def test_compare_of_plain_runs_is_sized(runs: Runs) -> None:
    """Every metric's false-positive rate reaches [0.03, 0.07] (CI run: its Wilson
    interval; full run: the rate itself; 600 runs: WEAT 0.033, RIPA 0.030, RND 0.032, ECT
    0.032, MAC 0.043). Before plain runs recorded their word rows, compare of them fell
    back to the items-alone bootstrap-t (0.09-0.35 in such worlds:
    tests/stats/test_calibration_vector_debias.py), and the design check here fails."""
    rows = plain_compare_rows(runs.sims)
    for r in rows:
        lo, hi = r.wilson()
        print(f"{r.key}: FPR {r.rate:.3f} [{lo:.3f}, {hi:.3f}] over {r.sims}")
    assert all(runs.meets(r.rate, FPR) for r in rows), [(r.key, r.rate) for r in rows]
