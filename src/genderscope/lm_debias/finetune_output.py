"""Where fine-tuning writes (:mod:`genderscope.lm_debias.finetune`), under the one output rule
of :mod:`genderscope.outputs`: ``--out`` is checked before any work and never
is the current folder, an input or a folder genderscope did not write; the finished model
is written into a fresh sibling and renamed into place."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genderscope.errors import GenderscopeError
from genderscope.lm_debias.checkpoint import CHECKPOINTS, RUN_FILE, check_same_run
from genderscope.results import to_json

MANIFEST = "manifest.json"


def _genderscope_made(out: Path) -> bool:
    """Whether ``out`` is a folder genderscope debias wrote (its output marker, its
    manifest, or an unfinished run's ``checkpoints/run.json``)."""
    from genderscope.outputs import written_by_genderscope

    if written_by_genderscope(out) is not None or (out / CHECKPOINTS / RUN_FILE).is_file():
        return True
    try:
        what = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("what", "")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(what, str) and what.startswith("fine-tuned with genderscope")


def check_out_dir(out: str | Path, overwrite: bool, inputs: Sequence[Any] = ()) -> str:
    """Check the output folder before any work; changes nothing. Returns ``"new"``,
    ``"resume"`` (a folder holding only an unfinished run: checkpoints, no manifest) or
    ``"replace"`` (``overwrite`` of a folder genderscope wrote).

    Refused (:mod:`genderscope.outputs`): a file, a link, a device, the current folder or
    an ancestor of it, an input or a folder holding one (model, corpus, pair lists); an
    existing folder without ``overwrite``; with ``overwrite``, a folder genderscope did
    not write."""
    from genderscope.outputs import check_not_unsafe

    out = check_not_unsafe(out, "--out", inputs)
    if out.exists() and not out.is_dir():
        raise GenderscopeError(f"output path {out} exists and is not a folder")
    if not (out.is_dir() and any(out.iterdir())):
        return "new"
    unfinished = (out / CHECKPOINTS).is_dir() and not (out / MANIFEST).exists()
    if overwrite:
        if not _genderscope_made(out):
            raise GenderscopeError(f"--out {out} holds files genderscope did not write; "
                                   "--overwrite replaces only a folder genderscope debias "
                                   "wrote. Choose another folder")
        return "replace"
    if unfinished:
        if not (out / CHECKPOINTS / RUN_FILE).is_file():
            check_same_run(out, {})  # refuses: nothing says which run wrote them
        return "resume"
    raise GenderscopeError(f"output folder {out} already exists; pass --overwrite to "
                           "replace it")


def publish_model(model: Any, tok: Any, manifest: dict[str, Any], texts: Sequence[str] | None,
             out: Path) -> None:
    """Write the finished model, tokenizer, manifest (and training units) into a fresh
    sibling of ``out`` and rename it into place, keeping what ``out`` holds until then."""
    from safetensors import SafetensorError

    from genderscope.outputs import mark_folder, new_folder_beside, publish_folder

    final = None
    try:
        final = new_folder_beside(out)
        model.save_pretrained(final, safe_serialization=True)
        tok.save_pretrained(final)
        (final / MANIFEST).write_text(to_json(manifest, indent=2) + "\n", encoding="utf-8")
        if texts is not None:
            with open(final / "training_corpus.jsonl", "w", encoding="utf-8") as fh:
                for t in texts:
                    fh.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")
        mark_folder(final, [p.name for p in final.iterdir()])
        publish_folder(final, out)
        final = None
    except (OSError, SafetensorError) as exc:
        raise GenderscopeError(f"cannot write the fine-tuned model to {out}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    finally:
        if final is not None:
            shutil.rmtree(final, ignore_errors=True)
