"""The check run on a loaded checkpoint: its head weights were trained, not initialised
at random by transformers because they were missing or of another shape."""

from __future__ import annotations

from typing import Any

from genderscope.errors import ModelLoadError


def check_head(model: Any, info: dict[str, Any], spec: str, *,
               missing: str = "lacks trained LM-head weights",
               hint: str = "is it an encoder-only / sentence-transformers checkpoint?") -> None:
    """Refuse a checkpoint whose head weights were missing or of the wrong shape, so that
    transformers initialised them at random (``info``: ``output_loading_info`` of
    ``from_pretrained``). Missing keys tied to other weights (an LM decoder tied to the
    input embeddings) are fine. ``missing`` and ``hint`` word the one-line error."""
    tied = getattr(model, "_tied_weights_keys", None) or {}
    tied_keys = set(tied.keys() if isinstance(tied, dict) else tied)
    absent = sorted(str(k) for k in info.get("missing_keys", ()) if k not in tied_keys)
    mismatched = sorted(str(k) for k in info.get("mismatched_keys", ()))
    if absent or mismatched:
        bad = (absent + mismatched)[:3]
        raise ModelLoadError(
            f"{spec}: the checkpoint {missing} ({', '.join(bad)}"
            f"{' ...' if len(absent) + len(mismatched) > 3 else ''} would be randomly "
            f"initialised); {hint}")
