"""Endpoint URLs and headers: a base URL without its credentials (the endpoint's
identity), checked URLs, custom headers parsed and their secrets registered for
redaction, and whether a redirect stays on the endpoint's host (a redirect to another
host is refused: its answers would be stored under the first host's identity)."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from urllib.parse import unquote, urlsplit, urlunsplit

from genderscope.errors import (
    MASK,
    GenderscopeError,
    ModelLoadError,
    add_secret,
    add_url_secrets,
    is_secret_name,
    redact,
    url_userinfo,
)

_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|passw", re.IGNORECASE)
"""A header whose name holds one of these is a credential, as is one named by
:data:`genderscope.errors.SECRET_NAME` (``Pwd``, ``Credentials``)."""
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")

DEFAULT_PORTS = {"http": 80, "https": 443}


def without_userinfo(url: str) -> tuple[str, list[str]]:
    """``url`` without its userinfo (``user:password@``), and the secrets it held (the
    password, a lone user name (a token), their HTTP Basic form)."""
    parts = urlsplit(url)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at:
        return url, []
    user, colon, password = userinfo.partition(":")
    secrets = [userinfo, password, unquote(password)] if colon else [user, unquote(user)]
    for u, p in ((user, password), (unquote(user), unquote(password))):
        secrets.append(base64.b64encode(f"{u}:{p}".encode()).decode())
    return urlunsplit(parts._replace(netloc=hostport)), secrets


def checked_url(url: str) -> str:
    """``url`` without userinfo (its secrets told to :func:`add_secret` first); a URL
    that is not ``http(s)://host...`` or holds a query string or fragment is a one-line
    :class:`ModelLoadError` that does not show its credentials. Only the userinfo of the
    authority (``urlsplit``'s netloc) is a credential; an ``@`` that begins a path segment
    (``/v1/@team/models``) is the path's. Any other ``@`` after the host reads as the end
    of a userinfo holding an unencoded ``/``, ``?`` or ``#`` (:func:`url_userinfo`):
    refused, masked, as it cannot be told from a path's ``@`` inside a segment."""
    head, sep, rest = url.partition("://") if "://" in url else ("", "", url)
    shown = f"{head}{sep}{MASK}@{rest.rpartition('@')[2]}" if "@" in rest else url
    try:
        if sep and url_userinfo(url) != urlsplit(url).netloc.rpartition("@")[0]:
            add_url_secrets(url)  # its userinfo up to that '@', and its password
            raise ModelLoadError(f"--base-url {redact(shown)}: the '@' after its host reads "
                                 "as the end of a user name or password holding '/', '?' or "
                                 "'#'; percent-encode those (%2F, %3F, %23), or the '@' "
                                 "(%40) where the path holds it")
        public, secrets = without_userinfo(url)
        for secret in secrets:
            add_secret(secret)
        parts = urlsplit(public)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:  # urllib's words quote the netloc: not where an '@' may hide
        why = "its host or port does not parse" if "@" in rest else str(exc)  # a password
        raise ModelLoadError(f"--base-url {redact(shown)} is not a URL: {why}") from None
    if parts.scheme.lower() not in DEFAULT_PORTS or not parts.hostname:
        raise ModelLoadError(f"--base-url must be an http:// or https:// URL with a host "
                             f"(e.g. http://127.0.0.1:8000/v1), got {redact(shown)!r}")
    if parts.query or parts.fragment or "?" in public or "#" in public:  # never shown
        raise ModelLoadError(f"--base-url {urlunsplit(parts[:3] + ('', ''))} must not hold "
                             "a query string or fragment (?... or #...): the client adds "
                             "/chat/completions after it. Give the API key in "
                             "$OPENAI_API_KEY (--api-key-env NAME) or a --header")
    return public


def parse_headers(value: Mapping[str, str] | Sequence[str] | str | None) -> dict[str, str]:
    """Extra request headers from ``{"K": "V"}`` or ``["K:V", ...]`` (``--header K:V``,
    repeatable). The values of credential-like headers are told to :func:`add_secret`
    (also their last word: the token of ``Bearer TOKEN``). A malformed one is a one-line
    :class:`GenderscopeError` that does not show its value."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        pairs = [(str(k), str(v)) for k, v in value.items()]
    else:
        pairs = []
        for item in [value] if isinstance(value, str) else value:
            name, colon, val = str(item).partition(":")
            if not colon:
                raise GenderscopeError("--header must be NAME:VALUE (e.g. X-Org:team-a); "
                                       "one has no ':'")  # not shown: it may be a secret
            pairs.append((name, val))
    out: dict[str, str] = {}
    for name, val in pairs:
        name, val = name.strip(), val.strip()
        if _SECRET_HEADER.search(name) or is_secret_name(name):
            add_secret(val)
            add_secret(val.split()[-1] if val.split() else None)
        if not _HEADER_NAME.fullmatch(name):
            raise GenderscopeError(f"--header {redact(name)[:60]!r}: not an HTTP header name "
                                   "(letters, digits and !#$%&'*+.^_`|~-)")
        if any(c in val for c in "\r\n\0"):
            raise GenderscopeError(f"--header {name}: its value holds a line break")
        out[name] = val
    return out


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of ``url``, the port defaulted by scheme."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or DEFAULT_PORTS.get(scheme, 0)


def same_host(base: str, target: str) -> bool:
    """Whether ``target`` is on ``base``'s host (its scheme, host and port; or the
    ``https`` upgrade of a default-port ``http`` URL)."""
    a, b = origin(base), origin(target)
    return a == b or (a[1] == b[1] and a[0] == "http" and a[2] == 80
                      and b[0] == "https" and b[2] == 443)
