"""What an adapter is, told without loading it: memoised file hashes and adapter memos.

- :func:`cached_sha256`: a file's SHA-256, memoised under ``$GENDERSCOPE_CACHE/hashes``
  by :func:`stat_key` (path, size, modification time, and what a user cannot set back:
  inode change time, inode, device), so rewritten bytes are always hashed again.
- Adapter memos: after a model loads once, its description (fingerprint, shape ...) is
  stored in the store under :data:`MEMO_MODEL`, keyed by :func:`memo_key` over a
  torch-free identity of its files. A later open finds the memo and defers the load to
  the first question the caches cannot answer (see ``hf.py``, ``vectors.py``,
  ``encoder.py``). Standard library only: importing this module loads no model code.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import re
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

MEMO_MODEL = "~adapter-memo"
"""``scores.model`` of the adapter memos (one per identity and options)."""


def cache_dir() -> Path:
    """``$GENDERSCOPE_CACHE`` or ``~/.cache/genderscope``."""
    return Path(os.environ.get("GENDERSCOPE_CACHE", Path.home() / ".cache" / "genderscope"))


HEX64 = re.compile(r"[0-9a-f]{64}")


RACY_NS = 2_000_000_000
"""A memo is trusted only for a file whose inode last changed at least this long (2 s)
before it was hashed. File times tick coarsely (a few milliseconds; seconds on some
file systems): bytes rewritten within the tick of the hash could otherwise keep every
part of :func:`stat_key`. A file that changed so recently is hashed again (as git does
for "racily clean" files), until a hash made later than that vouches for it."""


def stat_key(path: Path, st: os.stat_result | None = None) -> str:
    """What tells a file's bytes without reading them: its resolved path, size,
    modification time, inode change time (nanoseconds), inode and device. A user can set
    the modification time back (``os.utime``) but not the change time (``utime`` itself
    moves it to now) nor the inode, so rewritten bytes always change the key."""
    st = st or path.stat()
    return (f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}|"
            f"{st.st_ino}|{st.st_dev}")


def cached_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file, memoised by :func:`stat_key`.

    The memo is JSON (the file's identity, the digest, when it was made), renamed into
    place. A memo that is empty, truncated, not for this file, without a 64-hex-digit digest
    (one warning) or made within :data:`RACY_NS` of the file's last change (silently) is not
    trusted: the file is hashed again and the memo rewritten.
    """
    from genderscope.results import file_sha256

    st = path.stat()
    ident = stat_key(path, st)
    key = hashlib.sha1(ident.encode()).hexdigest()
    memo = cache_dir() / "hashes" / key
    if memo.is_file():
        found, hashed_at = _read_hash_memo(memo, ident)
        if found is not None:
            if hashed_at is not None and st.st_ctime_ns < hashed_at - RACY_NS:
                return found
        else:
            warnings.warn(f"the file-hash memo {memo} is damaged; hashing {path} again",
                          UserWarning, stacklevel=2)
    hashed_at = time.time_ns()  # before the first byte is read
    digest = file_sha256(path)
    if not HEX64.fullmatch(digest):  # pragma: no cover - file_sha256 returns hex
        raise ValueError(f"bad SHA-256 of {path}: {digest!r}")
    with contextlib.suppress(OSError):
        memo.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(memo, json.dumps({"file": ident, "sha256": digest,
                                        "hashed_at": hashed_at}))
    return digest


def _read_hash_memo(memo: Path, ident: str) -> tuple[str | None, int | None]:
    """The digest a memo holds for ``ident`` (None when it is unreadable or wrong) and
    when it was hashed (nanoseconds since the epoch; None when not recorded)."""
    try:
        data = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    if not isinstance(data, dict) or data.get("file") != ident:
        return None, None
    digest = data.get("sha256")
    if not (isinstance(digest, str) and HEX64.fullmatch(digest)):
        return None, None
    hashed_at = data.get("hashed_at")
    return digest, hashed_at if isinstance(hashed_at, int) else None


