"""One measurement is one stored run, whichever of ``run``, ``report`` and ``sweep`` made
it (issue 27): a report card runs its measure through the measure's plan
(:func:`genderscope.api.run`, the function behind ``genderscope run``) and the three
share the plan's reuse key. Tiny GPT-2 from tests/conftest.py, the test data set."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.reporting.entry import Context
from genderscope.reporting.registry import measures
from genderscope.results import to_json
from genderscope.store import Store

SEED = 3
RUN_ARGS = {
    "crows-pairs": ["--bias-type", "gender", "--limit", "40", "--subset-seed", str(SEED)],
    "stereoset": ["--bias-type", "gender", "--limit", "30", "--subset-seed", str(SEED),
                  "--seed", str(SEED), "--resamples", "1000"],
    "winobias": ["--limit", "40", "--subset-seed", str(SEED), "--seed", str(SEED),
                 "--resamples", "1000"],
    "bec-pro": ["--professions", "2", "--templates", "2", "--subset-seed", str(SEED),
                "--seed", str(SEED), "--resamples", "1000", "--no-plot"],
    "lpbs": ["--test", "career-family", "--permutations", "10000", "--seed", str(SEED),
             "--resamples", "1000"],
}
"""``genderscope run`` options that ask for what a ``--quick --seed SEED`` report's card
asks for (the --quick subsets of docs/report.md)."""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `run bec-pro` writes ./genderscope-results/bec-pro


def _runs(path: Path) -> list[tuple[str, str, str]]:
    con = sqlite3.connect(path)
    rows = con.execute("SELECT run_id, method, cache_key FROM runs ORDER BY method").fetchall()
    con.close()
    return rows


def _cli(*args: str) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def _run(measure: str, model: Path, store: Path) -> dict:
    out = _cli("run", measure, "--model", str(model), *RUN_ARGS[measure], "--store",
               str(store), "--no-progress", "--json")
    return json.loads(out)


def _report(measure: str, model: Path, store: Path, page: Path) -> None:
    _cli("report", "--model", str(model), "--quick", "--seed", str(SEED), "--measure",
         measure, "--store", str(store), "--out", str(page), "--no-progress")


def _same(a, b) -> None:
    assert a.summary == b.summary
    pd.testing.assert_frame_equal(a.items.reset_index(drop=True),
                                  b.items.reset_index(drop=True), check_exact=True)
    assert a.tables.keys() == b.tables.keys()
    for t in a.tables:
        pd.testing.assert_frame_equal(a.tables[t], b.tables[t], check_exact=True)


@pytest.mark.slow
@pytest.mark.parametrize("measure", list(RUN_ARGS))
def test_run_then_report_is_one_stored_run(measure: str, tmp_path: Path,
                                           tiny_gpt2_dir: Path) -> None:
    from genderscope.api import report

    path = tmp_path / "s.sqlite"
    first = _run(measure, tiny_gpt2_dir, path)
    assert not first["reused"]
    (run_id, method, key), = _runs(path)
    assert method == measure and key.startswith("run:")  # the plan's key

    _report(measure, tiny_gpt2_dir, path, tmp_path / "page.html")
    assert _runs(path) == [(run_id, method, key)]  # one run in the store, not two

    st = Store(path)
    try:  # the page's section is that run, and its numbers are the run's numbers
        data = report([str(tiny_gpt2_dir)], tmp_path / "again.html", quick=True, seed=SEED,
                      measures=[measure], store=st)
        sec, = data.sections
        assert sec.status == "ok" and sec.reused and sec.run_id == run_id
        _same(sec.result, st.load_run(run_id))
        assert sec.result.summary == json.loads(json.dumps(first["summary"]))
    finally:
        st.close()
    assert _runs(path) == [(run_id, method, key)]


@pytest.mark.slow
def test_report_first_then_run_reuses_the_report_run(tmp_path: Path,
                                                     tiny_gpt2_dir: Path) -> None:
    path = tmp_path / "s.sqlite"
    _report("crows-pairs", tiny_gpt2_dir, path, tmp_path / "page.html")
    (run_id, _, _), = _runs(path)
    again = _run("crows-pairs", tiny_gpt2_dir, path)
    assert again["reused"] and again["run_id"] == run_id
    assert len(_runs(path)) == 1
    # another subset seed is another measurement
    other = json.loads(_cli("run", "crows-pairs", "--model", str(tiny_gpt2_dir), "--limit",
                            "40", "--subset-seed", str(SEED + 1), "--bias-type", "gender",
                            "--store", str(path), "--no-progress", "--json"))
    assert not other["reused"] and len(_runs(path)) == 2


@pytest.mark.slow
def test_sweep_job_computes_the_same_run_under_the_same_key(tmp_path: Path, data_dir: Path,
                                                            tiny_gpt2_dir: Path) -> None:
    """A sweep worker (no store of its own, nothing reused) computes the numbers ``run``
    stored, under the same key: the driver would record one run."""
    from genderscope.sweep.jobs import JobPayload, measure_context, run_model_job
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    path = tmp_path / "s.sqlite"
    stored = {m: _run(m, tiny_gpt2_dir, path) for m in ("crows-pairs", "winobias")}
    spec = SweepSpec(models=[ModelSpec(str(tiny_gpt2_dir))],
                     measures=[MeasureSpec(m) for m in stored], quick=True, seed=SEED,
                     cpus_per_job=1).check()
    payload = JobPayload(spec.models[0], [(m, measure_context(spec, MeasureSpec(m)))
                                          for m in stored], "cpu", "float32", "auto", None)
    out = run_model_job(payload)
    st = Store(path)
    try:
        for mo in out.measures:
            assert mo.status == "ok", mo.reason
            ref = st.load_run(stored[mo.name]["run_id"])
            assert mo.result.metadata["cache_key"] == ref.metadata["cache_key"]
            _same(mo.result, ref)
    finally:
        st.close()


@pytest.mark.slow
def test_sweep_reuses_the_run_of_genderscope_run(tmp_path: Path, tiny_gpt2_dir: Path) -> None:
    ray = pytest.importorskip("ray")
    from genderscope.sweep import driver
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    path = tmp_path / "s.sqlite"
    first = _run("crows-pairs", tiny_gpt2_dir, path)
    before = _runs(path)
    spec = SweepSpec(models=[ModelSpec(str(tiny_gpt2_dir))],
                     measures=[MeasureSpec("crows-pairs"), MeasureSpec("winobias")],
                     quick=True, seed=SEED, cpus_per_job=1).check()
    ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    st = Store(path)
    try:
        swept = driver.run_sweep(spec, st)
        crows = swept.statuses[(str(tiny_gpt2_dir), "crows-pairs")]
        assert crows.status == "skipped" and crows.run_id == first["run_id"]
        assert swept.statuses[(str(tiny_gpt2_dir), "winobias")].status == "done"
        assert swept.ran == 1  # one task, for winobias only
        runs = _runs(path)
        assert len(runs) == 2 and before[0] in runs
        # and a report of both reuses both: still two runs
        from genderscope.api import report

        data = report([str(tiny_gpt2_dir)], tmp_path / "p.html", quick=True, seed=SEED,
                      measures=["crows-pairs", "winobias"], store=st)
        assert all(s.reused for s in data.sections) and _runs(path) == runs
        assert {s.run_id for s in data.sections} == {r[0] for r in runs}
        again = driver.run_sweep(spec, st)
        assert again.ran == 0 and again.count("skipped") == 2
    finally:
        st.close()
        ray.shutdown()


def test_converted_cards_load_no_data_themselves() -> None:
    """The cards of the common measures name a plan (a card has no run of its own)."""
    reg = measures()
    from genderscope.reporting.cards.chat_probes import ENTRIES

    for name in ("crows-pairs", "stereoset", "winobias", "dawinobias", "bec-pro", "lpbs",
                 "probe", *(e.name for e in ENTRIES)):
        assert reg[name].plan is not None, name
    for name in ("weat", "seat", "ripa", "rnd", "ect", "mac", "rnsb"):  # one plan per test
        entry = reg[name]
        assert entry.plans is not None and entry.combine is not None
        assert [o["test"] for _, o in entry.plans(Context(quick=True))] == \
            [("sent-" if name == "seat" else "") + f"weat{k}" for k in (6, 7, 8)]


def test_peeking_opens_only_models_the_store_has_seen(tmp_path: Path,
                                                     tiny_gpt2_dir: Path) -> None:
    """How the sweep driver tells a plan's key without loading a model."""
    from genderscope.models.loading import load_lm
    from genderscope.models.memo import WouldLoad, peeking

    st = Store(tmp_path / "s.sqlite")
    try:
        with peeking(), pytest.raises(WouldLoad):
            load_lm(str(tiny_gpt2_dir), store=st)
        eager = load_lm(str(tiny_gpt2_dir), store=st)  # writes the memo
        with peeking():
            lazy = load_lm(str(tiny_gpt2_dir), store=st)
        assert eager.loaded and not lazy.loaded
        assert lazy.describe()["fingerprint"] == eager.describe()["fingerprint"]
    finally:
        st.close()


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from genderscope.models.testing import build_chat_llama

    return build_chat_llama(tmp_path_factory.mktemp("chat") / "m")


