"""Is the Hugging Face Hub reachable? Asked once per process, in under 3 seconds, before
a Hub id is read, so that an offline machine gets a one-line answer at once instead of
huggingface_hub's ~30 s of retries (5 retries with back-off, not configurable).

- ``HF_HUB_OFFLINE=1`` set, or an HTTP(S) proxy configured: nothing is asked (the
  library's own behaviour applies; a proxy may reach what a direct connection cannot).
- Hub reachable: nothing changes.
- Hub unreachable and the model in the local Hugging Face cache: huggingface_hub is put
  in offline mode for this process (it reads the cache), with a one-line warning.
- Hub unreachable and the model not cached: :class:`ModelLoadError` with the hint
  (``HF_HUB_OFFLINE=1`` and a cached copy, or a local folder).
"""

from __future__ import annotations

import functools
import os
import socket
import sys
from urllib.parse import urlsplit

from genderscope.errors import ModelLoadError, redact

TIMEOUT_S = 3.0
"""Seconds a TCP connection to the Hub may take before it counts as unreachable."""

_PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
               "all_proxy")


@functools.cache
def unreachable(endpoint: str, timeout: float = TIMEOUT_S) -> str | None:
    """Why a TCP connection to ``endpoint`` (a URL) fails, or None when it opens."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def _cached(repo_id: str, revision: str | None) -> bool:
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    return isinstance(found, str)


def check_reachable(repo_id: str, revision: str | None = None) -> None:
    """Fail fast, with a hint, when ``repo_id`` must come from a Hub that cannot be
    reached; go offline when it is cached (see the module docstring)."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE or any(os.environ.get(v) for v in _PROXY_VARS):
        return
    try:
        _ = urlsplit(constants.ENDPOINT).port
    except ValueError:  # huggingface_hub's own modules fail to import with it
        raise ModelLoadError(redact(
            f"$HF_ENDPOINT ({constants.ENDPOINT}) is not a URL: its port is not a number "
            "from 0 to 65535 (percent-encode an '@', '/', '?' or '#' in a password)")) from None
    why = unreachable(constants.ENDPOINT)
    if why is None:
        return
    if _cached(repo_id, revision):
        constants.HF_HUB_OFFLINE = True  # read by huggingface_hub and transformers per call
        print(redact(f"warning: the Hugging Face Hub ({constants.ENDPOINT}) is unreachable "
                     f"({why}); using the cached copy of {repo_id}"), file=sys.stderr)
        return
    raise ModelLoadError(
        f"cannot reach the Hugging Face Hub ({constants.ENDPOINT}: {why}) to fetch "
        f"{repo_id}; offline, set HF_HUB_OFFLINE=1 to use a cached copy, or give a local "
        "folder or .gguf file")
