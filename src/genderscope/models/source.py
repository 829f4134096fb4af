"""Where a Hugging Face model comes from and how it is loaded: Hub id, local folder or
GGUF file (:class:`ModelSource`), its fingerprint and torch-free identity, device and
dtype choice (the check of a loaded checkpoint's head: :mod:`genderscope.models.head_check`).

GGUF files are read by transformers in Python (the whole header for the config, every
tensor de-quantised on load); what it makes of one (config, tokenizer, de-quantised
model) is kept under ``$GENDERSCOPE_CACHE`` so a file is read once.

torch and transformers are imported inside the functions that need them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.checks import shown_option
from genderscope.errors import ModelLoadError
from genderscope.models.memo import cache_dir, stat_key
from genderscope.models.memo import cached_sha256 as _cached_sha256
from genderscope.models.quiet import loading

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase

DTYPE_NAMES = ("float32", "float16", "bfloat16")
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
TOKENIZER_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json",
                   "special_tokens_map.json", "added_tokens.json", "vocab.txt", "vocab.json",
                   "merges.txt", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model")
"""Files besides the weights that decide how a local folder tokenizes and what it is."""


HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")
"""A Hugging Face Hub id: ``name`` or ``owner/name``."""


def cuda_available() -> bool:
    """Whether torch sees a CUDA device (``torch.cuda.is_available()``; torch is imported
    here, on the first call, so that a caller above the adapters never imports it)."""
    import torch

    return bool(torch.cuda.is_available())


def pick_device(device: str | None) -> torch.device:
    """``device`` if given, else CUDA, then MPS, then CPU."""
    import torch

    mps = getattr(torch.backends, "mps", None)
    if device:
        try:
            dev = torch.device(device)
        except RuntimeError as exc:
            raise ModelLoadError(f"unknown device {device!r}: {exc}") from None
        if (dev.type == "cuda" and not torch.cuda.is_available()) or (
                dev.type == "mps" and not (mps and mps.is_available())):
            flag = shown_option("--device")  # device=... from Python
            raise ModelLoadError(f"{flag} {device}: no {dev.type.upper()} device is "
                                 f"available here; use {flag} cpu or leave it out")
        return dev
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("mps" if mps and mps.is_available() else "cpu")


def check_device(device: str | None) -> None:
    """Refuse a ``device`` that is not here before anything is looked up or loaded, so a
    run the store could answer fails as a fresh one does (no device or a CPU: no torch)."""
    if device is not None and device.split(":")[0].strip().lower() != "cpu":
        pick_device(device)


def check_dtype(dtype: str) -> str:
    """``dtype`` if it is one of :data:`DTYPE_NAMES` (no torch import), else a clear error."""
    if dtype not in DTYPE_NAMES:
        raise ModelLoadError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPE_NAMES)}")
    return dtype


def pick_dtype(dtype: str) -> torch.dtype:
    import torch

    return getattr(torch, check_dtype(dtype))


class ModelSource:
    """Where a model comes from: a Hub id, a local folder or a GGUF file. ``fingerprint``:
    ``hf:<id>@<revision>`` for Hub models, ``sha256:<digest>`` of the weights file(s) else.
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
        elif path.is_file():
            raise ModelLoadError(f"model {self.spec} is a file, not a model: give a folder "
                                 "holding config.json, a .gguf file or a Hub id")
        elif self.spec.startswith((".", "~", os.sep)) or not HUB_ID.fullmatch(self.spec):
            raise ModelLoadError(f"model path not found: {self.spec}")
        else:  # "gpt2", "google-bert/bert-base-uncased", "Qwen/Qwen2.5-0.5B"
            from genderscope.models.hub import check_reachable

            check_reachable(self.spec, revision)  # offline: one line in < 5 s, not 30 s
            self.kind_of_source = "hub"
            self.location = self.spec
            self.path = None

    def config(self) -> Any:
        from transformers import AutoConfig

        return self._pretrained(AutoConfig, "gguf-configs", "read model config")

    def tokenizer(self) -> PreTrainedTokenizerBase:
        from transformers import AutoTokenizer

        return self._pretrained(AutoTokenizer, "gguf-tokenizers", "load tokenizer")

    def _pretrained(self, auto_class: Any, kind: str, what: str) -> Any:
        """``auto_class`` (AutoConfig, AutoTokenizer) of this model; from a GGUF file, read
        once and kept under ``$GENDERSCOPE_CACHE/<kind>``. A failure is one line: cannot
        ``what`` from the model."""
        try:
            if not self.gguf_file:
                return auto_class.from_pretrained(self.location, revision=self.revision,
                                                  trust_remote_code=False)
            cached = _gguf_cache(self.path, kind)  # type: ignore[arg-type]
            if cached.is_dir():  # complete: written aside and renamed into place
                with contextlib.suppress(Exception):  # unreadable: read the GGUF again
                    return auto_class.from_pretrained(str(cached))
            made = auto_class.from_pretrained(self.location, gguf_file=self.gguf_file)
            _keep(made, cached)
            return made
        except Exception as exc:  # noqa: BLE001 - every loader failure is the user's input
            raise ModelLoadError(f"cannot {what} from {self.spec}: {_one_line(exc)}") from None

    def load(self, auto_class: Any, dtype: torch.dtype) -> tuple[Any, dict[str, Any]]:
        """Instantiate ``auto_class`` with pretrained weights; returns (model, loading info).
        A stage line shows while it loads (:func:`genderscope.models.quiet.loading`)."""
        with loading(f"loading {self.spec}"):
            return self._weights(auto_class, dtype)

    def _weights(self, auto_class: Any, dtype: torch.dtype) -> tuple[Any, dict[str, Any]]:
        """:meth:`load`'s work.

        transformers de-quantises a GGUF file's weights in Python on every load; the
        de-quantised model is kept as safetensors under ``$GENDERSCOPE_CACHE/gguf-models``
        (:func:`_gguf_cache`, with the dtype) and later loads read that instead: the same
        tensors, bit for bit. ``GENDERSCOPE_GGUF_CACHE=0`` turns the cache off.
        """
        import transformers

        common: dict[str, Any] = {"dtype": dtype, "output_loading_info": True,
                                  "trust_remote_code": False}
        cached = None
        if self.gguf_file:
            where = {"gguf_file": self.gguf_file}
            cached = _gguf_model_cache(self.path, dtype)  # type: ignore[arg-type]
        else:
            where = {"revision": self.revision}
        level = transformers.logging.get_verbosity()
        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()  # our own bars only
        try:
            if cached is not None and cached.is_dir() and _verified(cached):
                with contextlib.suppress(Exception):  # an unreadable cache: load the GGUF
                    return auto_class.from_pretrained(str(cached), **common)
            with _quiet_gguf():
                model, info = auto_class.from_pretrained(self.location, **common, **where)
        except Exception as exc:  # noqa: BLE001
            what = "GGUF file" if self.gguf_file else "model"
            raise ModelLoadError(f"cannot load {what} {self.spec}: {_one_line(exc)}") from None
        finally:
            transformers.logging.set_verbosity(level)
        if cached is not None:
            _keep_dequantized(model, cached)
        return model, info

    def fingerprint(self, config: Any = None) -> str:
        """The weights' identity (see the class doc); Hub ids without ``config`` take the
        revision from the local Hugging Face cache, so no transformers import is needed."""
        if self.kind_of_source == "hub":
            rev = (getattr(config, "_commit_hash", None) if config is not None
                   else self.cached_commit()) or self.revision or "unknown-revision"
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


    def cached_commit(self) -> str | None:
        """The commit of a Hub model's ``config.json`` in the local cache, or None."""
        if self.kind_of_source != "hub":
            return None
        if self.revision and re.fullmatch(r"[0-9a-f]{40}", self.revision):
            return self.revision
        found = self._cached_hub_config()
        m = re.search(r"snapshots[/\\]([0-9a-f]{40})[/\\]", found) if found else None
        return m.group(1) if m else None

    def _cached_hub_config(self) -> str | None:
        """Path of a Hub model's ``config.json`` in the local Hugging Face cache, or None."""
        if self.kind_of_source != "hub":
            return None
        try:
            from huggingface_hub import try_to_load_from_cache

            found = try_to_load_from_cache(self.spec, "config.json", revision=self.revision)
        except Exception:  # noqa: BLE001 - a cache we cannot read: the caller loads normally
            return None
        return found if isinstance(found, str) else None

    def config_json(self) -> dict[str, Any]:
        """``config.json`` of a local folder or of a Hub model in the local cache, read as
        JSON without transformers ({} when there is none to read)."""
        if self.kind_of_source == "folder" and self.path is not None:
            path: Path | None = self.path / "config.json"
        else:
            found = self._cached_hub_config()
            path = Path(found) if found else None
        if path is None or not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def identity(self) -> str | None:
        """What decides every answer of this model, computed without torch: the weights'
        fingerprint, plus for local folders the config and tokenizer files. None when it
        cannot be told without loading (a Hub model missing from the local cache)."""
        if self.kind_of_source == "hub":
            commit = self.cached_commit()
            return f"hf:{self.spec}@{commit}" if commit else None
        base = self.fingerprint()
        if self.kind_of_source == "gguf":
            return base
        assert self.path is not None
        extra = [f"{n}={_cached_sha256(self.path / n)}" for n in TOKENIZER_FILES
                 if (self.path / n).is_file()]
        return base + "|" + hashlib.sha256("|".join(extra).encode()).hexdigest()


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