def _only_report(names: list[str], store: Path, page: Path, **models: list[str]):  # type: ignore[no-untyped-def]
    """``gs.report`` of ``names`` (--quick, seed SEED) on ``store``: its sections."""
    from genderscope.api import report

    st = Store(store)
    try:
        data = report(out=page, quick=True, seed=SEED, measures=names, store=st, **models)
        return {s.measure.name: s for s in data.sections}
    finally:
        st.close()


def _one_run_each(store: Path, stored: dict[str, dict], sections: dict) -> None:
    """Each ``gs.run`` run is the report's section: reused, same id, same numbers, and
    the store holds those runs and no other."""
    st = Store(store)
    try:
        for name, first in stored.items():
            sec = sections[name]
            assert sec.status == "ok" and sec.reused, (name, sec.reason)
            assert sec.run_id == first["run_id"], name
            _same(sec.result, st.load_run(first["run_id"]))
            assert json.loads(to_json(sec.result.summary)) == first["summary"], name
    finally:
        st.close()
    assert sorted(r[0] for r in _runs(store)) == sorted(f["run_id"] for f in stored.values())


@pytest.mark.slow
def test_chat_probe_run_then_report_is_one_stored_run(tmp_path: Path,
                                                      chat_model: Path) -> None:
    """A GenderBench chat probe card runs its probe's plan: ``gs.run`` with the card's
    --quick options (12 items, subset seed 123 + SEED, max_new_tokens 48, 1,000
    resamples), then the report, leave one stored run."""
    import genderscope as gs
    from genderscope.reporting.cards.chat_probes import DECODING

    path = tmp_path / "s.sqlite"
    first = gs.run("direct", str(chat_model), store=path, limit=12, subset_seed=123 + SEED,
                   seed=SEED, resamples=1000, **DECODING)
    assert not first.metadata.get("reused") and len(_runs(path)) == 1
    stored = {"direct": {"run_id": first.metadata["run_id"],
                         "summary": json.loads(first.to_json())["summary"]}}
    sections = _only_report(["direct"], path, tmp_path / "p.html", models=[str(chat_model)])
    _one_run_each(path, stored, sections)
    assert sections["direct"].result.metadata["data"]["subset"]["n"] == 12


