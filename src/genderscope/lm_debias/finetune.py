"""Fine-tuning a language model on a (counterfactually substituted) corpus.

Objective: masked-language modelling for masked LMs (15 % of tokens chosen,
of which 80 % -> mask, 10 % -> random token, 10 % kept; Devlin et al. 2019,
via transformers' ``DataCollatorForLanguageModeling``), next-token prediction
for causal LMs.

Defaults follow Bartl et al. (2020, "Unmasking Contextual Stereotypes",
sec. 4.2 and their released ``main.py``): 3 epochs, learning rate 2e-5
(AdamW, epsilon 1e-8, linear decay without warm-up), batch size 1, seed 42.

Documents are visited in a seeded order per epoch; every ``save_every`` steps a
checkpoint goes to ``OUT/checkpoints`` (:mod:`genderscope.lm_debias.checkpoint`), and a
rerun into the same folder resumes from it to the same final weights. ``OUT`` ends as a
loadable Hugging Face folder plus ``manifest.json`` (base model, corpus hash, parameters,
seed, steps, losses, time); GGUF models are de-quantised to float32 and saved as one.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from genderscope.checks import whole_number
from genderscope.core.kinds import LM
from genderscope.errors import GenderscopeError, ModelLoadError
from genderscope.lm_debias.checkpoint import (
    CHECKPOINTS,
    check_same_run,
    latest_checkpoint,
    resume_checkpoint,
    save_checkpoint,
)
from genderscope.lm_debias.finetune_output import (  # noqa: F401 - re-exported
    check_out_dir,
    publish_model,
)
from genderscope.models.source import ModelSource, pick_device
from genderscope.results import environment, to_json


@dataclass
class FinetuneConfig:
    """Hyper-parameters (defaults: Bartl et al. 2020)."""

    epochs: int = 3
    lr: float = 2e-5
    batch_size: int = 1
    seed: int = 42
    max_length: int = 256
    mlm_probability: float = 0.15
    warmup_steps: int = 0
    weight_decay: float = 0.0
    adam_epsilon: float = 1e-8
    max_steps: int | None = None
    save_every: int = 200
    grad_clip: float = 1.0
    dropout_debias: bool = False  # more dropout (lm_debias/dropout.py; debias dropout)

    def validate(self) -> None:
        """Each count and the seed within its bounds (:func:`genderscope.checks.whole_number`:
        the one wording), each rate a finite number in its range; one line each."""
        for name in ("lr", "mlm_probability", "weight_decay", "adam_epsilon", "grad_clip"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
                    or not math.isfinite(value):
                raise GenderscopeError(f"--{name.replace('_', '-')} must be a finite "
                                       f"number, got {value!r}")
        for name, least, most in COUNT_BOUNDS:
            whole_number(getattr(self, name), name, least, most,
                         label="warmup_steps" if name == "warmup_steps" else None)
        if self.max_steps is not None:
            whole_number(self.max_steps, "max_steps", 1)
        if not self.lr > 0:
            raise GenderscopeError(f"--lr must be > 0, got {self.lr}")
        if not 0 < self.mlm_probability < 1:
            raise GenderscopeError(f"mlm probability must be in (0, 1), got "
                                   f"{self.mlm_probability}")


COUNT_BOUNDS = (("seed", 0, None), ("max_length", 8, 2**20), ("save_every", 1, None),
                ("warmup_steps", 0, None), ("epochs", 1, 1_000), ("batch_size", 1, None))
"""(field, least, most) of :class:`FinetuneConfig`'s whole numbers; most None: none, or
the seed's :data:`genderscope.checks.SEED_MAX` (torch's own error is a traceback). At most
1,000 epochs (10**20 was a MemoryError) and 2**20 tokens (the tokenizer's overflow)."""


def _load(spec: str, kind: str, dtype: torch.dtype) -> tuple[Any, Any, str, ModelSource]:
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    from genderscope.models.loading import detect_kind, resolve_spec

    path = resolve_spec(spec)
    if kind == "auto":
        kind = detect_kind(path)
    if kind not in LM:
        raise ModelLoadError(f"unknown model kind {kind!r}; use auto, masked or causal")
    source = ModelSource(path)
    auto = AutoModelForMaskedLM if kind == "masked" else AutoModelForCausalLM
    model, info = source.load(auto, dtype)
    tied = getattr(model, "_tied_weights_keys", None) or {}
    tied_keys = set(tied.keys() if isinstance(tied, dict) else tied)
    missing = [k for k in info.get("missing_keys", []) if k not in tied_keys
               and "position_ids" not in k]
    if missing:
        raise ModelLoadError(f"{spec}: weights missing from the checkpoint "
                             f"({', '.join(missing[:3])}...): not a pretrained {kind} LM")
    if source.gguf_file:
        _drop_gguf_quantizer(model, spec)
    tok = source.tokenizer()
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.unk_token
    return model, tok, kind, source


def _drop_gguf_quantizer(model: Any, spec: str) -> None:
    """:func:`~genderscope.models.source.detach_gguf_quantizer`, worded for fine-tuning."""
    from genderscope.models.source import detach_gguf_quantizer

    try:
        detach_gguf_quantizer(model, spec)
    except ModelLoadError as exc:
        raise ModelLoadError(f"{exc}; cannot fine-tune a packed GGUF model") from None


def _batches(n_docs: int, cfg: FinetuneConfig) -> list[list[int]]:
    """The whole run's batches of document indices, in a seeded order per epoch."""
    out: list[list[int]] = []
    for epoch in range(cfg.epochs):
        order = np.random.default_rng(cfg.seed + epoch).permutation(n_docs)
        out += [order[i:i + cfg.batch_size].tolist() for i in range(0, n_docs, cfg.batch_size)]
    if cfg.max_steps is not None:
        out = out[:cfg.max_steps]
    return out


def _run_identity(model_spec: str, texts: Sequence[str], cfg: FinetuneConfig, kind: str,
                  data: dict[str, Any] | None) -> dict[str, Any]:
    """What must be equal for a checkpoint to be resumed: model, corpus, parameters."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\x00")
    return json.loads(to_json({"model": str(model_spec), "kind": kind,
                               "texts_sha256": h.hexdigest(), "n_documents": len(texts),
                               "params": asdict(cfg), "data": data or {}}))


def fine_tune(model_spec: str, texts: Sequence[str], out: str | Path, *,
              config: FinetuneConfig | None = None, kind: str = "auto",
              device: str | None = None, overwrite: bool = False,
              data: dict[str, Any] | None = None,
              progress: Callable[[int, int, float], None] | None = None,
              stop_after: int | None = None, inputs: Sequence[Any] = (),
              write_corpus: bool = False) -> dict[str, Any]:
    """Fine-tune ``model_spec`` on ``texts`` and save it to ``out``; returns the manifest.

    ``data`` (corpus hash, substitution parameters) goes into the manifest;
    ``progress(step, total, loss)`` is called after each step; ``stop_after`` stops as if
    interrupted after that many steps, leaving a checkpoint; ``inputs``: further paths the
    run reads, which ``out`` may neither be nor hold; ``write_corpus``: also write the
    training units to ``training_corpus.jsonl``. ``out`` is written under
    :mod:`genderscope.lm_debias.finetune_output`'s rule (a failure leaves the old one as
    it was; with ``overwrite`` it is replaced only once the new one is complete).
    """
    from genderscope.outputs import mark_folder, new_folder_beside

    cfg = config or FinetuneConfig()
    cfg.validate()
    if not texts:
        raise GenderscopeError("the training corpus is empty")
    out = Path(out)
    mode = check_out_dir(out, overwrite, [model_spec, *inputs])
    t0 = time.perf_counter()
    torch.manual_seed(cfg.seed)
    dev = pick_device(device)
    model, tok, kind, source = _load(model_spec, kind, torch.float32)
    if cfg.dropout_debias:
        from genderscope.lm_debias.dropout import raise_dropout

        model, _ = raise_dropout(model)
    model.to(dev).train()
    _check_tokens(tok, texts, cfg)
    try:
        work = new_folder_beside(out) if mode == "replace" else out
        work.mkdir(parents=True, exist_ok=True)
        if mode == "new":
            mark_folder(work, [])
    except OSError as exc:
        raise GenderscopeError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:
        done = _train(model, tok, kind, texts, cfg, work, dev, mode == "resume",
                      _run_identity(model_spec, texts, cfg, kind, data), progress, stop_after)
        if isinstance(done, dict):
            return done
        start, losses, n_steps = done
        finite = [x for x in losses if math.isfinite(x)]
        if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
            raise GenderscopeError("training made some weights NaN or infinite (is --lr too "
                                   "high?); nothing was saved")
        k = max(1, len(finite) // 10)
        manifest = {
            "what": "fine-tuned with genderscope debias",
            "technique": "dropout" if cfg.dropout_debias else "cds",
            "objective": "masked-lm" if kind == "masked" else "next-token",
            "base_model": {"spec": model_spec, "source": source.kind_of_source,
                           "fingerprint": source.fingerprint(model.config),
                           "dequantised_from_gguf": bool(source.gguf_file)},
            "params": asdict(cfg), "seed": cfg.seed, "kind": kind,
            "data": data or {}, "n_documents": len(texts), "steps": n_steps,
            "resumed_from_step": start or None,
            "loss_first_10pct": float(np.mean(finite[:k])) if finite else None,
            "loss_last_10pct": float(np.mean(finite[-k:])) if finite else None,
            "seconds": time.perf_counter() - t0, "device": str(dev),
            "environment": environment(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        publish_model(model, tok, manifest, texts if write_corpus else None, out)
    finally:
        if work != out:
            shutil.rmtree(work, ignore_errors=True)
    return manifest


def _check_tokens(tok: Any, texts: Sequence[str], cfg: FinetuneConfig) -> None:
    """Refuse a corpus that the tokenizer turns into nothing (every unit empty)."""
    sample = list(texts[:256])
    enc = tok(sample, add_special_tokens=False, truncation=True, max_length=cfg.max_length)
    if not any(len(ids) for ids in enc["input_ids"]):
        raise GenderscopeError("the tokenizer turns the training texts into no tokens; "
                               "nothing to train on")


def _train(model: Any, tok: Any, kind: str, texts: Sequence[str], cfg: FinetuneConfig,
           work: Path, dev: Any, resume: bool, identity: dict[str, Any],
           progress: Callable[[int, int, float], None] | None,
           stop_after: int | None) -> tuple[int, list[float], int] | dict[str, Any]:
    """The training loop, checkpointing into ``work``; returns (first step of this call,
    losses, steps) or ``{"interrupted_at_step": n}`` when ``stop_after`` stopped it."""
    from transformers import DataCollatorForLanguageModeling, get_linear_schedule_with_warmup

    collator = DataCollatorForLanguageModeling(tok, mlm=kind == "masked",
                                               mlm_probability=cfg.mlm_probability)
    batches = _batches(len(texts), cfg)
    optim = torch.optim.AdamW(model.parameters(), lr=cfg.lr, eps=cfg.adam_epsilon,
                              weight_decay=cfg.weight_decay)
    sched = get_linear_schedule_with_warmup(optim, cfg.warmup_steps, len(batches))
    start, losses = 0, []
    if resume:
        check_same_run(work, identity)
        ckpt = latest_checkpoint(work)
        if ckpt is not None:
            start, losses = resume_checkpoint(ckpt, model, optim, sched, len(batches))
    for step in range(start, len(batches)):
        docs = [texts[i] for i in batches[step]]
        enc = tok(docs, truncation=True, max_length=cfg.max_length)
        feats = [{k: enc[k][i] for k in enc} for i in range(len(docs))]
        batch = {k: v.to(dev) for k, v in collator(feats).items()}
        loss = model(**batch).loss
        if not torch.isfinite(loss):
            loss_value = float("nan")  # e.g. no token was masked in a tiny document
        else:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optim.step()
            loss_value = float(loss.detach())
        with warnings.catch_warnings():  # a skipped (NaN) step still advances the schedule
            warnings.simplefilter("ignore", UserWarning)
            sched.step()
        optim.zero_grad(set_to_none=True)
        losses.append(loss_value)
        done = step + 1
        if progress is not None:
            progress(done, len(batches), loss_value)
        saved = done % cfg.save_every == 0 and done < len(batches)
        if saved:
            _checkpoint(work, done, model, optim, sched, losses, identity)
        if stop_after is not None and done - start >= stop_after and done < len(batches):
            if not saved:
                _checkpoint(work, done, model, optim, sched, losses, identity)
            return {"interrupted_at_step": done}
    model.eval()
    return start, losses, len(batches)


def _checkpoint(work: Path, step: int, *args: Any) -> None:
    """:func:`save_checkpoint`; a failure (a full disk) is a one-line error that leaves
    the previous checkpoint in place."""
    from safetensors import SafetensorError

    try:
        save_checkpoint(work, step, *args)
    except (OSError, SafetensorError) as exc:
        shutil.rmtree(work / CHECKPOINTS / f"step-{step}.tmp", ignore_errors=True)
        why = getattr(exc, "strerror", None) or exc
        raise GenderscopeError(f"cannot write a checkpoint in {work}: {why} (the previous "
                               "checkpoint is kept; rerun to resume)") from None
