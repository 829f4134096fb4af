"""Checks of option values shared by the CLI and the Python API (issue 24): a wrong type
is a :class:`TypeError`, a value out of range a one-line :class:`GenderscopeError`, both
raised before any work."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from numbers import Integral
from pathlib import Path
from typing import Any

from genderscope.errors import ArgumentError, GenderscopeError

SEED_OPTIONS = ("seed", "subset_seed", "sample_seed")
"""Option names that seed a random number generator: whole numbers in [0, SEED_MAX]."""
SEED_MAX = 2**32 - 1
"""The largest seed: NumPy's legacy ``RandomState`` and scikit-learn's ``random_state`` (RNSB,
the k-means of Double-Hard Debias) take 32-bit seeds, torch 64-bit ones; a larger seed was
a traceback."""
COUNT_OPTIONS = ("limit", "examples", "resamples", "permutations", "exact_limit", "min_count")
"""Option names that count something: whole numbers (their lower bounds are the plans')."""
COUNT_MAX = {"resamples": 1_000_000, "n_resamples": 1_000_000, "permutations": 10_000_000,
             "exact_limit": 10_000_000, "max_new_tokens": 2**20, "max_retries": 100,
             "num_cpus": 2**16}
"""The most of each count that sets how much work a run does, for every measure and command
that takes it (a declared int option of that name gets it as its ``max``): the bootstrap keeps
every replicate (10**20 resamples was a MemoryError after minutes); a permutation test runs
every permutation and the exact test every partition (so at most as many as permutations);
an answer of ``max_new_tokens`` is kept whole (2**20 tokens is beyond any context the
adapters load; an endpoint asked for 10**20 failed every measure); a sweep job is retried
``max_retries`` times (as an endpoint request ``--retries``); a local Ray instance
(``sweep --num-cpus``) is given at most ``num_cpus`` CPUs, far more than one machine has (Ray
refused 10**20 only once it had started)."""


def flag(name: str) -> str:
    """``subset_seed`` -> ``--subset-seed``."""
    return "--" + name.replace("_", "-")


_API_CALL: ContextVar[bool] = ContextVar("genderscope_api_call", default=False)
"""True while a function of the Python API called from Python (not from the command
line) runs: its messages name keywords, not flags (:func:`named`)."""


@contextlib.contextmanager
def api_wording() -> Iterator[None]:
    """Within the block, :func:`named` and :func:`shown_option` name an option as the
    Python API's keyword (``limit``) instead of the command line's flag (``--limit``)."""
    token = _API_CALL.set(True)
    try:
        yield
    finally:
        _API_CALL.reset(token)


def named(name: str) -> str:
    """How a message names the option ``name`` (snake case): its keyword ``subset_seed``
    in a call of the Python API (:func:`api_wording`), else its flag ``--subset-seed``."""
    return name if _API_CALL.get() else flag(name)


def shown_option(text: str) -> str:
    """``text`` as a message names it: a flag (``--out``) becomes the keyword ``out`` in a
    call of the Python API; anything else is kept."""
    if text.startswith("--") and _API_CALL.get():
        return text[2:].replace("-", "_")
    return text


CLI_KEYWORDS: dict[str, tuple[str, ...]] = {
    "vectors": ("model",), "encoder": ("encoders", "model"),
    "classifier": ("classifiers", "model"), "model": ("models",), "measure": ("measures",),
    "header": ("headers",), "n_resamples": ("resamples",), "no_reuse": ("reuse",)}
"""Command-line flags (snake case) whose Python API keyword has another name, with the
keywords they may stand for, first match wins: ``genderscope run weat --vectors V`` is
``gs.run("weat", model=V)``, ``report --vectors V`` is ``gs.report(vectors=[V])``,
``--header K:V`` is ``headers=["K:V"]``, ``compare --n-resamples`` is ``resamples=``."""


def keyword_hint(given: str, known: Iterable[str]) -> str:
    """Why ``given`` is not a keyword and which one of ``known`` was meant: the API
    keyword of a command-line flag (:data:`CLI_KEYWORDS`), else the close names
    (:func:`difflib.get_close_matches`, ratio >= 0.6, as the command line's hint for a
    mistyped flag), else ``""``."""
    import difflib

    known = list(known)
    name = given.lstrip("-").replace("-", "_")
    for keyword in CLI_KEYWORDS.get(name, ()):
        if keyword in known and keyword != given:
            value = "False" if name == "no_reuse" else "..."
            return f" (the command line's {flag(name)} is {keyword}={value} here)"
    near = [name] if name in known and name != given else \
        difflib.get_close_matches(name, known)
    return f" (did you mean {' or '.join(k + '=' for k in near)}?)" if near else ""


def unknown_keywords(unknown: Iterable[str], known: Iterable[str]) -> str:
    """The unknown names, each with its :func:`keyword_hint`: ``vectors (the command
    line's --vectors is model=... here), biastype (did you mean bias_type=?)``."""
    known = list(known)
    return ", ".join(f"{u}{keyword_hint(u, known)}" for u in unknown)


def whole_number(value: Any, name: str, minimum: int | None = None,
                 maximum: int | None = None, *, label: str | None = None,
                 why: str | None = None) -> int:
    """``value`` if it is an int (not a bool) in [``minimum``, ``maximum``] (``maximum``
    defaults to :data:`SEED_MAX` for a seed and to :data:`COUNT_MAX` for those counts);
    the one check, and the one wording, of every seed and count bound. A float, a string
    or NaN is an :class:`ArgumentError` naming the option, a value out of range a
    one-line :class:`GenderscopeError`; ``label`` names the option in both (default: the
    name for a wrong type, the flag, ``--subset-seed``, for a value out of range);
    ``why``, the reason for ``maximum``, follows it in parentheses. A NumPy integer is a
    whole number too, returned as an ``int``; a NumPy float or bool is refused as a
    Python one is."""
    if isinstance(value, Integral) and not isinstance(value, (bool, int)):
        value = int(value)  # numpy.int64 etc. (numpy.bool_ is not Integral)
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and math.isnan(value):
            raise ArgumentError(f"{label or name} must be a whole number, got nan")
        raise ArgumentError(f"{label or name} must be a whole number (int), got {value!r}")
    shown = label or named(name)
    if minimum is not None and value < minimum:
        raise GenderscopeError(f"{shown} must be at least {minimum}, got {value}")
    if maximum is None and name in SEED_OPTIONS:
        if value > SEED_MAX:
            raise GenderscopeError(f"{shown} must be at most {SEED_MAX} (a 32-bit seed), "
                                   f"got {value}")
        return value
    most = COUNT_MAX.get(name) if maximum is None else maximum
    if most is not None and value > most:
        reason = f" ({why})" if why else ""
        raise GenderscopeError(f"{shown} must be at most {most:,}{reason}, got {value}")
    return value


def check_options(options: dict[str, Any]) -> None:
    """Seeds are whole numbers >= 0; counts are whole numbers (None allowed)."""
    for name, value in options.items():
        if name in SEED_OPTIONS and value is not None:
            whole_number(value, name, 0)
        elif name in COUNT_OPTIONS and value is not None:
            whole_number(value, name, 0 if name == "examples" else None)


def no_model_twice(models: list[Any], seed: Any = 0) -> None:
    """Refuse a model given twice (it would be measured and reported twice), and a seed
    that is not a whole number >= 0 (a report's options)."""
    whole_number(seed, "seed", 0)
    twice = sorted({str(m) for m in models if models.count(m) > 1})
    if twice:
        raise GenderscopeError(f"model given twice: {', '.join(twice)}; each is reported once")


def check_debias_options(limit: Any, prob: Any) -> None:
    """``limit``: a whole number or None; ``prob``: a number in [0, 1]."""
    if limit is not None:
        whole_number(limit, "limit")
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise GenderscopeError(f"--prob must be a number in [0, 1], got {prob!r}")


# -- the public API's arguments (issue 37, item 7) ---------------------------------------------
def _shown(value: Any) -> str:
    """``value`` for a one-line message: its type and an ASCII repr (a surrogate-escaped
    name must not make the message itself unprintable), at most 60 characters."""
    text = ascii(value)
    return f"{type(value).__name__} {text[:57] + '...' if len(text) > 60 else text}"


def path_arg(value: Any, name: str, *, optional: bool = False) -> Path | None:
    """``value`` as a Path: a str or os.PathLike naming something (not bytes, not empty) in
    valid UTF-8; a surrogate-escaped name (a file name that is not UTF-8) is refused in one
    line instead of a ``UnicodeEncodeError`` later."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise ArgumentError(f"{name} must be a path (str or os.PathLike), got {_shown(value)}")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise ArgumentError(f"{name} must be a path given as text, got {_shown(value)}")
    if not text.strip():
        raise GenderscopeError(f"{name}: empty path")
    utf8_text(text, name)
    return Path(text)


def utf8_text(text: str, name: str) -> None:
    """The one refusal of a text that is not valid UTF-8, for a path and any other text
    alike: a str holding surrogate escapes (a file name or argument in another encoding,
    as ``os.fsdecode`` gives it) fails later, in a message or a store row, as a
    ``UnicodeEncodeError``; ``name`` is the option or argument (``gs.run: out``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise GenderscopeError(f"{name} {text!a} is not valid UTF-8 (it holds surrogate "
                               "escapes); rename the file or retype the text") from None


def model_arg(value: Any, name: str = "model", *, optional: bool = False) -> Any:
    """A model: a name, a path (checked as :func:`path_arg`) or an already loaded adapter
    (any object that is not a number, bytes or a container)."""
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        return path_arg(value, name) and value
    if value is None or isinstance(value, (bool, int, float, bytes, list, tuple, dict, set)):
        raise ArgumentError(f"{name} must be a model name, a path or a loaded model, got "
                            f"{_shown(value)}")
    return value


def models_arg(value: Any, name: str) -> list[Any]:
    """One model or a list of them (each as :func:`model_arg`)."""
    if isinstance(value, (str, os.PathLike)):
        return [model_arg(value, name)]
    if not isinstance(value, (list, tuple)):
        raise ArgumentError(f"{name} must be a model or a list of models, got "
                            f"{_shown(value)}")
    return [model_arg(v, f"{name}[{i}]") for i, v in enumerate(value)]


def model_list_arg(value: Any, name: str) -> list[Any]:
    """A list of models (each as :func:`model_arg`); one name alone is refused."""
    if not isinstance(value, (list, tuple)):
        raise ArgumentError(f"{name} must be a list of models, got {_shown(value)}")
    return [model_arg(v, f"{name}[{i}]") for i, v in enumerate(value)]


def result_arg(value: Any, name: str, *, stored: bool = True) -> Any:
    """A ``Result`` (anything with ``method``, ``summary`` and ``items``), or, when
    ``stored``, a run id or a folder written with ``out=`` (as :func:`path_arg`)."""
    if all(hasattr(value, a) for a in ("method", "summary", "items")):
        return value
    if stored and isinstance(value, (str, os.PathLike)):
        return path_arg(value, name)
    what = "a Result, a run id or a results folder" if stored else "a Result"
    raise ArgumentError(f"{name} must be {what}, got {_shown(value)}")


def paths_arg(value: Any, name: str) -> list[Path]:
    """A list of paths (each as :func:`path_arg`); one path alone is refused (a str is
    itself a sequence, of letters)."""
    if isinstance(value, (str, os.PathLike)) or not isinstance(value, (list, tuple)):
        raise ArgumentError(f"{name} must be a list of paths, got {_shown(value)}")
    return [p for i, v in enumerate(value) if (p := path_arg(v, f"{name}[{i}]")) is not None]


def flag_arg(value: Any, name: str) -> bool:
    """True or False, nothing else (``"no"`` is truthy)."""
    if not isinstance(value, bool):
        raise ArgumentError(f"{name} must be True or False, got {_shown(value)}")
    return value


def text_arg(value: Any, name: str, *, optional: bool = False) -> str | None:
    """A string (None when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a string, got {_shown(value)}")
    return value


def texts_arg(value: Any, name: str, *, optional: bool = False) -> list[str] | None:
    """A list of strings (None when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or \
            not all(isinstance(v, str) for v in value):
        raise ArgumentError(f"{name} must be a list of strings, got {_shown(value)}")
    return list(value)


def store_arg(value: Any, name: str = "store") -> Any:
    """None (the default store), an open ``Store`` or a path to one."""
    if value is None or (hasattr(value, "record_run") and hasattr(value, "path")):
        return value
    return path_arg(value, name)


def number_arg(value: Any, name: str) -> float:
    """A real number (not a bool); its range is the called function's to check (its own
    message names the option)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentError(f"{name} must be a number, got {_shown(value)}")
    return float(value)


def _optional(check: Callable[..., Any]) -> Callable[[Any, str], Any]:
    return lambda value, name: None if value is None else check(value, name)


ARGUMENTS: dict[str, Callable[[Any, str], Any]] = {
    "model": _optional(model_arg),
    "models": models_arg,
    **dict.fromkeys(("vectors", "encoders", "classifiers"), model_list_arg),
    **dict.fromkeys(("before", "after"), result_arg),
    "result": lambda v, n: result_arg(v, n, stored=False),
    **dict.fromkeys(("out", "path", "texts", "data"), _optional(path_arg)),
    "corpus": path_arg,
    "pairs": paths_arg,
    "store": store_arg,
    **dict.fromkeys(("measure", "p_adjust", "kind", "start_token", "lang", "mode", "unit"),
                    text_arg),
    **dict.fromkeys(("value", "command", "dtype", "device", "base_url", "api_key_env",
                     "language"), _optional(text_arg)),
    **dict.fromkeys(("measures", "key", "group_by"), _optional(texts_arg)),
    **dict.fromkeys(("save", "progress", "reuse", "record", "quick", "overwrite"), flag_arg),
    **dict.fromkeys(("full", "names"), _optional(flag_arg)),
    "seed": lambda v, n: whole_number(v, n, 0),
    **dict.fromkeys(("resamples", "batch_size", "epochs", "max_length", "save_every"),
                    lambda v, n: whole_number(v, n, 1)),
    **dict.fromkeys(("limit", "max_steps"), _optional(lambda v, n: whole_number(v, n, 1))),
    **dict.fromkeys(("concurrency", "retries"),  # their ranges: the endpoint's messages
                    _optional(whole_number)),
    **dict.fromkeys(("timeout", "prob"), _optional(number_arg)),
    "lr": number_arg,
}
"""How the public API checks an argument, by its name (the same name means the same thing
in every function). Declared measure options are checked by the engine instead."""


def check_call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
               where: str | None = None) -> None:
    """Check every argument given to the public function ``fn`` whose name
    :data:`ARGUMENTS` knows (its own parameters only, not ``**options``), before any
    work: a wrong type is one-line :class:`ArgumentError`, a bad value a
    :class:`GenderscopeError`, both naming ``gs.<function>`` and the argument."""
    import inspect

    sig = inspect.signature(fn)
    label = where or fn.__name__
    params = sig.parameters
    if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
        unknown = [k for k in kwargs if k not in params]
        if unknown:  # a close name, or the keyword of a command-line flag
            own = [n for n, p in params.items() if p.kind != p.VAR_POSITIONAL]
            raise ArgumentError(f"gs.{label}: unknown keyword(s) "
                                f"{unknown_keywords(unknown, own)}; it takes {', '.join(own)}")
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:  # a missing argument: Python's words, one line
        raise ArgumentError(f"gs.{label}: {exc}") from None
    for name, value in bound.arguments.items():
        param = sig.parameters[name]
        if param.kind == param.VAR_KEYWORD:  # declared options: the engine checks them,
            for option, given in value.items():  # but a name that is not UTF-8 is ours
                _utf8(given, option, label)
            continue
        if param.kind == param.VAR_POSITIONAL:
            continue
        if value is None and param.default is param.empty:
            raise ArgumentError(f"gs.{label}: {name} is required, got None")
        _utf8(value, name, label)
        check = ARGUMENTS.get(name)
        if check is not None:
            try:
                check(value, name)
            except ArgumentError as exc:  # a value error names its option already
                raise ArgumentError(f"gs.{label}: {exc}") from None


def _utf8(value: Any, name: str, label: str) -> None:
    """:func:`utf8_text` over a text, a path, or a list of them, given to ``gs.<label>``."""
    items = value if isinstance(value, (list, tuple)) else [value]
    for item in items:
        text = os.fspath(item) if isinstance(item, os.PathLike) else item
        if isinstance(text, str):
            utf8_text(text, f"gs.{label}: {name}")


def refuse_masked_only(start_token: str, lms: Sequence[tuple[str, str]],
                       what: str = "--start-token",
                       error: type[GenderscopeError] = GenderscopeError) -> None:
    """The one refusal of a start token other than ``auto`` when every language model,
    (name, kind) each, is masked (only a causal LM scores a text after a start token);
    ``what`` names where it was given, ``error`` is the caller's error class."""
    if start_token == "auto" or not lms or any(kind != "masked" for _, kind in lms):
        return
    raise error(f"{what} applies to causal models only; "
                f"{', '.join(name for name, _ in lms)} "
                f"{'is' if len(lms) == 1 else 'are'} masked")
