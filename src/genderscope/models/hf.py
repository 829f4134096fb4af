"""Loading Hugging Face models (Hub id, local folder, GGUF file) and the parts
both language-model adapters share: device, dtype, fingerprint, score cache."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import transformers
from transformers import AutoConfig, AutoTokenizer, PreTrainedTokenizerBase

from genderscope.errors import ModelLoadError
from genderscope.models.engine import ForwardEngine
from genderscope.results import file_sha256
from genderscope.store import Store

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")
"""A Hugging Face Hub id: ``name`` or ``owner/name``."""


def pick_device(device: str | None) -> torch.device:
    """``device`` if given, else CUDA, then MPS, then CPU."""
    if device:
        try:
            dev = torch.device(device)
        except RuntimeError as exc:
            raise ModelLoadError(f"unknown device {device!r}: {exc}") from None
        mps = getattr(torch.backends, "mps", None)
        if (dev.type == "cuda" and not torch.cuda.is_available()) or (
                dev.type == "mps" and not (mps and mps.is_available())):
            raise ModelLoadError(f"--device {device}: no {dev.type.upper()} device is "
                                 "available here; use --device cpu or leave it out")
        return dev
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def pick_dtype(dtype: str) -> torch.dtype:
    if dtype not in DTYPES:
        raise ModelLoadError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    return DTYPES[dtype]


class ModelSource:
    """Where a model comes from: a Hub id, a local folder or a GGUF file.

    ``fingerprint`` identifies the weights: ``hf:<id>@<revision>`` for Hub
    models, ``sha256:<digest>`` of the weights file(s) for local folders and GGUF
    files.
    """

    def __init__(self, spec: str | Path, revision: str | None = None) -> None:
        self.spec = str(spec)
        self.revision = revision
        path = Path(self.spec).expanduser()
        self.gguf_file: str | None = None
        if path.suffix.lower() == ".gguf":
            if not path.is_file():
                raise ModelLoadError(f"GGUF file not found: {path}")
            self.kind_of_source = "gguf"
            self.location = str(path.parent)
            self.gguf_file = path.name
            self.path: Path | None = path
        elif path.is_dir():
            self.kind_of_source = "folder"
            self.location = str(path)
            self.path = path
        elif self.spec.startswith((".", "~", os.sep)) or not HUB_ID.fullmatch(self.spec):
            raise ModelLoadError(f"model path not found: {self.spec}")
        else:  # "gpt2", "google-bert/bert-base-uncased", "Qwen/Qwen2.5-0.5B"
            self.kind_of_source = "hub"
            self.location = self.spec
            self.path = None

    def config(self) -> Any:
        try:
            if self.gguf_file:
                return AutoConfig.from_pretrained(self.location, gguf_file=self.gguf_file)
            return AutoConfig.from_pretrained(self.location, revision=self.revision,
                                              trust_remote_code=False)
        except Exception as exc:  # noqa: BLE001 - every loader failure is the user's input
            raise ModelLoadError(f"cannot read model config from {self.spec}: "
                                 f"{_one_line(exc)}") from None

    def tokenizer(self) -> PreTrainedTokenizerBase:
        try:
            if self.gguf_file:
                cached = _gguf_tokenizer_cache(self.path)  # type: ignore[arg-type]
                if cached.is_dir():
                    return AutoTokenizer.from_pretrained(str(cached))
                tok = AutoTokenizer.from_pretrained(self.location, gguf_file=self.gguf_file)
                with contextlib.suppress(OSError):
                    tok.save_pretrained(str(cached))
                return tok
            return AutoTokenizer.from_pretrained(self.location, revision=self.revision,
                                                 trust_remote_code=False)
        except Exception as exc:  # noqa: BLE001
            raise ModelLoadError(f"cannot load tokenizer from {self.spec}: "
                                 f"{_one_line(exc)}") from None

    def load(self, auto_class: Any, dtype: torch.dtype) -> tuple[Any, dict[str, Any]]:
        """Instantiate ``auto_class`` with pretrained weights; returns (model, loading info)."""
        kwargs: dict[str, Any] = {"dtype": dtype, "output_loading_info": True,
                                  "trust_remote_code": False}
        if self.gguf_file:
            kwargs["gguf_file"] = self.gguf_file
        else:
            kwargs["revision"] = self.revision
        level = transformers.logging.get_verbosity()
        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()  # our own bars only
        try:
            with _quiet_gguf():
                model, info = auto_class.from_pretrained(self.location, **kwargs)
        except Exception as exc:  # noqa: BLE001
            what = "GGUF file" if self.gguf_file else "model"
            raise ModelLoadError(f"cannot load {what} {self.spec}: {_one_line(exc)}") from None
        finally:
            transformers.logging.set_verbosity(level)
        return model, info

    def fingerprint(self, config: Any) -> str:
        if self.kind_of_source == "hub":
            rev = getattr(config, "_commit_hash", None) or self.revision or "unknown-revision"
            return f"hf:{self.spec}@{rev}"
        assert self.path is not None
        files = [self.path] if self.path.is_file() else sorted(
            p for p in self.path.iterdir()
            if p.name in WEIGHT_FILES or (p.suffix in (".safetensors", ".bin")
                                          and p.name.startswith("model")))
        if not files:
            raise ModelLoadError(f"no weights file (model.safetensors / pytorch_model.bin) "
                                 f"in {self.path}")
        if len(files) == 1:
            return "sha256:" + _cached_sha256(files[0])
        h = hashlib.sha256()
        for f in files:
            h.update(f.name.encode() + b"\0" + _cached_sha256(f).encode())
        return "sha256:" + h.hexdigest()


@contextlib.contextmanager
def _quiet_gguf() -> Iterator[None]:
    """Silence transformers' own tqdm bar while it de-quantises GGUF tensors."""
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:  # pragma: no cover - transformers without GGUF support
        yield
        return
    original = gguf_utils.tqdm
    gguf_utils.tqdm = functools.partial(original, disable=True)
    try:
        yield
    finally:
        gguf_utils.tqdm = original