def _gguf_cache(gguf: Path, kind: str, *extra: object) -> Path:
    """Folder under ``$GENDERSCOPE_CACHE/<kind>`` for what transformers made of a GGUF file
    (config, tokenizer, de-quantised model), keyed by the file's
    :func:`~genderscope.models.memo.stat_key`, the transformers version and ``extra``."""
    import transformers

    parts = [stat_key(gguf), transformers.__version__, *map(str, extra)]
    return cache_dir() / kind / hashlib.sha1("|".join(parts).encode()).hexdigest()[:16]


def _gguf_model_cache(gguf: Path, dtype: Any) -> Path | None:
    """Folder of a GGUF file's de-quantised model, or None when the cache is off."""
    if os.environ.get("GENDERSCOPE_GGUF_CACHE", "1").strip().lower() in ("0", "off", "no",
                                                                          "false"):
        return None
    return _gguf_cache(gguf, "gguf-models", dtype)


CHECKSUMS = "genderscope-sha256.json"
"""File in a kept de-quantised model folder: the SHA-256 of each weights file in it."""


def _weight_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".safetensors", ".bin"))


def _verified(folder: Path) -> bool:
    """Whether every weights file of a kept model has the SHA-256 recorded when it was
    written (flipped bytes, a truncated or a missing file: no). A damaged cache is
    removed, with one warning, so the GGUF file is read and the cache written again."""
    import warnings

    from genderscope.results import file_sha256

    try:
        recorded = json.loads((folder / CHECKSUMS).read_text(encoding="utf-8"))
        files = _weight_files(folder)
        ok = (isinstance(recorded, dict) and bool(files)
              and sorted(recorded) == [f.name for f in files]
              and all(recorded[f.name] == file_sha256(f) for f in files))
    except (OSError, ValueError):
        ok = False
    if not ok:
        warnings.warn(f"the cached de-quantised model {folder} does not match its "
                      "checksums; reading the GGUF file again", UserWarning, stacklevel=3)
        shutil.rmtree(folder, ignore_errors=True)
    return ok


