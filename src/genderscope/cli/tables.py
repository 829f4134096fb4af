"""The terminal tables of a measure's result, by measure name: what ``genderscope run
NAME`` prints, so that ``genderscope runs show RUN`` prints the same rounded tables.

A measure without a table of its own (a plug-in's, ``gap``), or a stored run whose
summary its table cannot read (an older layout), gets
:func:`genderscope.cli.common.summary_table`: every summary number, with its CI or p.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from genderscope.results import Result

Tables = Callable[[Result], list[Any]]


def _by_name() -> dict[str, Tables]:
    from genderscope.cli.commands import (
        association,
        chat_probes,
        embedding_metrics,
        embeddings,
        genderbench_suite,
        perplexity,
        probe,
        pronouns_pairs,
        robustness,
    )
    from genderscope.core.registry import declarations

    def tests(method: str) -> Tables:
        return lambda r: embeddings.tests_tables(method, [embeddings._row(r)])

    def metric(method: str) -> Tables:
        return lambda r: embedding_metrics.metric_tables(method,
                                                         embedding_metrics._rows(method, r))

    found: dict[str, Tables] = {
        "winobias": pronouns_pairs._wino_tables, "dawinobias": pronouns_pairs._wino_tables,
        "abc": pronouns_pairs._abc_tables, "crows-pairs": pronouns_pairs._crows_tables,
        "stereoset": pronouns_pairs._stereoset_tables, "perplexity": perplexity._table,
        "bec-pro": association._bec_pro_tables, "lpbs": association._lpbs_tables,
        "probe": probe.probe_tables, "weat": tests("weat"), "seat": tests("seat"),
        "bias-amplification": embeddings.amplification_tables,
        "counterfactual": robustness._counterfactual_tables,
        "attack": robustness._attack_tables,
        "genderbench": genderbench_suite.tables,
        **{m: metric(m) for m in embedding_metrics.TITLES},
    }
    for name, d in declarations().items():  # the GenderBench probes share one table
        if d.family == "chat (GenderBench)":
            found.setdefault(name, chat_probes.tables)
    return found


def tables_of(result: Result) -> list[Any]:
    """The tables (and notes) ``genderscope run`` prints for ``result``."""
    from genderscope.cli.common import summary_table

    table = _by_name().get(result.method)
    if table is not None:
        try:
            return table(result)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            pass  # a summary of another layout: every number, as a plain table
    return list(summary_table(result))
