"""The Python API: the functions behind every ``genderscope`` command.

>>> import genderscope as gs
>>> r = gs.run("crows-pairs", model="smollm2", bias_type="gender")   # doctest: +SKIP
>>> r.summary["percent_stereotypical"], r.items.head()                # doctest: +SKIP

- :func:`run` one measure on one model -> :class:`~genderscope.results.Result`
  (``.summary``, ``.items``, ``.plot()``, ``.to_json()``); recorded in the store.
- :func:`load_model` a model once, to pass to several :func:`run` calls.
- :func:`report` every measure that applies, on one or more models -> an HTML page.
- :func:`compare` two results of one measure, item by item (before/after).
- :func:`debias` counterfactual data substitution + fine-tuning -> a model folder.

The CLI parses options and prints tables; everything else happens here, so a
notebook and a shell get the same numbers. Imports are lazy: ``import
genderscope`` loads neither torch nor transformers.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.errors import GenderscopeError

if TYPE_CHECKING:
    from genderscope.report.runner import ReportData
    from genderscope.results import Result
    from genderscope.store import Store

LM_KINDS = ("auto", "masked", "causal")
SENTENCE_SCORED = ("crows-pairs", "stereoset", "abc")
"""Measures whose decisions compare summed sentence scores (half precision warns)."""
MODEL_KINDS = (*LM_KINDS, "vectors", "encoder", "classifier")


def _open_store(store: Store | str | Path | None, *, readonly: bool = False
                ) -> tuple[Store, bool]:
    """(store, whether we opened it and must close it); ``readonly`` never creates or
    changes a store."""
    from genderscope.store import Store

    if isinstance(store, Store):
        return store, False
    return Store(store, readonly=readonly), True


def load_model(model: str | Path, *, kind: str = "auto", device: str | None = None,
               dtype: str = "float32", start_token: str = "auto",
               store: Store | str | Path | None = None, batch_size: int = 64,
               base_url: str | None = None) -> Any:
    """A model adapter, loaded once (pass it as ``model=`` to :func:`run`).

    ``model``: Hugging Face Hub id, local folder, ``.gguf`` file or a packaged offline
    name (``smollm2``, ``gemma3-270m``; ``glove-6b-50d`` with ``kind="vectors"``;
    ``all-minilm-l6-v2`` with ``kind="encoder"``; a classifier SPEC with
    ``kind="classifier"``). ``kind``: ``auto`` / ``masked`` / ``causal`` for language
    models. ``store``: the score cache (default: ``$GENDERSCOPE_STORE`` or
    ``~/.cache/genderscope/store.sqlite``); an LM adapter or encoder keeps it open.
    Models the store has seen come back *deferred* (weights or vectors read on the
    first answer no cache holds). Warning: a classifier SPEC runs code (a pickle is
    unpickled, ``module:name`` / ``file.py:name`` imported and called): only trusted ones.
    ``batch_size``:
    texts per call of a classifier or sentence encoder. ``openai:NAME`` + ``base_url``: an
    OpenAI-compatible chat endpoint (:mod:`genderscope.models.endpoint`).
    """
    if kind not in MODEL_KINDS:
        raise GenderscopeError(f"kind must be one of {', '.join(MODEL_KINDS)}, got {kind!r}")
    if kind == "classifier":
        from genderscope.models.classifier import load_classifier

        return load_classifier(str(model), batch_size=batch_size)
    st, owned = _open_store(store)
    if kind == "vectors":  # the store only holds their memo: parsed on first lookup
        from genderscope.models.vectors import load_vectors

        try:
            return load_vectors(str(model), store=st)
        finally:
            if owned:
                st.close()
    if kind == "encoder":
        from genderscope.models.encoder import SentenceEncoder

        return SentenceEncoder.load(str(model), device=device, store=st,
                                    batch_size=batch_size)
    from genderscope.models.loading import load_lm

    return load_lm(model, kind, store=st, device=device, dtype=dtype, start_token=start_token,
                   base_url=base_url)


def measures() -> list[str]:
    """Names :func:`run` accepts."""
    from genderscope.plans import PLANS

    return list(PLANS)


def _plan(measure: str, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The measure's plan, and the options it takes with their defaults."""
    from genderscope.checks import check_options
    from genderscope.plans import PLANS

    check_options(options)  # seeds >= 0, whole-number counts: before any work
    if measure not in PLANS:
        raise GenderscopeError(f"unknown measure {measure!r}; choose one of "
                               f"{', '.join(PLANS)}")
    fn = PLANS[measure]
    accepted = {name: p.default for name, p in inspect.signature(fn).parameters.items()
                if name != "progress"}
    unknown = [k for k in options if k not in (*accepted, "progress")]
    if unknown:
        raise GenderscopeError(f"{measure}: unknown option(s) {', '.join(unknown)}; it takes "
                               f"{', '.join(accepted)}")
    return fn(**options), accepted


def run_key(measure: str, adapter: Any, *, kind: str = "auto", dtype: str = "float32",
            start_token: str = "auto", **options: Any) -> str | None:
    """The key :func:`run` would find or record this call's run under (None: never
    reused), told without running it; ``adapter`` may be deferred (nothing loads)."""
    from genderscope.reuse import key_options, reuse_key

    plan, accepted = _plan(measure, dict(options))
    return reuse_key(measure, plan, adapter,
                     key_options(accepted, {**options, **plan.key_options}),
                     {"kind": kind, "dtype": dtype, "start_token": start_token})


def _call_text(measure: str, model: Any, options: dict[str, Any]) -> str:
    args = [repr(measure)] + ([f"model={model!r}"] if isinstance(model, (str, Path)) else [])
    args += [f"{k}={v!r}" for k, v in options.items()]
    return f"genderscope.run({', '.join(args)})"