def _keep(obj: Any, folder: Path, *, checksums: bool = False) -> None:
    """``obj.save_pretrained`` into ``folder``, written into a fresh ``mkdtemp`` sibling
    and renamed into place (a reader never sees half of it); ``checksums``: also record
    the SHA-256 of each weights file (:data:`CHECKSUMS`, checked on every read). A
    failure (a full disk) leaves no folder and is no error."""
    import tempfile

    from genderscope.results import file_sha256

    tmp = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
        obj.save_pretrained(str(tmp))
        if checksums:
            sums = {f.name: file_sha256(f) for f in _weight_files(tmp)}
            (tmp / CHECKSUMS).write_text(json.dumps(sums, indent=1), encoding="utf-8")
        os.replace(tmp, folder)
        tmp = None
    except Exception:  # noqa: BLE001 - a cache that cannot be written is no error
        pass
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def detach_gguf_quantizer(model: Any, spec: str) -> None:
    """Make a GGUF-loaded model an ordinary float model that ``save_pretrained`` accepts.

    Without GGUF matmul kernels transformers de-quantises every weight on loading but
    keeps the GGUF quantizer attached, which blocks saving. Checks that no packed GGUF
    layer remains (:class:`ModelLoadError` otherwise), then detaches the quantizer."""
    packed = [n for n, m in model.named_modules() if type(m).__name__.lower().startswith("gguf")]
    if packed:
        raise ModelLoadError(f"{spec}: GGUF layers are still packed ({packed[0]}, ...)")
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


def _keep_dequantized(model: Any, folder: Path) -> None:
    """Keep a de-quantised GGUF model in ``folder``; a model whose layers stay packed
    (GGUF kernels) is not kept."""
    try:
        detach_gguf_quantizer(model, str(folder))
    except ModelLoadError:
        return
    _keep(model, folder, checksums=True)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]