def write_atomic(path: Path, data: str | bytes) -> None:
    """``data`` (a text: as UTF-8) into a fresh temporary sibling of ``path``, renamed into
    place; on failure no temporary file is left and ``path`` is unchanged."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
    if raw is None:
        return None
    try:
        memo = json.loads(raw)
    except ValueError:
        memo = None
    if not isinstance(memo, dict) or not usable_fingerprint(memo.get("fingerprint", "x")):
        warnings.warn(f"a damaged {kind} memo in the store was ignored; the model loads "
                      "again", UserWarning, stacklevel=2)
        return None
    return memo


def memoised(store: Any, kind: str, key: str | None, what: str, load: Callable[[], T],
             deferred: Callable[[dict[str, Any]], T], memo: Callable[[T], dict[str, Any]]) -> T:
    """``deferred(found)`` when ``store`` holds a memo ``found`` under ``key`` (None: none is
    kept) for adapters of ``kind``; else ``load()`` now (refused inside :func:`peeking`),
    then ``memo`` of what it loaded is stored under ``key``."""
    found = None if key is None else read_memo(store, kind, key)
    if found is not None:
        return deferred(found)
    may_load(what)
    loaded = load()
    if key is not None:
        write_memo(store, kind, key, memo(loaded))
    return loaded


def usable_fingerprint(fingerprint: Any) -> bool:
    """Whether ``fingerprint`` can key reuse: a non-empty string, and every
    ``sha256:`` part followed by a full 64-hex digest (never an empty hash)."""
    if not isinstance(fingerprint, str) or not fingerprint.strip():
        return False
    parts = fingerprint.split("sha256:")[1:]
    return all(HEX64.match(p) for p in parts)


def write_memo(store: Any, kind: str, key: str, memo: dict[str, Any]) -> None:
    """Store ``memo`` (a JSON object) under ``key`` for adapters of ``kind``."""
    if store is not None and hasattr(store, "put_texts"):
        store.put_texts(MEMO_MODEL, kind, {key: json.dumps(memo, sort_keys=True)})


_PEEKING: contextvars.ContextVar[bool] = contextvars.ContextVar("genderscope_peek",
                                                                default=False)


class WouldLoad(RuntimeError):  # noqa: N818 - a signal, not a failure
    """Raised inside :func:`peeking` where a model would load its weights."""


@contextlib.contextmanager
def peeking() -> Any:
    """Open adapters only from their memos: a model the store has not seen raises
    :class:`WouldLoad` instead of loading (the sweep driver tells reuse keys this way
    without loading any model)."""
    token = _PEEKING.set(True)
    try:
        yield
    finally:
        _PEEKING.reset(token)


def may_load(what: str) -> None:
    """Called just before a real load: refuses it inside :func:`peeking`."""
    if _PEEKING.get():
        raise WouldLoad(f"{what} would load (no memo in the store)")


NOT_IDENTITY = ("device", "source", "batch_size", "concurrency", "timeout", "max_retries",
                "api_key_env", "headers")
"""Adapter ``describe()`` keys that do not change a score (where and in what batches it
runs, what the user called it: the fingerprint holds the weights' identity; how an
endpoint's client asks: requests in flight, timeout, retries, the key's variable,
extra headers)."""


def model_identity(adapter: Any) -> dict[str, Any] | None:
    """What of the adapter an answer depends on (its ``describe()`` less
    :data:`NOT_IDENTITY`), or None when it has no fingerprint."""
    describe = getattr(adapter, "describe", None)
    if describe is None or getattr(adapter, "identified", True) is False:
        return None  # e.g. a classifier known only by its callable's name
    info = dict(describe())
    if not usable_fingerprint(info.get("fingerprint")):  # never a key from an empty hash
        return None
    return {k: v for k, v in info.items() if k not in NOT_IDENTITY}
