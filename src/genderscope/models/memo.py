"""What an adapter is, told without loading it: memoised file hashes and adapter memos.

- :func:`cached_sha256`: a file's SHA-256, memoised under ``$GENDERSCOPE_CACHE/hashes``
  by path, size and modification time (a changed file is hashed again).
- Adapter memos: after a model loads once, its description (fingerprint, shape ...) is
  stored in the store under :data:`MEMO_MODEL`, keyed by :func:`memo_key` over a
  torch-free identity of its files. A later open finds the memo and defers the load to
  the first question the caches cannot answer (see ``hf.py``, ``vectors.py``,
  ``encoder.py``). Standard library only: importing this module loads no model code.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

MEMO_MODEL = "~adapter-memo"
"""``scores.model`` of the adapter memos (one per identity and options)."""


def cache_dir() -> Path:
    """``$GENDERSCOPE_CACHE`` or ``~/.cache/genderscope``."""
    return Path(os.environ.get("GENDERSCOPE_CACHE", Path.home() / ".cache" / "genderscope"))


def cached_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file, memoised by path, size and mtime (nanoseconds)."""
    from genderscope.results import file_sha256

    st = path.stat()
    key = hashlib.sha1(f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()
    memo = cache_dir() / "hashes" / key
    if memo.is_file():
        return memo.read_text().strip()
    digest = file_sha256(path)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        memo.write_text(digest)
    except OSError:
        pass
    return digest


def memo_key(kind: str, identity: Any) -> str:
    """Key of an adapter memo: SHA-256 over the adapter kind, its identity (JSON) and
    the genderscope version (a new version may describe a model differently)."""
    from genderscope import __version__

    blob = json.dumps({"kind": kind, "identity": identity, "genderscope": __version__},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def read_memo(store: Any, kind: str, key: str) -> dict[str, Any] | None:
    """The memo stored under ``key`` for adapters of ``kind``, or None."""
    if store is None or not hasattr(store, "get_texts"):
        return None
    raw = store.get_texts(MEMO_MODEL, kind, [key]).get(key)
    return json.loads(raw) if raw is not None else None


def write_memo(store: Any, kind: str, key: str, memo: dict[str, Any]) -> None:
    """Store ``memo`` (a JSON object) under ``key`` for adapters of ``kind``."""
    if store is not None and hasattr(store, "put_texts"):
        store.put_texts(MEMO_MODEL, kind, {key: json.dumps(memo, sort_keys=True)})
