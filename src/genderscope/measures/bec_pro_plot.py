"""BEC-Pro's association figure (Bartl et al. 2020, Fig. 1 style): mean association by
profession group and person gender, with each mean's 95 % CI (over professions)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from genderscope.measures.bec_pro import GENDERS, group_means
from genderscope.results import Result

COLOURS = {"male": "#0072B2", "female": "#E69F00"}  # Okabe-Ito blue / orange
MARKERS = {"male": "o", "female": "s"}


def plot(result: Result, path: str | Path, *, title: str | None = None) -> list[Path]:
    """Mean association (95% CI) by profession group and person gender; writes
    ``path`` with suffix .png and .svg and returns both paths.

    Both files carry a key of what they show (table, title, versions); when both
    already hold this key they are left as they are, so a rerun draws nothing."""
    table = result.tables.get("by_group")
    if table is None or table.empty:
        table = group_means(result.items, n_resamples=2000)
    model = result.metadata.get("model", {})
    if isinstance(model, dict):
        name = str(model.get("name") or Path(str(model.get("source") or "")).name
                   or model.get("fingerprint", ""))
    else:
        name = str(model)
    heading = title or f"BEC-Pro association, {name}"[:80]
    base = Path(path).with_suffix("")
    out = [base.with_suffix(".png"), base.with_suffix(".svg")]
    key = _plot_key(table, heading)
    if all(p.is_file() and key.encode() in p.read_bytes() for p in out):
        return out
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(table.prof_group))
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    for k, gender in enumerate(GENDERS):
        sub = table[table.gender == gender].set_index("prof_group").reindex(groups)
        x = np.arange(len(groups)) + (k - 0.5) * 0.25
        yerr = np.vstack([sub["mean"] - sub.ci_low, sub.ci_high - sub["mean"]])
        ax.errorbar(x, sub["mean"], yerr=yerr, fmt=MARKERS[gender], color=COLOURS[gender],
                    capsize=4, label=f"{gender} person words")
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xticks(np.arange(len(groups)))
    ax.set_xticklabels([f"{g} professions" for g in groups])
    ax.set_ylabel("association (nats), mean and 95% CI")
    ax.set_title(heading, fontsize=10)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    base.parent.mkdir(parents=True, exist_ok=True)
    for p in out:
        fig.savefig(p, dpi=150, metadata={"Description": key})
    plt.close(fig)
    return out


def _plot_key(table: pd.DataFrame, heading: str) -> str:
    """What a figure shows: its table, its title, the drawing code's and matplotlib's
    versions (read from the package metadata: no matplotlib import)."""
    import hashlib
    import importlib.metadata

    from genderscope import __version__

    cols = [c for c in ("prof_group", "gender", "mean", "ci_low", "ci_high") if c in table]
    blob = "|".join([table[cols].to_csv(index=False, float_format="%.17g"), heading,
                     __version__, importlib.metadata.version("matplotlib"), "plot-1"])
    return "genderscope-figure-" + hashlib.sha256(blob.encode()).hexdigest()[:32]
