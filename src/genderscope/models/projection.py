"""Last hidden states of a language model, and a projection applied to them at scoring
time (INLP, SentenceDebias; see :mod:`genderscope.lm_debias.subspace`).

The *last hidden state* is the output of the model's body, the module under its LM head
(``model.<base_model_prefix>``: ``bert``, ``transformer``, ``model``; after the final layer
norm where the architecture has one): what bias-bench hooks (``models.py``,
``register_forward_hook`` on ``model.bert`` / ``model.transformer``). A sentence's
representation is the attention-masked mean of its last hidden states over every token
fed to the model (special tokens included, as bias-bench).

A projection P (d x d) is installed as a forward hook on the body: h -> P h at every
position, before the head. Every path to the head (the engine's split head or the full
model, scoring or generation) sees the projected states.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genderscope.errors import GenderscopeError

if TYPE_CHECKING:
    from genderscope.models.hf import LanguageModelAdapter


def hidden_body(model: Any, spec: str = "model") -> Any:
    """The module whose output is the last hidden state (the model minus its LM head);
    a one-line error for a model that exposes none."""
    prefix = getattr(model, "base_model_prefix", "") or ""
    body = getattr(model, prefix, None) if prefix else None
    if body is None or body is model or not callable(body):
        raise GenderscopeError(f"{spec}: the model exposes no hidden states (no base model "
                               f"under its LM head, {type(model).__name__}); INLP and "
                               "SentenceDebias need them")
    return body


def _input_ids(adapter: LanguageModelAdapter, text: str, max_length: int | None,
               rule: str = "genderscope") -> list[int]:
    """Token ids as the adapter feeds them: special tokens of a masked LM, the recorded
    start token of a causal LM; at most ``max_length``. ``rule="bias-bench"``: as
    bias-bench's ``tokenizer(text, add_special_tokens=True, truncation=True[,
    max_length])``: the tokenizer's own special tokens (none for GPT-2: no start token),
    cut at ``max_length`` or, when None, at the tokenizer's ``model_max_length``."""
    if rule == "bias-bench":
        kw = {"max_length": max_length} if max_length is not None else {}
        return list(adapter.tokenizer(text, add_special_tokens=True, truncation=True,
                                      **kw)["input_ids"])
    if max_length is None:
        raise GenderscopeError("max_length is required")
    if adapter.kind == "causal":
        ids = adapter._ids(text)  # type: ignore[attr-defined]
    else:
        ids = adapter.tokenizer(text, add_special_tokens=True)["input_ids"]
    return list(ids)[:max_length]


def sentence_features(adapter: LanguageModelAdapter, texts: Sequence[str], *,
                      batch_size: int = 32, max_length: int | None = 128,
                      progress: Callable[[int], None] | None = None,
                      rule: str = "genderscope") -> np.ndarray:
    """Mean-pooled last hidden states (float64, len(texts) x d) of the base model, for
    estimating a subspace (see :func:`pooled_states`; ``rule``: :func:`_input_ids`)."""
    if adapter.describe().get("debias"):
        raise GenderscopeError(f"{adapter.source}: the model is already debiased; estimate "
                               "a subspace on the base model")
    ids = [_input_ids(adapter, t, max_length, rule) for t in texts]
    return pooled_states(adapter, ids, batch_size=batch_size, progress=progress)