def test_probe_run_then_report_is_one_stored_run(tmp_path: Path, tiny_gpt2_dir: Path) -> None:
    """The template probe card runs the probe plan on the --quick seeded 12 professions:
    ``gs.run("probe", targets=...)`` then the report leave one stored run."""
    import genderscope as gs
    from genderscope.catalog._common import subset
    from genderscope.reporting.cards.probe import profession_targets

    path = tmp_path / "s.sqlite"
    targets = subset(profession_targets(), 12, SEED)
    first = gs.run("probe", str(tiny_gpt2_dir), store=path, targets=targets)
    assert not first.metadata.get("reused") and len(_runs(path)) == 1
    stored = {"probe": {"run_id": first.metadata["run_id"],
                        "summary": json.loads(first.to_json())["summary"]}}
    sections = _only_report(["probe"], path, tmp_path / "p.html",
                            models=[str(tiny_gpt2_dir)])
    _one_run_each(path, stored, sections)
    assert sorted(sections["probe"].result.items["target"]) == sorted(targets)


# -- cards that run several plans (one per test): WEAT, SEAT, the WEFE metrics ------------
MULTI_ARGS = {"weat": ["--permutations", "10000", "--seed", str(SEED)],
              "ripa": ["--permutations", "1000", "--resamples", "1000", "--seed", str(SEED)]}
