"""The base both language-model adapters share: deferred loading, the score cache
and its pooled forward passes.

torch and transformers are imported only when a model is really loaded: an
adapter opened on a store that already holds its description (a *memo*, written
by the first load) is *deferred*, and loads its weights on the first question
the score cache cannot answer. A fully cached rerun imports neither.

Where a model comes from and how it loads (Hub id, folder, GGUF) is in
:mod:`genderscope.models.source`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from genderscope.errors import ModelLoadError
from genderscope.models.engine import Request
from genderscope.models.head_check import check_head
from genderscope.models.memo import memo_key, memoised
from genderscope.models.source import (
    ModelSource,
    check_dtype,
    pick_device,
    pick_dtype,
)
from genderscope.store import Store

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase

    from genderscope.models.engine import ForwardEngine

Planned = tuple[list[Request], Callable[[list[np.ndarray]], np.ndarray]]
"""A key's forward-pass requests and the function that turns their answers (one
array per request, in order) into the key's stored array."""


def first(answers: list[np.ndarray]) -> np.ndarray:
    """The reads of the one request (per-token log-likelihoods)."""
    return answers[0]


def joined(answers: list[np.ndarray]) -> np.ndarray:
    """The reads of every request, in order (one array)."""
    return np.concatenate([np.asarray(a, dtype=float).reshape(-1) for a in answers])


def total(answers: list[np.ndarray]) -> np.ndarray:
    """One value: the sum of every read of every request (log P of a whole word or
    continuation, nats)."""
    return np.array([sum(float(a.sum()) for a in answers)])


