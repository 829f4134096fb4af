"""Helpers shared by the report cards (``*_card.py`` beside each measure).

Default subsets are seeded (``Context.seed``) random samples, chosen so that
``genderscope report --model smollm2`` finishes in a few minutes on a 2-core CPU;
``--quick`` uses ~30-40 items per measure (a smoke test, wide CIs). Every subset
is written on the method card and recorded in the run's metadata.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pandas as pd

from genderscope.errors import DataError
from genderscope.report.entry import Context
from genderscope.results import Result

if TYPE_CHECKING:
    from genderscope.datasets.texts import TextData

T = TypeVar("T")
LM_KINDS = ("masked", "causal")


def subset(items: Sequence[T], n: int | None, seed: int) -> list[T]:
    """A seeded random subset of ``n`` items in their original order (all when n is None)."""
    if n is None or n >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[i] for i in keep]


def data_files(folder: Path, pattern: str = "*") -> list[Path]:
    """The files under ``folder`` matching ``pattern``, sorted (hashed into the run key)."""
    return sorted(p for p in folder.rglob(pattern) if p.is_file())


def note_subset(result: Result, ctx: Context, n_used: int, n_total: int, what: str
                ) -> Result:
    """Record the subset (``n_used`` of ``n_total`` ``what``) in the run's metadata."""
    result.metadata.setdefault("data", {})
    if isinstance(result.metadata["data"], dict):
        result.metadata["data"]["subset"] = {"n": n_used, "of": n_total, "unit": what,
                                             "seed": ctx.seed, "quick": ctx.quick}
    return result


def top_rows(df: pd.DataFrame, col: str, cols: list[str], n: int = 5) -> pd.DataFrame:
    """The n rows with the largest and the n with the smallest ``col``."""
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


def classifier_texts(ctx: Context, n: int | None) -> TextData:
    """A seeded sample of ``n`` texts (all when None; with labels, if any) from ``ctx.texts``."""
    from genderscope.datasets.texts import load_texts

    if ctx.texts is None:
        raise DataError("classifier measures need --texts FILE")
    return load_texts(ctx.texts, limit=n, sample_seed=ctx.seed)