"""``genderscope run M --test T`` options of one test of a ``--quick --seed SEED`` card."""


@pytest.fixture(scope="module")
def weat_vectors(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """GloVe-format vectors (seeded, 8 dimensions) of every word of WEAT 6, 7, 8."""
    import numpy as np

    from genderscope.datasets.seat import resolve_test

    words = sorted({w.lower() for t in ("weat6", "weat7", "weat8") for ws in
                    resolve_test(t, data_dir / "seat" / "tests").sets() for w in ws.examples})
    rows = np.random.default_rng(11).normal(size=(len(words), 8))
    path = tmp_path_factory.mktemp("vec") / "vec.txt"
    path.write_text("".join(w + " " + " ".join(f"{x:.6f}" for x in r) + "\n"
                            for w, r in zip(words, rows, strict=True)))
    return path


def _run_test(measure: str, test: str, vectors: Path, store: Path) -> dict:
    out = _cli("run", measure, "--vectors", str(vectors), "--test", test,
               *MULTI_ARGS[measure], "--store", str(store), "--no-progress", "--json")
    return json.loads(out)


@pytest.mark.slow
@pytest.mark.parametrize("measure", list(MULTI_ARGS))
def test_multi_plan_card_reuses_the_runs_of_genderscope_run(measure: str, tmp_path: Path,
                                                            weat_vectors: Path) -> None:
    """``run weat --test weat6`` then the report's WEAT card (weat6, 7, 8): the card's
    weat6 is that stored run, weat7 and 8 are stored as one run each (three runs, not
    four), and ``run --test weat7`` afterwards reuses the report's run."""
    path = tmp_path / "s.sqlite"
    first = _run_test(measure, "weat6", weat_vectors, path)
    (id6, method, key6), = _runs(path)
    assert method == measure and first["runs"] == {"weat6": id6}
    sections = _only_report([measure], path, tmp_path / "p.html", vectors=[str(weat_vectors)])
    sec = sections[measure]
    assert sec.status == "ok", sec.reason
    assert [p.metadata["run_id"] for p in sec.parts][0] == id6 and len(sec.parts) == 3
    runs = _runs(path)
    assert len(runs) == 3 and (id6, method, key6) in runs  # one stored run per test
    assert sec.run_id == ", ".join(p.metadata["run_id"] for p in sec.parts)
    st = Store(path)
    try:
        for part in sec.parts:  # the section's numbers are the stored runs' numbers
            _same(part, st.load_run(part.metadata["run_id"]))
        six = st.load_run(id6)
    finally:
        st.close()
    # the stored run's own numbers (its headlines read alone) are the section's weat6 rows
    alone = [(h.label, h.estimate, h.ci_low, h.ci_high, h.p_value)
             for h in measures()[measure].headlines(six)]
    assert alone and alone == [(h.label, h.estimate, h.ci_low, h.ci_high, h.p_value)
                               for h in sec.headlines if h.label.startswith("weat6:")]
    again = _run_test(measure, "weat7", weat_vectors, path)  # `run` after the report
    ids7 = {r[0] for r in runs} - {id6}
    assert again["runs"]["weat7"] in ids7 and _runs(path) == runs


def test_weat_holm_family_is_the_card_s(tmp_path: Path, weat_vectors: Path) -> None:
    """The card adjusts the three tests' p over their family (Holm, as before), whatever
    family the stored runs were adjusted over (``run --test weat6 --test weat7``: two)."""
    from genderscope.stats import adjust_pvalues

    path = tmp_path / "s.sqlite"
    _cli("run", "weat", "--vectors", str(weat_vectors), "--test", "weat6", "--test", "weat7",
         *MULTI_ARGS["weat"], "--store", str(path), "--no-progress", "--json")
    sec = _only_report(["weat"], path, tmp_path / "p.html", vectors=[str(weat_vectors)])["weat"]
    assert len(_runs(path)) == 3
    tests = sec.result.summary["tests"]
    raw = [tests[t]["p_value"] for t in ("weat6", "weat7", "weat8")]
    assert [tests[t]["p_adjusted"] for t in ("weat6", "weat7", "weat8")] == \
        pytest.approx(list(adjust_pvalues(raw, "holm")))
    assert {tests[t]["family"] for t in tests} == {"WEAT gender tests weat6, weat7, weat8"}
    assert [h.p_adjusted for h in sec.headlines] == \
        pytest.approx(list(adjust_pvalues(raw, "holm")))


@pytest.mark.slow
def test_sweep_reuses_and_records_multi_plan_runs(tmp_path: Path, weat_vectors: Path) -> None:
    """A sweep of weat + ripa skips what ``run`` and the report stored (no job), and into
    a fresh store records one run per test under the keys ``run`` finds afterwards; the
    sweep's page shows the report's numbers."""
    from genderscope.sweep import driver
    from genderscope.sweep.report import report_data
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    spec = SweepSpec(models=[ModelSpec(str(weat_vectors), kind="vectors")],
                     measures=[MeasureSpec("weat"), MeasureSpec("ripa")], quick=True,
                     seed=SEED, cpus_per_job=1).check()
    path = tmp_path / "s.sqlite"
    first = _run_test("weat", "weat6", weat_vectors, path)
    reported = _only_report(["weat", "ripa"], path, tmp_path / "p.html",
                            vectors=[str(weat_vectors)])
    runs = _runs(path)
    assert len(runs) == 6
    st = Store(path)
    try:
        swept = driver.run_sequential(spec, st)
        assert swept.ran == 0 and swept.count("skipped") == 2 and _runs(path) == runs
        weat = swept.statuses[(str(weat_vectors), "weat")]
        assert weat.run_ids[0] == first["runs"]["weat6"] and len(weat.run_ids) == 3
        page = report_data(spec, swept, st, "test")
        for sec in page.sections:
            ref = reported[sec.measure.name]
            assert sec.status == "ok" and sec.run_id == ref.run_id
            assert sec.result.summary == ref.result.summary
            assert [h.p_adjusted for h in sec.headlines] == [h.p_adjusted for h in ref.headlines]
    finally:
        st.close()

    fresh = tmp_path / "fresh.sqlite"  # the sweep first, then `run`
    st = Store(fresh)
    try:
        swept = driver.run_sequential(spec, st)
        assert swept.count("done") == 2 and len(_runs(fresh)) == 6
        assert sorted(r[2] for r in _runs(fresh)) == sorted(r[2] for r in runs)  # same keys
        for name in ("weat", "ripa"):
            status = swept.statuses[(str(weat_vectors), name)]
            for run_id, ref in zip(status.run_ids, reported[name].parts, strict=True):
                _same(st.load_run(run_id), ref)
    finally:
        st.close()
    again = _run_test("ripa", "weat8", weat_vectors, fresh)
    assert again["runs"]["weat8"] in swept.statuses[(str(weat_vectors), "ripa")].run_ids
    assert len(_runs(fresh)) == 6


def test_seat_card_runs_one_plan_per_test(tmp_path: Path) -> None:
    """SEAT: ``gs.run("seat", test=...)`` of one test, then the card: that run is the
    card's first part; three stored runs in all."""
    import genderscope as gs
    from genderscope.reporting.entry import Context
    from genderscope.reporting.runner import Subject, run_one

    class Encoder:  # a sentence encoder of seeded hash features
        kind = "encoder"
        fingerprint = "test-hash-encoder"

        def encode(self, texts, *, progress: bool = False):  # type: ignore[no-untyped-def]
            import hashlib

            import numpy as np

            return np.array([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[
                :8], 16)).normal(size=8) for t in texts])

        def describe(self) -> dict[str, object]:
            return {"kind": "encoder", "fingerprint": self.fingerprint}

    enc = Encoder()
    path = tmp_path / "s.sqlite"
    st = Store(path)
    try:
        first = gs.run("seat", enc, store=st, test="sent-weat6", permutations=10_000,
                       seed=SEED)
        sec = run_one(measures()["seat"], Subject("enc", "encoder", "e", lambda: enc),
                      Context(quick=True, seed=SEED), st)
        assert sec.status == "ok", sec.reason
        assert sec.parts[0].metadata["run_id"] == first.metadata["run_id"]
        assert sec.parts[0].metadata.get("reused") and len(_runs(path)) == 3
        assert [h.label.split(":")[0] for h in sec.headlines] == \
            ["sent-weat6", "sent-weat7", "sent-weat8"]
    finally:
        st.close()