def pooled_states(adapter: LanguageModelAdapter, ids: Sequence[Sequence[int]], *,
                  batch_size: int = 32,
                  progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The attention-masked mean of the body's output over every token of each input
    (float64, len(ids) x d), batched shortest first with right padding; a projection
    installed on the body applies. ``progress(n)`` after each batch."""
    import torch

    if any(not x for x in ids):
        raise GenderscopeError("a sentence produced no tokens")
    body = hidden_body(adapter.model, adapter.source)
    pad = adapter.engine.pad_id
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    out = np.zeros((len(ids), 0))
    with torch.inference_mode():
        for s in range(0, len(order), batch_size):
            part = order[s:s + batch_size]
            width = max(len(ids[i]) for i in part)
            arr = np.full((len(part), width), pad, dtype=np.int64)
            mask = np.zeros((len(part), width), dtype=np.int64)
            for r, i in enumerate(part):
                arr[r, :len(ids[i])] = ids[i]
                mask[r, :len(ids[i])] = 1
            ids_t = torch.from_numpy(arr).to(adapter.device)
            mask_t = torch.from_numpy(mask).to(adapter.device)
            hidden = body(input_ids=ids_t, attention_mask=mask_t)[0].float()
            m = mask_t.unsqueeze(-1).to(hidden.dtype)
            pooled = ((hidden * m).sum(1) / m.sum(1)).double().cpu().numpy()
            if out.shape[1] == 0:
                out = np.zeros((len(ids), pooled.shape[1]))
            out[part] = pooled
            if progress is not None:
                progress(len(part))
    return out


def hidden_size(model: Any) -> int:
    """Width of the last hidden state (the LM head's input)."""
    head = model.get_output_embeddings()
    if head is not None and getattr(head, "weight", None) is not None:
        return int(head.weight.shape[1])
    return int(model.config.hidden_size)


def install_projection(model: Any, projection: np.ndarray, spec: str = "model") -> Any:
    """Hook h -> P h on the body's output; returns the hook handle."""
    import torch

    body = hidden_body(model, spec)
    d = hidden_size(model)
    if projection.shape != (d, d):
        raise GenderscopeError(f"{spec}: the projection is {projection.shape[0]} x "
                               f"{projection.shape[1]} but this model's hidden states are {d} "
                               "wide: the projection comes from another model")
    p_t = torch.from_numpy(np.ascontiguousarray(projection, dtype=np.float32))
    cache: dict[Any, Any] = {}

    def hook(module: Any, args: Any, output: Any) -> Any:
        x = output[0]
        key = (x.device, x.dtype)
        if key not in cache:
            cache[key] = p_t.to(device=x.device, dtype=x.dtype).T.contiguous()
        y = x @ cache[key]
        if isinstance(output, dict):  # transformers' ModelOutput
            output["last_hidden_state"] = y
            return output
        return (y, *tuple(output)[1:])

    return body.register_forward_hook(hook)


def attach(adapter: LanguageModelAdapter, folder: Path, manifest: dict[str, Any],
           apply: Callable[[LanguageModelAdapter], None]) -> LanguageModelAdapter:
    """Make ``adapter`` (loaded or deferred) the debiased model of ``folder``: ``apply``
    runs on the loaded adapter; the fingerprint gains the technique and its parameters
    (for projections, the projection file's hash), so the score cache keeps debiased
    answers apart from the base model's."""
    from genderscope.models.debias_folder import debias_tag, fingerprint_suffix, technique_of

    tech = technique_of(manifest)
    base = manifest.get("base_model") or {}
    params = manifest.get("params") or {}
    recorded = base.get("fingerprint")
    suffix, tag = fingerprint_suffix(manifest), debias_tag(manifest)

    def check(loaded: LanguageModelAdapter) -> None:
        if recorded and loaded.fingerprint.split("|")[0] != str(recorded).split("|")[0]:
            raise GenderscopeError(
                f"{folder}: the {tech} model was made for {recorded} but its base model "
                f"now loads as {loaded.fingerprint.split('|')[0]}: the projection comes from "
                "another model")

    describe = {"technique": tech, "folder": str(folder), "tag": tag[:16],
                **{k: v for k, v in params.items() if k in (
                    "prefixes", "decay_constant", "epsilon", "n_classifiers")}}
    check(adapter)  # a deferred adapter holds the fingerprint its load must give
    if adapter.loaded:
        apply(adapter)
    else:
        inner = adapter._loader
        assert inner is not None

        def load() -> LanguageModelAdapter:
            full = inner()
            apply(full)
            full.fingerprint += suffix
            return full

        adapter._loader = load
    adapter.fingerprint += suffix
    adapter._extra["debias"] = describe
    adapter.source = f"{adapter.source} + {tech} ({folder})"
    return adapter