class LanguageModelAdapter:
    """Shared plumbing of :class:`MaskedLM` and :class:`CausalLM`. Opened deferred
    (:meth:`_open`), it loads ``model``, ``tokenizer`` and ``engine`` only on the first
    question the score cache cannot answer."""

    kind = "lm"
    auto_class = ""
    """transformers' Auto class of the kind (``AutoModelForCausalLM``)."""
    type_table = ""
    """transformers' table of the model types with that head."""
    wrong_type = ""
    """The error's words for a model type not in it."""

    def __init__(self, model: Any, tokenizer: PreTrainedTokenizerBase, *, fingerprint: str,
                 source: str, device: torch.device, dtype: str, store: Store | None,
                 batch_size: int | None = None, max_tokens: int | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        from genderscope.models.engine import ForwardEngine

        if not getattr(tokenizer, "is_fast", False):
            raise ModelLoadError(f"{source}: a fast (Rust) tokenizer is required for "
                                 "character offsets; none could be loaded")
        self._model = model.to(device).eval()
        self._tokenizer = tokenizer
        self._loader: Callable[[], LanguageModelAdapter] | None = None
        self.device: torch.device | None = device
        self.dtype = dtype
        self.source = source
        self.store = store
        self._extra = dict(extra or {})
        opts = json.dumps({"dtype": dtype, **self._extra}, sort_keys=True)
        self.fingerprint = f"{fingerprint}|{opts}"
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self._engine: ForwardEngine | None = ForwardEngine(
            self._model, int(pad), device, max_batch=batch_size, max_tokens=max_tokens)
        self._described = {"class": type(self._model).__name__, "vocab_size": len(tokenizer)}

    # -- loading ---------------------------------------------------------------------
    @classmethod
    def _open(cls, source: ModelSource, *, device: str | None, dtype: str,
              store: Store | None, batch_size: int | None, max_tokens: int | None,
              **options: str) -> LanguageModelAdapter:
        """:meth:`_load` now, or a deferred adapter when ``store`` holds this model's memo.

        The memo (written after the first real load) holds the full fingerprint and
        the description, keyed by the model's torch-free :meth:`ModelSource.identity`,
        the adapter class, the dtype and ``options`` (a causal LM's requested start
        token, also passed to :meth:`_load`)."""
        check_dtype(dtype)

        def load() -> LanguageModelAdapter:
            return cls._load(source, device=device, dtype=dtype, store=store,
                             batch_size=batch_size, max_tokens=max_tokens, **options)

        key = _memo_key(cls, source, {"dtype": dtype, **options}) if store is not None else None
        return memoised(store, "adapter", key, source.spec, load,
                        lambda memo: cls._deferred(memo, load, source=source.spec, dtype=dtype,
                                                   store=store, device=device),
                        lambda a: {"fingerprint": a.fingerprint, "extra": a._extra,
                                   "described": a._described})

    @classmethod
    def _load(cls, source: ModelSource, *, device: str | None, dtype: str,
              store: Store | None, batch_size: int | None, max_tokens: int | None,
              **options: str) -> LanguageModelAdapter:
        """Load the weights with :attr:`auto_class`, refusing a model type without that
        head or a checkpoint whose head was not trained (:func:`check_head`)."""
        import transformers
        from transformers.models.auto import modeling_auto

        config = source.config()
        if config.model_type not in getattr(modeling_auto, cls.type_table):
            raise ModelLoadError(f"{source.spec}: model type {config.model_type!r} "
                                 f"{cls.wrong_type}")
        dev = pick_device(device)
        model, info = source.load(getattr(transformers, cls.auto_class), pick_dtype(dtype))
        check_head(model, info, source.spec)
        tokenizer = source.tokenizer()
        return cls(model, tokenizer, fingerprint=source.fingerprint(config), source=source.spec,
                   device=dev, dtype=dtype, store=store, batch_size=batch_size,
                   max_tokens=max_tokens, extra=cls._extras(tokenizer, source.spec, **options))

    @classmethod
    def _extras(cls, tokenizer: PreTrainedTokenizerBase, spec: str,
                **options: str) -> dict[str, Any]:
        """What a kind adds to the description and fingerprint (checked on its tokenizer)."""
        return {}

    @classmethod
    def _deferred(cls, memo: dict[str, Any], load: Callable[[], LanguageModelAdapter], *,
                  source: str, dtype: str, store: Store, device: str | None
                  ) -> LanguageModelAdapter:
        self = cls.__new__(cls)
        self._model = self._tokenizer = self._engine = None
        self._loader = load
        self.device = None
        self._device_request = device
        self.dtype = dtype
        self.source = source
        self.store = store
        self._extra = dict(memo["extra"])
        self.fingerprint = str(memo["fingerprint"])
        self._described = dict(memo["described"])
        return self

    @property
    def loaded(self) -> bool:
        """Whether the weights are in memory (False on a fully cached rerun)."""
        return self._model is not None

    def _ensure_loaded(self) -> None:
        if self._model is not None:
            return
        assert self._loader is not None
        full = self._loader()
        if full.fingerprint != self.fingerprint:
            raise ModelLoadError(
                f"{self.source}: the model no longer matches the store's record of it "
                f"({full.fingerprint} vs {self.fingerprint}); rerun the command")
        self._model, self._tokenizer, self._engine = full._model, full._tokenizer, full._engine
        self.device = full.device
        self._loader = None

    @property
    def model(self) -> Any:
        self._ensure_loaded()
        return self._model

    @property
    def tokenizer(self) -> PreTrainedTokenizerBase:
        self._ensure_loaded()
        return self._tokenizer

    @property
    def engine(self) -> ForwardEngine:
        self._ensure_loaded()
        assert self._engine is not None
        return self._engine

    @property
    def n_forward(self) -> int:
        """Forward calls (batches) run so far; 0 more on a fully cached rerun."""
        return self._engine.n_forward if self._engine is not None else 0

    def describe(self) -> dict[str, Any]:
        device = str(self.device) if self.device is not None else \
            f"{self._device_request or 'auto'} (not loaded: every answer was cached)"
        return {"kind": self.kind, "source": self.source, "fingerprint": self.fingerprint,
                "class": self._described["class"], "dtype": self.dtype, "device": device,
                "vocab_size": self._described["vocab_size"], **self._extra}

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        """Word pieces of each text, without special tokens (cached in the store)."""
        def pieces(missing: list[str]) -> list[str]:
            enc = self.tokenizer(missing, add_special_tokens=False)["input_ids"]
            return [json.dumps(self.tokenizer.convert_ids_to_tokens(ids)) for ids in enc]

        found = self._stored_texts("pieces", texts, pieces)
        return [json.loads(found[t]) for t in texts]

    def _stored_texts(self, namespace: str, keys: Sequence[str],
                      compute: Callable[[list[str]], list[str]]) -> dict[str, str]:
        """The text of each distinct key in the store's ``namespace``; the missing ones
        are ``compute``d (all at once, each key once) and stored."""
        unique = list(dict.fromkeys(keys))
        found: dict[str, str] = {}
        if self.store is not None:
            found = self.store.get_texts(self.fingerprint, namespace, unique)
        missing = [k for k in unique if k not in found]
        if missing:
            fresh = dict(zip(missing, compute(missing), strict=True))
            if self.store is not None:
                self.store.put_texts(self.fingerprint, namespace, fresh)
            found.update(fresh)
        return found

    # -- caching ---------------------------------------------------------------
    def _cached(self, namespace: str, keys: Sequence[str], plan: Callable[[int], Planned], *,
                progress: bool, label: str, chunk: int | None = None) -> list[np.ndarray]:
        """Answers for ``keys``: from the store when cached, else computed.

        ``plan(i)`` gives the forward-pass requests of ``keys[i]`` and a function that turns
        their answers (one array per request) into the key's stored array. The requests of
        every missing key are pooled, so an input shared by several keys runs once. The
        distinct inputs run shortest first in chunks of ``chunk`` inputs (default: 8 engine
        batches); after each chunk the keys whose inputs are all answered are written in one
        transaction, so an interrupted run resumes. The progress bar counts distinct inputs,
        advancing after every forward batch; batches are the same with or without it.
        """
        out: list[np.ndarray | None] = [None] * len(keys)
        found: dict[str, np.ndarray] = {}
        if self.store is not None:
            found = self.store.get_arrays(self.fingerprint, namespace, list(dict.fromkeys(keys)))
        first_of: dict[str, int] = {}
        for i, k in enumerate(keys):
            if k in found:
                out[i] = found[k]
            else:
                first_of.setdefault(k, i)
        todo = list(first_of.values())
        if todo:
            found.update(self._compute(namespace, keys, todo, plan, progress=progress,
                                       label=label, chunk=chunk))
        return [o if o is not None else found[keys[i]] for i, o in enumerate(out)]

    def _compute(self, namespace: str, keys: Sequence[str], todo: list[int],
                 plan: Callable[[int], Planned], *, progress: bool, label: str,
                 chunk: int | None) -> dict[str, np.ndarray]:
        from genderscope.progress import progress_bar

        plans = {i: plan(i) for i in todo}
        reads: dict[tuple[int, ...], set[tuple[int, int]]] = {}
        users: dict[tuple[int, ...], list[int]] = {}
        pending: dict[int, int] = {}
        for i, (reqs, _) in plans.items():
            mine = {r.input_ids for r in reqs}
            pending[i] = len(mine)
            for r in reqs:
                reads.setdefault(r.input_ids, set()).update(r.reads)
            for inp in mine:
                users.setdefault(inp, []).append(i)
        inputs = sorted(reads, key=len)
        self.engine.check_lengths(  # before any work: a named item, not a tensor error
            inputs[-1:], lambda ids: self.tokenizer.decode(ids, skip_special_tokens=True))
        left = {inp: len(u) for inp, u in users.items()}
        step = chunk or 8 * self.engine.max_batch
        answers: dict[tuple[int, ...], dict[tuple[int, int], float]] = {}
        done: dict[str, np.ndarray] = {}

        def complete(ready: list[int]) -> None:
            fresh = {}
            for i in ready:
                reqs, finish = plans.pop(i)
                fresh[keys[i]] = finish([np.array([answers[r.input_ids][rd] for rd in r.reads],
                                                  dtype=np.float64) for r in reqs])
                for inp in {r.input_ids for r in reqs}:  # forget answers no key still needs
                    left[inp] -= 1
                    if left[inp] == 0:
                        del answers[inp]
            if self.store is not None and fresh:
                self.store.put_arrays(self.fingerprint, namespace, fresh)
            done.update(fresh)

        complete([i for i in todo if pending[i] == 0])  # nothing to run
        with progress_bar(label, total=len(inputs), enabled=progress) as advance:
            for s in range(0, len(inputs), step):
                part = [Request(inp, tuple(sorted(reads[inp]))) for inp in inputs[s:s + step]]
                for req, vals in zip(part, self.engine.run(part, on_batch=advance), strict=True):
                    answers[req.input_ids] = dict(zip(req.reads, vals.tolist(), strict=True))
                ready = []
                for req in part:
                    for i in users[req.input_ids]:
                        pending[i] -= 1
                        if pending[i] == 0:
                            ready.append(i)
                complete(ready)
        return done


def _memo_key(cls: type, source: ModelSource, options: dict[str, Any]) -> str | None:
    """Key of an adapter memo, or None when the identity needs a load to be told."""
    ident = source.identity()
    return None if ident is None else memo_key("adapter", {
        "identity": ident, "class": cls.__name__, "options": options})
