"""The report's inputs checked before any model loads or anything is written: the
classifier SPECs (their form and the file they name, no code run), the texts file (read
as the classifier cards read it) and a start token for the models given. Each failure is
one line naming its flag (``genderscope report`` exits 2); what only a run can show stays
a failed section of the page (:mod:`genderscope.reporting.runner`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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
    would ignore it. One line, before any measure runs."""
    lms = [s for s in subjects if s.kind in ("masked", "causal") and not s.endpoint]
    if start_token == "auto" or not lms or any(s.kind == "causal" for s in lms):
        return
    names = ", ".join(s.label for s in lms)
    raise GenderscopeError(f"--start-token applies to causal models only; {names} "
                           f"{'is' if len(lms) == 1 else 'are'} masked")


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
