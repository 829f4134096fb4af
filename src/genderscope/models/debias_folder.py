"""The folder ``genderscope debias inlp|sentence-debias|self-debias`` writes, and reading it
back (safetensors + JSON only: nothing is unpickled).

``OUT/manifest.json``::

    {"what": "genderscope debias", "technique": "inlp" | "sentence-debias" | "self-debias",
     "base_model": {"spec": ..., "kind": "masked" | "causal", "fingerprint": ...,
                    "hidden_size": d},
     "params": {...}, "data": {...}, "projection_sha256": ... (projection techniques)}

``OUT/projection.safetensors`` (INLP, SentenceDebias): ``projection`` (d x d, float32), the
matrix applied to every last hidden state, and ``directions`` (what was removed). Files are
written beside their final name and renamed into place; the manifest is written last, so
a folder without one is unfinished.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import GenderscopeError
from genderscope.models.memo import cached_sha256, write_atomic

MANIFEST = "manifest.json"
PROJECTION = "projection.safetensors"
TECHNIQUES = ("inlp", "sentence-debias", "self-debias")
WHAT = "genderscope debias"
OURS = (MANIFEST, PROJECTION)


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of a genderscope model folder (any ``debias`` technique, CDS too), or
    None when the folder has none."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenderscopeError(f"{path}: not a readable manifest ({exc})") from None
    if not isinstance(data, dict):
        raise GenderscopeError(f"{path}: not a genderscope manifest")
    return data


def technique_of(manifest: dict[str, Any]) -> str:
    """``inlp``, ``sentence-debias``, ``self-debias``, or ``cds`` for a fine-tuned folder."""
    tech = manifest.get("technique")
    return str(tech) if isinstance(tech, str) else "cds"


def debias_tag(manifest: dict[str, Any]) -> str:
    """SHA-256 of the technique, its parameters and the projection file's hash."""
    import hashlib

    what = {"technique": technique_of(manifest), "params": manifest.get("params") or {},
            "projection_sha256": manifest.get("projection_sha256")}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def fingerprint_suffix(manifest: dict[str, Any]) -> str:
    """``|debias:TECHNIQUE:TAG`` (:func:`debias_tag`), what a debiased model's
    fingerprint adds to its base model's."""
    return f"|debias:{technique_of(manifest)}:{debias_tag(manifest)}"


def is_debias_folder(spec: str | Path) -> bool:
    """Whether ``spec`` is a folder written by ``debias inlp|sentence-debias|self-debias``."""
    p = Path(str(spec)).expanduser()
    if not (p / MANIFEST).is_file():
        return False
    m = read_manifest(p)
    return m is not None and m.get("what") == WHAT and technique_of(m) in TECHNIQUES


def prepare(out: Path, technique: str, overwrite: bool) -> None:
    """Check ``out`` before any work: missing or empty is fine; a folder this technique
    wrote is replaced only with ``overwrite``; anything else (another technique's model,
    an unfinished fine-tuning run, files genderscope did not write) is refused."""
    if out.exists() and not out.is_dir():
        raise GenderscopeError(f"output path {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        manifest = read_manifest(out)
        if manifest is None:
            what = ("an unfinished `debias` fine-tuning run" if (out / "checkpoints").is_dir()
                    else "files genderscope did not write")
            raise GenderscopeError(f"output folder {out} holds {what}; refusing to write "
                                   f"{technique} output there: choose another --out")
        made = technique_of(manifest)
        if made != technique:
            raise GenderscopeError(f"output folder {out} holds a model made by `debias "
                                   f"{made}`; refusing to put {technique} output there: "
                                   "choose another --out")
        if not overwrite:
            raise GenderscopeError(f"output folder {out} already exists; pass --overwrite to "
                                   "replace it")
        for name in OURS:
            (out / name).unlink(missing_ok=True)
    # the folder itself is made by write(): a run refused later (a model without hidden
    # states, a corpus without attribute words) leaves nothing behind


def write(out: Path, manifest: dict[str, Any], tensors: dict[str, np.ndarray] | None) -> None:
    """Write the projection (if any), then the manifest (with the projection's hash)."""
    from safetensors.numpy import save

    from genderscope.results import to_json

    out.mkdir(parents=True, exist_ok=True)
    if tensors is not None:
        blob = save({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()},
                    metadata={"technique": str(manifest["technique"])})
        write_atomic(out / PROJECTION, blob)
        manifest = {**manifest, "projection_sha256": cached_sha256(out / PROJECTION)}
    write_atomic(out / MANIFEST, to_json(manifest, indent=2) + "\n")


def load_projection(folder: Path, manifest: dict[str, Any]) -> np.ndarray:
    """The projection matrix of ``folder``, checked against the manifest's hash and the
    base model's hidden size (float32, d x d)."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    path = Path(folder) / PROJECTION
    if not path.is_file():
        raise GenderscopeError(f"{path}: missing; the folder is not a complete "
                               f"{technique_of(manifest)} model")
    if cached_sha256(path) != manifest.get("projection_sha256"):
        raise GenderscopeError(f"{path}: does not match its manifest (hash differs): the "
                               "projection file comes from another run")
    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as exc:
        raise GenderscopeError(f"{path}: not a readable safetensors file ({exc})") from None
    proj = tensors.get("projection")
    d = (manifest.get("base_model") or {}).get("hidden_size")
    if proj is None or proj.ndim != 2 or proj.shape[0] != proj.shape[1] or proj.shape[0] != d:
        raise GenderscopeError(f"{path}: holds no {d} x {d} projection for this model")
    return proj
