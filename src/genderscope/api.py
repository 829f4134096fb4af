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

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.engine import load_model, open_store, run, run_key  # noqa: F401 - gs.*
from genderscope.errors import GenderscopeError

if TYPE_CHECKING:
    from genderscope.report.runner import ReportData
    from genderscope.results import Result
    from genderscope.store import Store

def measures() -> list[str]:
    """Names :func:`run` accepts (:mod:`genderscope.core.registry`)."""
    from genderscope.core.registry import names

    return names()


def plot(result: Result, path: str | Path | None = None) -> Any:
    """The report figure of ``result``'s measure (a matplotlib Figure), also written to
    ``path`` when given (.png, .svg or .pdf)."""
    from genderscope.report.registry import measures as cards

    entry = cards().get(result.method)
    if entry is None or entry.plot is None:
        raise GenderscopeError(f"no figure for {result.method!r} results")
    fig = entry.plot(result)
    if fig is None:
        raise GenderscopeError(f"this {result.method} result has nothing to plot")
    if path is not None:
        fig.savefig(path, bbox_inches="tight")
    return fig


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
    st, owned = open_store(store, readonly=not record) if record or stored else (None, False)
    try:
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
    finally:
        if owned and st is not None:
            st.close()
    return res


def report(models: Sequence[str] | str = (), out: str | Path = "report.html", *,
           vectors: Sequence[str] = (), encoders: Sequence[str] = (),
           classifiers: Sequence[str] = (), texts: str | Path | None = None,
           measures: Sequence[str] | None = None, lang: str = "en", quick: bool = False,
           full: bool | None = None, reuse: bool = True, kind: str = "auto",
           start_token: str = "auto", data: str | Path | None = None, seed: int = 0,
           device: str | None = None, dtype: str = "float32",
           store: Store | str | Path | None = None, overwrite: bool = False,
           progress: bool = False, command: str | None = None,
           on_start: Callable[[Any, Any], None] | None = None,
           on_section: Callable[[Any], None] | None = None,
           cuda_available: Callable[[], bool] | None = None) -> ReportData:
    """Every measure that applies to the given models, as one HTML page at ``out``.

    ``full``: run every benchmark in full; ``None`` (default) decides by device: in full
    on a GPU, seeded subsets on a CPU (see :func:`genderscope.report.runner.choose_scope`).
    ``quick``: small subsets, a smoke test. An existing ``out`` is refused unless
    ``overwrite=True``. Stored runs with the same model, parameters
    and data are reused (``reuse=False`` re-runs them). Returns the page's data
    (``.sections``: one per measure and model, with ``.result`` and ``.headlines``).
    """
    from genderscope.checks import no_model_twice
    from genderscope.models.source import check_dtype
    from genderscope.report import html as page
    from genderscope.report import runner
    from genderscope.report.registry import LANGS, Context

    models = [models] if isinstance(models, str) else list(models)
    no_model_twice([*models, *vectors, *encoders, *classifiers], seed)
    check_dtype(dtype)  # an unknown dtype fails here, not once per measure
    if lang not in LANGS:
        raise GenderscopeError(f"--lang must be one of {', '.join(LANGS)}, got {lang!r}")
    if not (models or vectors or encoders or classifiers):
        raise GenderscopeError("give at least one --model (or --vectors, --encoder, "
                               "--classifier)")
    if data is not None and not Path(data).is_dir():
        raise GenderscopeError(f"--data {data}: no such folder")
    if texts is not None and not Path(texts).is_file():
        raise GenderscopeError(f"--texts {texts}: no such file")
    scope = runner.choose_scope(device, full=full, quick=quick, cuda_available=cuda_available)
    page.check_writable(out, overwrite=overwrite)
    ctx = Context(lang=lang, quick=scope == "quick", full=scope == "full", seed=seed,
                  data_dir=Path(data) if data is not None else None, progress=progress,
                  texts=Path(texts) if texts is not None else None)
    st, owned = open_store(store)
    try:
        subjects = [runner.lm_subject(m, st, kind=kind, device=device, dtype=dtype,
                                      start_token=start_token) for m in models]
        subjects += [runner.vectors_subject(v, st) for v in vectors]
        subjects += [runner.encoder_subject(e, st, device=device) for e in encoders]
        subjects += [runner.classifier_subject(c) for c in classifiers]
        result = runner.run_report(subjects, ctx, st, names=list(measures or []) or None,
                                   reuse=reuse, command=command or f"genderscope.report("
                                   f"{models!r}, out={str(out)!r})",
                                   on_section=on_section, on_start=on_start)
        page.write(result, out)
    finally:
        if owned:
            st.close()
    return result


from genderscope.api_debias import debias  # noqa: E402,F401 - gs.debias