def run(measure: str, model: Any = None, *, store: Store | str | Path | None = None,
        out: str | Path | None = None, save: bool = False, progress: bool = False,
        kind: str = "auto",
        device: str | None = None, dtype: str = "float32", start_token: str = "auto",
        batch_size: int = 64, command: str | None = None, reuse: bool = True,
        base_url: str | None = None, record: bool = True,
        **options: Any) -> Result:
    """Run one measure on one model; record it in the store and return the Result.

    ``measure``: one of :func:`measures` (``crows-pairs``, ``winobias``, ``bec-pro``, ...).
    ``model``: a model spec (see :func:`load_model`) or an adapter :func:`load_model`
    returned (``None`` for ``bias-amplification``, which compares texts). Warning: a
    classifier SPEC (``counterfactual``, ``attack``) runs code, as in :func:`load_model`.
    ``options``:
    the measure's options, named as the CLI's in snake case
    (``bias_type="gender"``, ``limit=100``, ``subset_seed=0``, ``seed=0``,
    ``resamples=10_000``, ``data=...``); an unknown option is an error. ``out``: also
    write ``summary.json`` + ``items.csv`` (+ tables) there (``save=True``: to
    ``./genderscope-results/<method>``, as the CLI does); ``metadata["out"]`` says where.
    The seed (where the measure has randomness), the subset and the call are recorded in
    ``result.metadata``; ``metadata["run_id"]`` is the run's id in the store.

    ``reuse``: when the store already holds a run of this measure with the same options,
    the same model identity and the same items (:mod:`genderscope.reuse`), return it
    (``metadata["reused"]`` is True) without loading the model or recomputing anything;
    ``out`` is rewritten only when it does not already hold that run. ``reuse=False``
    recomputes (every score still comes from the score cache). ``record=False``: return
    the result without recording it (a sweep worker ships it to the driver's store).

    ``genderscope report`` and ``genderscope sweep`` run their measures through this
    function too (a report card names the measure and its options), so one measurement
    is one stored run under one key, whichever of run/report/sweep made it.
    """
    plan, accepted = _plan(measure, {**options, "progress": progress})
    if model is None and plan.needs != "none":
        raise GenderscopeError(f"{measure}: give a model (model=...)")
    if kind not in LM_KINDS:
        raise GenderscopeError(f"kind must be auto, masked or causal, got {kind!r}")
    if dtype != "float32" and measure in SENTENCE_SCORED:
        import warnings

        warnings.warn(f"{measure} with dtype {dtype}: sentence scores sum many token terms, "
                      "and half precision moves them by nats (CrowS-Pairs on SmolLM2, "
                      "bfloat16: 9 of 300 decisions flipped; docs/performance.md); float32 "
                      "is the reference", UserWarning, stacklevel=2)
    if out is None and save:
        out = Path("genderscope-results") / plan.method
    if out is not None:
        from genderscope.outputs import check_output_folder, input_paths

        check_output_folder(out, inputs=input_paths(model, options),
                            files=("summary.json", "items.csv"))  # before any work
    st, owned = _open_store(store)
    plan.store = st
    try:
        t0 = time.perf_counter()
        if plan.needs == "none":
            adapter = None
        elif isinstance(model, (str, Path)):
            adapter = load_model(model, kind=kind if plan.needs == "lm" else plan.needs,
                                 device=device, dtype=dtype, start_token=start_token, store=st,
                                 batch_size=batch_size, base_url=base_url)
        else:
            adapter = model
        t_load = time.perf_counter() - t0
        from genderscope.reuse import key_options, out_holds, reuse_key

        key = reuse_key(measure, plan, adapter,
                        key_options(accepted, {**options, **plan.key_options}),
                        {"kind": kind, "dtype": dtype, "start_token": start_token})
        if reuse and key is not None and (found := st.find_run(key)) is not None:
            stored = st.load_run(found)
            stored.metadata["reused"] = True
            if out is not None:
                stored.metadata["out_unchanged"] = out_holds(Path(out), key, stored, plan)
                if stored.metadata["out_unchanged"]:
                    stored.metadata["out"] = str(out)
                else:
                    _save(stored, plan, Path(out))
            return stored
        result = plan.run(adapter)
        if key is not None:
            result.metadata["cache_key"] = key
        result.metadata["runtime_s"] = round(time.perf_counter() - t0, 2)
        result.metadata["load_s"] = round(t_load, 2)
        result.metadata["command"] = command or _call_text(measure, model, options)
        if "seed" in accepted:  # the seed of the measure's randomness (bootstrap, ...)
            result.metadata["seed"] = options.get("seed", 0)
        if plan.data_note:
            data = result.metadata.setdefault("data", {})
            if isinstance(data, dict):
                data.update(plan.data_note)
        data = result.metadata.get("data")
        if isinstance(data, dict) and "datasets" not in data:  # registered sets it read
            from genderscope.datasets.registry import provenance

            data["datasets"] = provenance(data)
        if out is not None:
            _save(result, plan, Path(out))
        if record:
            result.metadata["run_id"] = st.record_run(result, dedupe=reuse)
    finally:
        if owned:
            st.close()
    return result


def _save(result: Result, plan: Any, out: Path) -> None:
    """Write the result (and the plan's figure, all or nothing) to ``out``."""
    from genderscope.outputs import save_with_figures

    figures = {}
    if plan.figure is not None:
        dest = plan.figure_path or out / plan.figure_name
        figures[dest] = lambda p: plan.figure(result, p)
    result.metadata["out"] = str(save_with_figures(result, out, figures))
    if figures:
        result.metadata["figure"] = str(dest)


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
    st, owned = _open_store(store, readonly=not record) if record or stored else (None, False)
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
    st, owned = _open_store(store)
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
