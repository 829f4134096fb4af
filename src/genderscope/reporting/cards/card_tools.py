"""Helpers shared by the report cards (the modules of ``genderscope.reporting.cards``): the rows a
section highlights and the item-level (``Paired``) forms of its headline.

A card's default subset is in its plan's options (``limit``, ``subset_seed`` ...:
seeded, so ``genderscope report --model smollm2`` finishes in a few minutes on a 2-core
CPU; ``--quick`` uses ~30-40 items per measure); the run records it in its metadata.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from genderscope.reporting.entry import Context


def top_rows(df: pd.DataFrame, col: str, cols: list[str], n: int = 5) -> pd.DataFrame | None:
    """The n rows with the largest and the n with the smallest ``col``; None without it."""
    if col not in df:
        return None
    d = df.dropna(subset=[col]).sort_values(col)
    keep = pd.concat([d.tail(n).iloc[::-1], d.head(n)]).drop_duplicates()
    return keep[cols].reset_index(drop=True)


def mean_first_column(a: np.ndarray) -> float:
    """Paired-form statistic: the mean of column 0."""
    return float(np.mean(a[:, 0]))


def item_frame(df: pd.DataFrame, key: list[str] | str, cols: list[str]) -> pd.DataFrame:
    """``cols`` as floats indexed by ``key`` (first row per key), for Paired forms."""
    out = df.set_index(key)[cols].astype(float)
    return out[~out.index.duplicated()]


def needs_texts(ctx: Context) -> str | None:
    """Why a classifier measure cannot run (no --texts), else None."""
    return None if ctx.texts is not None else "needs texts to classify (--texts FILE)"
