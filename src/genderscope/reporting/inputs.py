"""The report's inputs checked before any model loads or anything is written (classifier
SPECs, the texts file, a start token): each failure one line naming its flag; what only a
run can show stays a failed section of the page."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.checks import refuse_masked_only
from genderscope.errors import GenderscopeError

if TYPE_CHECKING:
    from genderscope.reporting.runner import Subject


def check_texts(texts: str | Path) -> None:
    """Refuse a ``--texts`` file the classifier cards could not read (missing, a folder,
    no text column, not UTF-8, no texts): read once with the cards' defaults
    (:func:`genderscope.datasets.texts.load_texts`)."""
    from genderscope.datasets.texts import load_texts

    if not Path(texts).is_file():
        raise GenderscopeError(f"--texts {texts}: no such file")
    try:
        load_texts(texts)
    except GenderscopeError as exc:
        raise GenderscopeError(f"--texts: {exc}") from None
    except OSError as exc:  # unreadable (permissions, a device)
        raise GenderscopeError(f"--texts {texts}: cannot read it ({exc.strerror or exc})"
                               ) from None


def check_start_token(subjects: Sequence[Subject], start_token: str) -> None:
    """Refuse a start token other than ``auto`` when no language model given is causal:
    only a causal LM scores a text after a start token (``--start-token``); a masked one
    would ignore it. One line, before any measure runs (:func:`refuse_masked_only`)."""
    refuse_masked_only(start_token, [(s.label, s.kind) for s in subjects
                                     if s.kind in ("masked", "causal") and not s.endpoint])


def check_models_start_token(start_token: str, models: Sequence[tuple[str, str, str,
                                                                      str | None]],
                             what: str) -> None:
    """:func:`check_start_token` for models not loaded yet, each (name, spec, kind,
    revision) as a sweep names them: a kind ``auto`` is read from the model's config
    (:func:`genderscope.models.loading.detect_kind`); a model whose kind cannot be told
    here is left to its jobs. Nothing is read for ``auto``."""
    if start_token == "auto":
        return
    from genderscope.models.loading import detect_kind

    lms = []
    for name, spec, kind, revision in models:
        if kind == "auto":
            try:
                kind = detect_kind(spec, revision)
            except Exception:  # noqa: BLE001 - an unknown model fails its jobs, not this
                kind = "unknown"
        if kind in ("masked", "causal", "unknown"):
            lms.append((name, kind))
    refuse_masked_only(start_token, lms, what)


_CLIENT_FLAGS = {"--base-url": "base_url", "--concurrency": "concurrency",
                 "--timeout": "timeout", "--retries": "retries",
                 "--api-key-env": "api_key_env", "--header": "headers"}
"""The flag each endpoint setting of a sweep file stands for (renamed in its refusals)."""


def check_endpoint_settings(name: str, spec: str, base_url: str | None,
                            client: dict[str, Any], *, file_keys: bool) -> None:
    """An endpoint model's URL and client settings checked as ``genderscope run`` checks
    them (:func:`genderscope.reporting.runner.endpoint_subject`, nothing asked of it); a
    refusal names the model ``name`` and, with ``file_keys``, a sweep file's keys
    (``api_key_env``) instead of the flags (``--api-key-env``) the user never typed."""
    from genderscope.reporting.runner import endpoint_subject

    try:
        endpoint_subject(spec, None, base_url=base_url, client=client)
    except GenderscopeError as exc:
        text = str(exc)
        for flag, key in _CLIENT_FLAGS.items() if file_keys else ():
            text = re.sub(rf"{flag}(?![\w-])", key, text)
        raise GenderscopeError(f"model {name}: {text}") from None


def check_classifier_spec(spec: str) -> None:
    """Refuse a classifier SPEC whose form is none of
    :func:`genderscope.models.classifier.load_classifier`'s, or whose file or top-level
    module is missing, without running any of its code (nothing is unpickled or
    imported): one line naming ``--classifier``. What only loading shows (a pickle that is
    not one, a module without the name) is the run's to find."""
    import importlib.util

    from genderscope.models.classifier import PICKLE_SUFFIXES

    text = spec.strip()
    forms = "FILE.joblib|.pkl, module:callable, file.py:callable or hf:MODEL"
    if not text or text == "hf:":
        raise GenderscopeError(f"--classifier is empty; give a SPEC: {forms}")
    if text.startswith("hf:"):
        return
    if Path(text).suffix.lower() in PICKLE_SUFFIXES:
        if not Path(text).is_file():
            raise GenderscopeError(f"--classifier {spec}: no such file")
        return
    if ":" not in text:
        what = "a folder" if Path(text).is_dir() else "a file" if Path(text).exists() else \
            "no such file"
        raise GenderscopeError(f"--classifier {spec}: {what}, not a classifier SPEC ({forms})")
    target, _, attr = text.rpartition(":")
    if not attr.removesuffix("()").isidentifier():
        raise GenderscopeError(f"--classifier {spec}: {attr!r} is not a name ({forms})")
    if target.endswith(".py"):
        if not Path(target).is_file():
            raise GenderscopeError(f"--classifier {spec}: no such file {target}")
        return
    top = target.split(".")[0]
    try:  # the top-level name only: finding a submodule would import its package
        found = top.isidentifier() and importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise GenderscopeError(f"--classifier {spec}: no module named {top!r} ({forms})")
