"""The terminal table of ``genderscope run perplexity``: perplexity of held-out text (the
language-modelling cost of a debiased model; :mod:`genderscope.measures.perplexity`); the
command is made from the declaration (:func:`genderscope.cli.common.measure_command`)."""

from __future__ import annotations

from rich.table import Table

from genderscope.cli.common import ESTIMATE_COLUMNS, new_table
from genderscope.results import Result


def table(result: Result) -> list[Table]:
    s = result.summary
    what = "perplexity" if "perplexity" in s else "pseudo-perplexity"
    t = new_table(f"{what}: {s['n_sentences']} held-out sentences, {s['n_tokens']} tokens",
                  ESTIMATE_COLUMNS, labels=1)
    ci = s[what]
    t.add_row(what, f"{ci['estimate']:.2f} [{ci['ci_low']:.2f}, {ci['ci_high']:.2f}]")
    t.add_row("NLL per token (nats)", f"{s['nll_per_token']:.4f}")
    return [t]