@pytest.mark.slow
@pytest.mark.parametrize("quick", [True, False])
def test_multi_plan_cards_keep_the_numbers_of_their_own_runs(quick: bool, tmp_path: Path,
                                                             weat_vectors: Path,
                                                             data_dir: Path) -> None:
    """The sections of weat and the WEFE metrics equal what the cards computed when they
    ran their own subset (the measures called directly with the old cards' settings:
    ``ctx.n_permutations`` permutations, WEFE ``ctx.n_resamples`` resamples, RNSB a tenth,
    Holm over weat6-8): every headline and every item."""
    import numpy as np

    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.embedding_metrics import METRICS
    from genderscope.measures.weat import weat
    from genderscope.models.vectors import load_vectors
    from genderscope.reporting.runner import Subject, run_one
    from genderscope.results import Result
    from genderscope.stats import annotate_family

    ctx = Context(quick=quick, seed=SEED, data_dir=data_dir)
    vecs = load_vectors(str(weat_vectors))
    tests = [resolve_test(t, data_dir / "seat" / "tests") for t in ("weat6", "weat7", "weat8")]
    reg = measures()
    for name in ("weat", "ripa", "rnd", "ect", "mac", "rnsb"):
        if name == "weat":
            old = [weat(vecs, t, n_permutations=ctx.n_permutations, seed=SEED,
                        n_resamples=ctx.n_resamples) for t in tests]
            annotate_family([r.summary for r in old], "WEAT gender tests weat6, weat7, weat8")
        else:
            opts = {"seed": SEED, "n_resamples": ctx.n_resamples // (10 if name == "rnsb"
                                                                     else 1)}
            if name in ("ripa", "rnd"):
                opts["n_permutations"] = ctx.n_permutations
            old = [METRICS[name](vecs, t, **opts) for t in tests]
        ref = Result(name, {"tests": {r.summary["test"]: r.summary for r in old}},
                     pd.concat([r.items.assign(test=r.summary["test"]) for r in old],
                               ignore_index=True), {})
        sec = run_one(reg[name], Subject("v", "vectors", "v", lambda: vecs), ctx, None)
        assert sec.status == "ok", sec.reason
        want = [(h.label, h.estimate, h.ci_low, h.ci_high, h.p_value, h.p_adjusted)
                for h in reg[name].headlines(ref)]
        got = [(h.label, h.estimate, h.ci_low, h.ci_high, h.p_value, h.p_adjusted)
               for h in sec.headlines]
        assert got == want, name
        assert len(got) >= 3 and all(np.isfinite(g[1]) for g in got)
        pd.testing.assert_frame_equal(sec.result.items, ref.items, check_exact=True)


