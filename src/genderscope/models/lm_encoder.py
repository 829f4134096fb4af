"""A masked or causal language model seen as a sentence encoder, for SEAT.

As bias-bench's SEAT on language models (``benchmark/seat/seat.py``, ``_encode``): each
sentence is tokenized as the tokenizer does by default (``tokenizer(text)``: BERT's ``[CLS]
... [SEP]``, nothing added for GPT-2; never the causal adapter's scoring start token) and
run through the body under the LM head (:func:`genderscope.models.projection.hidden_body`;
bias-bench's ``BertModel``, ``GPT2Model``); its vector is the mean of the last hidden state
over every token, divided by its norm. A projection a ``debias`` folder installs (INLP,
SentenceDebias) applies first, as bias-bench's hook, so its removed directions are
orthogonal to every sentence vector. Sentences are batched (right padding, attention-masked
mean: the same vectors as one at a time) and each vector is cached in the store under the
LM's fingerprint (which names the debiasing technique and its parameters); a rerun the store
answers loads no weights.

Self-Debias adjusts output distributions, not hidden states: its SEAT vectors are those of
the base model (the folder is accepted, its fingerprint is kept apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.core.kinds import LM
from genderscope.errors import GenderscopeError

NAMESPACE = "lm-sentence-embedding:mean-last-hidden:normalized"
REPRESENTATION = ("mean of the last hidden state over every token (tokenizer's special "
                  "tokens included), L2-normalised (bias-bench SEAT)")
LM_ARCHITECTURES = ("ForMaskedLM", "ForCausalLM", "LMHeadModel")


class LMSentenceEncoder:
    """``encode(texts)`` of a :class:`~genderscope.models.hf.LanguageModelAdapter`."""

    kind = "encoder"

    def __init__(self, adapter: Any, *, batch_size: int = 32) -> None:
        if getattr(adapter, "kind", None) not in LM:
            raise GenderscopeError(f"{adapter!r} is not a masked or causal language model")
        self.lm = adapter
        self.batch_size = max(1, int(batch_size))
        self.store = getattr(adapter, "store", None)
        self.name = str(adapter.source)
        self.n_encoded = 0
        """Texts actually run through the model (store misses)."""

    @classmethod
    def load(cls, spec: str | Path, *, kind: str = "auto", device: str | None = None,
             dtype: str = "float32", store: Any = None,
             batch_size: int = 32) -> LMSentenceEncoder:
        """The encoder view of ``load_lm(spec)`` (a Hub id, folder, GGUF file, packaged
        name or ``debias`` folder)."""
        from genderscope.models.loading import load_lm

        return cls(load_lm(spec, kind, store=store, device=device, dtype=dtype),
                   batch_size=batch_size)

    @property
    def fingerprint(self) -> str:
        return str(self.lm.fingerprint)

    @property
    def loaded(self) -> bool:
        return bool(self.lm.loaded)

    def describe(self) -> dict[str, Any]:
        info = dict(self.lm.describe())
        return {**info, "kind": "lm-encoder", "lm_kind": self.lm.kind,
                "representation": REPRESENTATION}

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """(len(texts), d) float64 unit vectors, in input order."""
        unique = list(dict.fromkeys(texts))
        found: dict[str, np.ndarray] = {}
        if self.store is not None and unique:
            found = dict(self.store.get_arrays(self.fingerprint, NAMESPACE, unique))
        todo = [t for t in unique if t not in found]
        if todo:
            fresh = dict(zip(todo, self._compute(todo, progress), strict=True))
            if self.store is not None:
                self.store.put_arrays(self.fingerprint, NAMESPACE, fresh)
            found.update(fresh)
            self.n_encoded += len(todo)
        if not texts:
            return np.zeros((0, 0))
        return np.vstack([np.asarray(found[t], dtype=np.float64) for t in texts])

    def _compute(self, texts: list[str], progress: bool) -> list[np.ndarray]:
        from genderscope.models.projection import pooled_states
        from genderscope.progress import progress_bar

        tok = self.lm.tokenizer
        ids = [list(tok(t, add_special_tokens=True)["input_ids"]) for t in texts]
        for t, x in zip(texts, ids, strict=True):
            if not x:
                raise GenderscopeError(f"sentence {t!r} produced no tokens")
        self.lm.engine.check_lengths([tuple(x) for x in ids],
                                     lambda x: tok.decode(x, skip_special_tokens=True))
        with progress_bar("encoding sentences", len(texts), enabled=progress) as advance:
            pooled = pooled_states(self.lm, ids, batch_size=self.batch_size,
                                   progress=advance)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        if np.any(norms == 0) or not np.all(np.isfinite(pooled)):
            raise GenderscopeError(f"{self.name}: a sentence's mean hidden state is zero or "
                                   "not finite; SEAT needs a direction")
        return list(pooled / norms)


def as_sentence_encoder(model: Any) -> Any:
    """``model`` when it encodes sentences already, its encoder view when it is a masked or
    causal LM adapter."""
    if hasattr(model, "encode"):
        return model
    if getattr(model, "kind", None) in LM:
        return LMSentenceEncoder(model)
    raise GenderscopeError(f"SEAT needs a sentence encoder or a language model, not "
                           f"{type(model).__name__}")


def is_lm_spec(spec: str | Path) -> bool:
    """Whether ``spec`` names a language model genderscope loads without the Hub: a
    packaged LM (``smollm2``), a ``.gguf`` file, a ``debias`` folder, or a local folder
    whose ``config.json`` names a masked / causal LM head (and which is no
    sentence-transformers folder)."""
    from genderscope.models.debias_folder import is_debias_folder
    from genderscope.models.loading import PACKAGED
    from genderscope.models.source import ModelSource

    text = str(spec)
    if text in PACKAGED or text.lower().endswith(".gguf"):
        return True
    path = Path(text).expanduser()
    if not path.is_dir():
        return False
    if is_debias_folder(path):
        return True
    if (path / "modules.json").is_file():
        return False
    archs = " ".join(ModelSource(path).config_json().get("architectures") or [])
    return any(a in archs for a in LM_ARCHITECTURES)
