"""The Python API: the functions behind every ``genderscope`` command.

>>> import genderscope as gs
>>> r = gs.run("crows-pairs", model="smollm2", bias_type="gender")   # doctest: +SKIP
>>> r.summary["percent_stereotypical"], r.items.head()                # doctest: +SKIP

- :func:`run` one measure on one model -> :class:`~genderscope.results.Result`
  (``.summary``, ``.items``, ``.to_json()``); recorded in the store.
- :func:`plot` a result's report figure.
- :func:`load_model` a model once, to pass to several :func:`run` calls.
- :func:`report` every measure that applies, on one or more models -> an HTML page.
- :func:`compare` two results of one measure, item by item (before/after).
- :func:`debias` counterfactual data substitution + fine-tuning -> a model folder.

The CLI parses options and prints tables; everything else happens here, so a
notebook and a shell get the same numbers. Imports are lazy: ``import
genderscope`` loads neither torch nor transformers.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from genderscope import engine
from genderscope.checks import api_wording, check_call, unknown_keywords
from genderscope.engine import open_store, run_key, using_store  # noqa: F401 - gs.*
from genderscope.errors import GenderscopeError

F = TypeVar("F", bound=Callable[..., Any])


def checked(fn: F) -> F:
    """``fn`` with its arguments checked first (:func:`genderscope.checks.check_call`):
    a bad argument of the public API is one line, a :class:`GenderscopeError` naming the
    function and the argument, before any work. Called from Python, not from the
    command line, its messages name keywords (``limit``), not flags (``--limit``)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with contextlib.nullcontext() if _from_command_line() else api_wording():
            check_call(fn, args, kwargs)
            return fn(*args, **kwargs)

    return call  # type: ignore[return-value]


def _from_command_line() -> bool:
    """Whether a ``genderscope`` command is running (a click context is active): its
    messages keep the flags it was given. Click is never imported for this."""
    return any(module is not None and module.get_current_context(silent=True) is not None
               for module in map(sys.modules.get, ("click.globals", "typer._click.globals")))


@functools.wraps(engine.run)
def _run(measure: str, *args: Any, **kwargs: Any) -> Result:
    if isinstance(measure, str):
        _check_option_names(measure, kwargs)
    return engine.run(measure, *args, **kwargs)


def _check_option_names(measure: str, given: dict[str, Any]) -> None:
    """Refuse, before any work, a keyword that is neither ``gs.run``'s own nor one of
    ``measure``'s declared options, naming the one meant: a close name
    (``biastype``: ``bias_type``) or the keyword of a command-line flag (``vectors``:
    ``model``)."""
    from genderscope.core.registry import get

    options = get(measure).options
    own = [n for n, p in inspect.signature(engine.run).parameters.items()
           if p.kind == p.KEYWORD_ONLY or n == "model"]
    unknown = [k for k in given if k not in options and k not in own]
    if unknown:
        raise GenderscopeError(f"{measure}: unknown option(s) "
                               f"{unknown_keywords(unknown, [*options.names, *own])}; it "
                               f"takes {', '.join(options.names)}")


run = checked(_run)
load_model = checked(engine.load_model)

if TYPE_CHECKING:
    from genderscope.results import Result
    from genderscope.store import Store

def measures() -> list[str]:
    """Names :func:`run` accepts (:mod:`genderscope.core.registry`)."""
    from genderscope.core.registry import names

    return names()


@checked
def plot(result: Result, path: str | Path | None = None) -> Any:
    """The report figure of ``result``'s measure (a matplotlib Figure), also written to
    ``path`` when given (.png, .svg or .pdf): checked first as every output is (never a
    link, a folder or the results store), then written whole or not at all. A
    :func:`compare` result's figure is the change per group ``genderscope compare``
    writes (``change.png``: :func:`genderscope.measures.compare.change_figure`)."""
    from genderscope.outputs import check_output_file, command_inputs, write_file
    from genderscope.reporting.registry import measures as cards

    dest = None if path is None else check_output_file(
        path, "path", suffixes=(".png", ".svg", ".pdf"), inputs=command_inputs())
    entry = cards().get(result.method)
    if result.method.endswith("-compare") and "change_by_group" in result.tables:
        from genderscope.measures.compare import change_figure

        fig = change_figure(result)
    elif entry is None or entry.plot is None:
        raise GenderscopeError(f"no figure for {result.method!r} results")
    else:
        fig = entry.plot(result)
    if fig is None:
        raise GenderscopeError(f"this {result.method} result has nothing to plot")
    if dest is not None:
        fmt = dest.suffix.lower().lstrip(".")
        write_file(dest, lambda p: fig.savefig(p, bbox_inches="tight", format=fmt))
    return fig


@checked
def compare(before: Result | str | Path, after: Result | str | Path, *,
            store: Store | str | Path | None = None, key: Sequence[str] | None = None,
            value: str | None = None, group_by: Sequence[str] | None = None,
            resamples: int = 10_000, seed: int = 0, p_adjust: str = "holm",
            record: bool = True) -> Result:
    """Before/after differences of one measure, item by item (paired tests, bootstrap CIs).

    ``before`` / ``after``: Results, run ids in the store (unique prefixes work) or
    folders written with ``out=``. ``p_adjust``: ``holm`` or ``bh`` across the groups'
    tests. See :func:`genderscope.measures.compare.compare_runs`.
    """
    from genderscope.measures.compare import compare_runs, load_result_dir
    from genderscope.results import Result as ResultType

    stored = [x for x in (before, after)
              if not isinstance(x, ResultType) and not Path(x).is_dir()]
    with using_store(store, readonly=not record) if record or stored else \
            contextlib.nullcontext() as st:
        def load(x: Result | str | Path) -> Result:
            if isinstance(x, ResultType):
                return x
            if Path(x).is_dir():
                return load_result_dir(Path(x))
            assert st is not None
            return st.load_run(str(x))

        res = compare_runs(load(before), load(after), key=key, value=value,
                           groups=list(group_by) if group_by else None,
                           n_resamples=resamples, seed=seed, p_adjust=p_adjust)
        if record and st is not None:
            res.metadata["run_id"] = st.record_run(res)
    return res


from genderscope.api_debias import debias as _debias  # noqa: E402
from genderscope.reporting.build import report as _report  # noqa: E402

debias = checked(_debias)
report = checked(_report)