@pytest.mark.slow
def test_ray_sweep_records_one_run_per_test(tmp_path: Path, weat_vectors: Path) -> None:
    """On Ray, a weat job after ``run weat --test weat6``: the job runs (weat7, 8 are not
    stored), the driver records weat7 and weat8 and keeps the stored weat6 (three runs),
    and a second sweep runs nothing."""
    ray = pytest.importorskip("ray")
    from genderscope.sweep import driver
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    path = tmp_path / "s.sqlite"
    first = _run_test("weat", "weat6", weat_vectors, path)
    spec = SweepSpec(models=[ModelSpec(str(weat_vectors), kind="vectors")],
                     measures=[MeasureSpec("weat")], quick=True, seed=SEED,
                     cpus_per_job=1).check()
    ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    st = Store(path)
    try:
        swept = driver.run_sweep(spec, st)
        status = swept.statuses[(str(weat_vectors), "weat")]
        assert swept.ran == 1 and status.status == "done", status.reason
        assert status.run_ids[0] == first["runs"]["weat6"] and len(set(status.run_ids)) == 3
        assert sorted(r[0] for r in _runs(path)) == sorted(status.run_ids)
        again = driver.run_sweep(spec, st)
        assert again.ran == 0 and again.statuses[(str(weat_vectors), "weat")].run_ids == \
            status.run_ids
    finally:
        st.close()
        ray.shutdown()
