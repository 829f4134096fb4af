"""Errors a user can cause. The CLI prints them as one line and exits with code 2.

Secrets never leave the process (issue 37): :func:`redact` replaces every secret the
process was told of (:func:`add_secret`: an endpoint's API key, the credentials in its
URL) and the userinfo of any URL (``http://user:pw@host`` -> ``http://***@host``) with
``***``. A :class:`GenderscopeError`'s text is redacted, and so is every string of a
result's summary and metadata when it is written (``genderscope.results.to_json``: the
store's rows, ``summary.json``, the CLI's JSON). It also masks the value of a URL's
credential-like query parameter (``?api_key=...``, ``&access_token=...``) and the
values of the secret environment variables :data:`ENV_SECRETS`, told or not.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable

MASK = "***"
_SECRETS: set[str] = set()
_SECRETS_LOCK = threading.Lock()
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s]*@")
_KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}|"
                         r"AIza[0-9A-Za-z_-]{35}|gh[pousr]_[A-Za-z0-9]{36,})")
"""Tokens shaped as well-known API keys (OpenAI-style ``sk-...``, Hugging Face ``hf_...``,
Google ``AIza...``, GitHub ``ghp_...``): masked wherever they turn up, told or not (a
key typed where a name was wanted: ``--api-key-env hf_...``)."""
SECRET_NAME = re.compile(r"(?:(?:[\w.-]*[-_.])?(?:api[-_]?key|(?:access|auth|bearer|refresh)"
                         r"[-_]?token|(?:client[-_]?)?secret|password|passwd|authorization)"
                         r"|token|auth|pwd|credentials?)", re.IGNORECASE)
"""The name of a field whose value is a credential, the one rule for a body field
(``{"api_key": ...}`` in ``--extra-body``: :func:`is_secret_name`, the JSON pairs
:func:`redact` masks), a header (:func:`genderscope.models.endpoint_urls.parse_headers`)
and a URL's query parameter (:data:`_QUERY_SECRET`): ``api_key``, ``access_token``,
``auth_token``, ``bearer_token``, ``refresh_token``, ``secret``, ``client_secret``,
``password``, ``passwd``, ``authorization``, also after a prefix (``x_api_key``,
``openai_api_key``, ``my.password``), and, as whole names only, ``token``, ``auth``,
``pwd`` and ``credential(s)`` (``max_tokens`` and ``eos_token`` are no credentials, nor is
``key``: WEAT's items have a ``key`` column). A header or a query parameter is also one
when its name merely holds or ends in such a word (their names are never result data)."""
_QUERY_SECRET = re.compile(
    rf"(?i)([?&](?:{SECRET_NAME.pattern}|[\w.-]*?(?:key|token|secret|passw(?:or)?d|pwd|sig|"
    r"signature|auth|credentials?))=)[^&#\s'\"]+")
"""A query parameter named by :data:`SECRET_NAME` or whose name ends like a credential's
(``apikey``, ``id_token``, ``X-Amz-Signature``), up to its value."""
_JSON_SECRET = re.compile(rf"""(["']{SECRET_NAME.pattern}["']\s*:\s*["'])[^"']*""",
                          re.IGNORECASE)
MIN_SECRET = 4
"""Shorter values are not secrets worth the name (and would mask ordinary text)."""
PLACEHOLDERS = frozenset({"none", "empty", "dummy", "null", "not-needed", "no-key",
                          "sk-no-key-required", "ollama", "lm-studio"})
"""Key values that are no secret (any case): what local servers' guides put in
``$OPENAI_API_KEY`` (vLLM ``EMPTY``, llama.cpp ``sk-no-key-required``, Ollama ``ollama``,
LM Studio ``lm-studio``) and the endpoint's own ``none``; masked, they would turn every
"none" of a result's text into ``***``."""
ENV_SECRETS = ("OPENAI_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "RAY_AUTH_TOKEN")
"""Environment variables whose value is a secret wherever it turns up (the endpoint's
default key, the Hugging Face Hub's tokens, a Ray cluster's token), read at each
:func:`redact`."""
ENV_URLS = ("HF_ENDPOINT", "OPENAI_BASE_URL", "GENDERSCOPE_DATA_MIRROR", "HTTPS_PROXY",
            "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
"""Environment variables holding a URL whose userinfo (:func:`url_secrets`) is a secret
wherever it turns up (a Hub mirror's, a proxy's credentials), read at each
:func:`redact`."""


def add_secret(value: str | None) -> None:
    """Remember ``value`` (an API key, a password) as a secret :func:`redact` masks; also
    without its surrounding white space (a key read with a trailing newline)."""
    if not value:
        return
    with _SECRETS_LOCK:
        _SECRETS.update(v for v in {value, value.strip()} if _worth_masking(v))


def _worth_masking(value: str) -> bool:
    return len(value) >= MIN_SECRET and value.strip().lower() not in PLACEHOLDERS


def near_names(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The names of ``known`` close to a mistyped ``name``, closest first, case aside
    (``crows-pair``, ``CrowS-Pairs``, ``WEAT6``, ``SmolLM2``): difflib's similarity ratio
    of at least 0.75; the one matching of every "did you mean" hint."""
    from difflib import get_close_matches

    lowered = {k.lower(): k for k in known}
    return [lowered[m] for m in get_close_matches(str(name).lower(), lowered, n=n,
                                                  cutoff=0.75)]


def did_you_mean(name: str, known: Iterable[str], n: int = 2) -> str:
    """``"did you mean 'a' or 'b'? "`` naming :func:`near_names` of ``name`` in ``known``,
    or ``""`` when none is near: the hint an unknown measure's one line carries."""
    near = near_names(name, known, n=n)
    return f"did you mean {' or '.join(map(repr, near))}? " if near else ""


def url_userinfo(url: str) -> str:
    """The userinfo of ``url`` as its secrets are read: what lies between ``://`` (or its
    start when it has no scheme, as a proxy variable may not) and its last ``@`` that does
    not begin a path segment, so also a password holding an unencoded ``/``, ``?``, ``#``
    or ``@``; an ``@`` beginning a path segment after the first is the path's
    (``/v1/@team/models``, RFC 3986 section 3.3 allows it), but one right after the first
    ``/`` ends a userinfo (``user:pw/@host``: a password ending in ``/``), and "" when there
    is none."""
    rest = url.strip()
    rest = rest.partition("://")[2] if "://" in rest else rest
    for at in reversed([i for i, c in enumerate(rest) if c == "@"]):
        before = rest[:at]
        if not (before.endswith("/") and "/" in before.rstrip("/")):
            return before
    return ""


def url_secrets(url: str) -> list[str]:
    """The :func:`url_userinfo` of ``url`` and its password, as typed and percent-decoded;
    none shorter than :data:`MIN_SECRET`."""
    from urllib.parse import unquote

    info = url_userinfo(url)
    password = info.partition(":")[2]
    return [v for v in (info, unquote(info), password, unquote(password))
            if len(v) >= MIN_SECRET]


def add_url_secrets(url: str) -> None:
    """Tell :func:`add_secret` the :func:`url_secrets` of ``url``."""
    for value in url_secrets(url):
        add_secret(value)


def is_secret_name(name: object) -> bool:
    """Whether a field named ``name`` holds a credential (:data:`SECRET_NAME`)."""
    return isinstance(name, str) and SECRET_NAME.fullmatch(name.strip()) is not None


def redact(text: str) -> str:
    """``text`` with every secret of :func:`add_secret` or :data:`ENV_SECRETS`, every
    URL's userinfo, every credential-like query value or JSON field (``"api_key": "..."``)
    and every token shaped as a well-known API key replaced by ``***``."""
    from_env = [v.strip() for v in map(os.environ.get, ENV_SECRETS) if v]
    from_env += [s for u in map(os.environ.get, ENV_URLS) if u and "@" in u
                 for s in url_secrets(u)]
    if _SECRETS or from_env:
        with _SECRETS_LOCK:
            secrets = {*_SECRETS, *(v for v in from_env if _worth_masking(v))}
        for secret in sorted(secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, MASK)
    if "@" in text and "://" in text:
        text = _USERINFO.sub(rf"\1{MASK}@", text)
    if "=" in text:
        text = _QUERY_SECRET.sub(rf"\1{MASK}", text)
    if ":" in text:
        text = _JSON_SECRET.sub(rf"\1{MASK}", text)
    return _KEY_SHAPES.sub(MASK, text)


class GenderscopeError(Exception):
    """A problem with the user's input (file, word list, model path, option).

    The message must say what is wrong and where (file, line, column, option),
    on one line, without a traceback. Its text never holds a secret (:func:`redact`).
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))

    def __str__(self) -> str:  # a secret told after the error was made
        return redact(super().__str__())


class ArgumentError(GenderscopeError, TypeError):
    """An argument of a public function (or a declared option) of the wrong type: one line
    naming it and what it must be. A :class:`GenderscopeError` like every bad input, and a
    ``TypeError`` as Python's own type errors are."""


class DataError(GenderscopeError):
    """A data file is missing, malformed or inconsistent."""


class DataUnavailable(DataError):
    """A registered data set is neither here nor fetchable now (offline, or its source
    unreachable); ``dataset`` names it, for one ``genderscope data fetch`` hint."""

    def __init__(self, dataset: str, message: str) -> None:
        super().__init__(message)
        self.dataset = dataset


class ModelLoadError(GenderscopeError):
    """A model cannot be loaded or is unsuitable (e.g. its LM head is missing)."""


def where(path: object, line: int | None = None, column: str | None = None) -> str:
    """Format a location as ``path:line (column 'c')`` for error messages."""
    out = str(path)
    if line is not None:
        out += f":{line}"
    if column is not None:
        out += f" (column {column!r})"
    return out


def user_code_failure(exc: BaseException) -> str:
    """What a user's code (a classifier's module, factory or function) did, in one line:
    ``it called exit(3)`` for ``SystemExit``, else ``TypeError: <first line>`` (redacted)."""
    if isinstance(exc, SystemExit):
        return f"it called exit({exc.code!r})"
    text = redact(str(exc)).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}"[:300]