def _cached_sha256(path: Path) -> str:
    """SHA-256 of a file, memoised beside the store keyed by path, size and mtime."""
    st = path.stat()
    memo_dir = Path(os.environ.get("GENDERSCOPE_CACHE", Path.home() / ".cache" / "genderscope"))
    key = hashlib.sha1(f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()
    memo = memo_dir / "hashes" / key
    if memo.is_file():
        return memo.read_text().strip()
    digest = file_sha256(path)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        memo.write_text(digest)
    except OSError:
        pass
    return digest


def _gguf_tokenizer_cache(gguf: Path) -> Path:
    st = gguf.stat()
    key = hashlib.sha1(f"{gguf.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()
    base = Path(os.environ.get("GENDERSCOPE_CACHE", Path.home() / ".cache" / "genderscope"))
    return base / "gguf-tokenizers" / key[:16]


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


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


class LanguageModelAdapter:
    """Shared plumbing of :class:`MaskedLM` and :class:`CausalLM`."""

    kind = "lm"

    def __init__(self, model: Any, tokenizer: PreTrainedTokenizerBase, *, fingerprint: str,
                 source: str, device: torch.device, dtype: str, store: Store | None,
                 batch_size: int, max_tokens: int, extra: dict[str, Any] | None = None) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ModelLoadError(f"{source}: a fast (Rust) tokenizer is required for "
                                 "character offsets; none could be loaded")
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.device = device
        self.dtype = dtype
        self.source = source
        self.store = store
        self._extra = dict(extra or {})
        opts = json.dumps({"dtype": dtype, **self._extra}, sort_keys=True)
        self.fingerprint = f"{fingerprint}|{opts}"
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.engine = ForwardEngine(self.model, int(pad), device, max_batch=batch_size,
                                    max_tokens=max_tokens)

    @property
    def n_forward(self) -> int:
        """Forward calls (batches) run so far; 0 more on a fully cached rerun."""
        return self.engine.n_forward

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "fingerprint": self.fingerprint,
                "class": type(self.model).__name__, "dtype": self.dtype,
                "device": str(self.device), "vocab_size": len(self.tokenizer), **self._extra}

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        """Word pieces of each text, without special tokens."""
        enc = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [self.tokenizer.convert_ids_to_tokens(ids) for ids in enc]

    # -- caching ---------------------------------------------------------------
    def _cached(self, namespace: str, keys: Sequence[str],
                compute: Callable[[list[int]], list[np.ndarray]], *, progress: bool,
                label: str, chunk: int = 512) -> list[np.ndarray]:
        """Answers for ``keys``: from the store when cached, else ``compute(indices)``.

        Distinct missing keys are computed in chunks, and each chunk is written in
        its own transaction, so an interrupted run resumes where it stopped.
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
            from genderscope.progress import progress_bar
            with progress_bar(label, total=len(todo), enabled=progress) as advance:
                for s in range(0, len(todo), chunk):
                    idx = todo[s:s + chunk]
                    values = compute(idx)
                    fresh = {keys[i]: v for i, v in zip(idx, values, strict=True)}
                    if self.store is not None:
                        self.store.put_arrays(self.fingerprint, namespace, fresh)
                    found.update(fresh)
                    advance(len(idx))
        return [o if o is not None else found[keys[i]] for i, o in enumerate(out)]
