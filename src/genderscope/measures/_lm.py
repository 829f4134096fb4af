"""Helpers shared by the sentence-scoring measures (WinoBias, ABC, CrowS-Pairs,
StereoSet): model kind checks, sentence scores, result metadata."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.core.kinds import LM
from genderscope.errors import GenderscopeError
from genderscope.models.base import SeqScore
from genderscope.results import file_sha256


def model_kind(adapter: Any, method: str) -> str:
    """``"masked"`` or ``"causal"``; a clear error for anything else."""
    kind = getattr(adapter, "kind", None)
    if kind not in LM:
        raise GenderscopeError(f"{method} needs a masked or causal language model, got a "
                               f"model of kind {kind!r}")
    return str(kind)


def sentence_scores(adapter: Any, texts: Sequence[str], *, progress: bool = False,
                    positions: Sequence[Sequence[bool] | None] | None = None
                    ) -> list[SeqScore]:
    """Pseudo-log-likelihood (masked LM, optionally over ``positions``) or
    log-likelihood (causal LM) of each text, in nats."""
    if adapter.kind == "masked":
        return list(adapter.pseudo_log_likelihood(texts, positions=positions, progress=progress))
    if positions is not None:
        raise ValueError("positions apply to masked LMs only")
    return list(adapter.log_likelihood(texts, progress=progress))


def describe(adapter: Any) -> dict[str, Any]:
    try:
        return dict(adapter.describe())
    except Exception:  # pragma: no cover - describe() is part of the contract
        return {"fingerprint": getattr(adapter, "fingerprint", "?")}


def data_meta(paths: Iterable[str | Path]) -> dict[str, Any]:
    """File paths with their SHA-256 (deduplicated, sorted), and the registered data sets
    they belong to (name, version, source, digests: :func:`registry.provenance`)."""
    from genderscope.datasets.registry import provenance

    files = sorted({str(p) for p in paths})
    digests = {f: file_sha256(f) for f in files if Path(f).is_file()}
    return {"files": files, "file_sha256": digests, "datasets": provenance(digests)}


def log2_ratio(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """log2(a / b), NaN where the ratio is not positive and finite."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
        out = np.where((r > 0) & np.isfinite(r), np.log2(np.where(r > 0, r, 1.0)), np.nan)
    return out
