"""Report card for perplexity of held-out text, the language-modelling cost beside the
bias scores (Meade et al. 2022 report it for every debiasing technique):
:mod:`genderscope.measures.perplexity`."""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.core.kinds import LM
from genderscope.reporting import plots
from genderscope.reporting.cards.card_tools import item_frame, top_rows
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, Paired, from_ci
from genderscope.results import Result


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run perplexity --limit N --subset-seed SEED --seed SEED --resamples
    R`` (GAP's validation split, which ``debias inlp|sentence-debias`` never read): 200
    held-out sentences, 40 with --quick, all in full."""
    return "perplexity", {"limit": ctx.size(200, quick=40), "subset_seed": ctx.seed,
                          "seed": ctx.seed, "resamples": ctx.n_resamples}


def _what(r: Result) -> str:
    return "perplexity" if "perplexity" in r.summary else "pseudo-perplexity"


def headlines(r: Result) -> list[Headline]:
    what = _what(r)
    return [from_ci(f"{what} of held-out text (lower: better language model)",
                    r.summary.get(what), null=None, ci_unit_default="sentences",
                    note="Language-modelling cost, not a bias score: compare it between a "
                         "model and its debiased version (same tokenizer).")]


def _ppl(a: np.ndarray) -> float:
    """Paired-form statistic: exp(Σ NLL_i / Σ N_i) of rows (NLL_i, N_i)."""
    return float(np.exp(a[:, 0].sum() / a[:, 1].sum()))


def paired(r: Result) -> Paired | None:
    """The headline's perplexity sentence by sentence (rows: total NLL, scored tokens),
    for comparing a model with its debiased version on the same sentences."""
    df = r.items
    if not {"ll", "n_tokens", "sentence"} <= set(df.columns):
        return None
    return Paired(item_frame(df.assign(nll=-df["ll"]), "sentence", ["nll", "n_tokens"]),
                  _ppl, unit="sentences")


def plot(r: Result) -> Any:
    df = r.items
    if "nll_per_token" not in df or df.empty:
        return None
    fig, ax = plots.figure(6.4, 2.8)
    ax.hist(np.exp(df["nll_per_token"].to_numpy(float)), bins=30, color=plots.SERIES[0])
    ax.set_xscale("log")
    est = r.summary.get(_what(r), {}).get("estimate")
    if est is not None:
        ax.axvline(float(est), color=plots.SERIES[1], linestyle="--",
                   label=f"{_what(r)} {est:.3g} (token-weighted)")
        ax.legend(loc="upper right", frameon=False)
    ax.set_xlabel(f"per-sentence {_what(r)} (log scale)")
    ax.set_ylabel("sentences")
    plots.set_title(fig, f"{_what(r).capitalize()} of held-out sentences")
    return plots.lay_out(fig)


PERPLEXITY = Card(
    name="perplexity", title="Perplexity of held-out text (language-modelling cost)",
    kinds=LM, langs=("en",), plan=plan, headlines=headlines, plot=plot,
    paired=paired, highlights=lambda r: top_rows(
        r.items, "nll_per_token", ["sentence", "n_tokens", "nll_per_token"], 3),
    card=MethodCard(
        definition="perplexity = exp(−Σ LL_i / Σ N_i) over held-out sentences, token-weighted "
                   "(causal LMs: log-likelihood given the start token; masked LMs: "
                   "pseudo-log-likelihood, Salazar et al. 2020, so pseudo-perplexity); 95% "
                   "CI: percentile bootstrap over sentences. The text is a seeded subset of "
                   "GAP's validation passages (sentences of 6+ words), which `debias inlp` / "
                   "`sentence-debias` never read.",
        citation="Meade, Poole-Dayan & Reddy (2022). An Empirical Survey of the Effectiveness "
                 "of Debiasing Techniques for Pre-trained Language Models. ACL.",
        caveats=("A context number, not a bias score: a debiasing technique that lowers "
                 "bias by breaking the model shows here as a higher perplexity.",
                 "Per-token figures depend on the tokenizer: compare only models that share "
                 "one (a model and its debiased version do).",
                 "Masked and causal LMs' figures are not comparable with each other."),
        subset="200 GAP validation sentences (seeded; 40 with --quick; all with --full)"))
