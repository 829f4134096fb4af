"""The engine: the one path that runs a measure (docs/architecture.md).

``options -> plan (items loaded, no model) -> reuse key -> the stored run, or run +
record``. :func:`genderscope.run`, the report, the sweep and ``compare`` all run
measures through :func:`run`, so one measurement is one stored run under one key
(:mod:`genderscope.engine.keys`), whichever of them made it. The measure's options and
plan come from its declaration in the registry (:mod:`genderscope.core.registry`).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.checks import flag, shown_option
from genderscope.core import kinds
from genderscope.core.registry import get as declared  # a measure's declaration
from genderscope.errors import GenderscopeError
from genderscope.progress import honours_progress_argument

if TYPE_CHECKING:
    from genderscope.core.declaration import Plan
    from genderscope.results import Result
    from genderscope.store import Store

def open_store(store: Store | str | Path | None, *, readonly: bool = False
               ) -> tuple[Store, bool]:
    """(store, whether we opened it and must close it); ``readonly`` never creates or
    changes a store."""
    from genderscope.store import Store

    if isinstance(store, Store):
        return store, False
    return Store(store, readonly=readonly), True


def using_store(store: Store | str | Path | None, *, readonly: bool = False
                ) -> contextlib.AbstractContextManager[Store]:
    """``with using_store(store) as st``: ``store`` itself, left open, or the store it
    names (:func:`open_store`), closed when the block ends."""
    st, owned = open_store(store, readonly=readonly)
    return st if owned else contextlib.nullcontext(st)


def load_model(model: str | Path, *, kind: str = "auto", device: str | None = None,
               dtype: str = "float32", start_token: str = "auto",
               store: Store | str | Path | None = None, batch_size: int | None = None,
               base_url: str | None = None, concurrency: int | None = None,
               timeout: float | None = None, retries: int | None = None,
               api_key_env: str | None = None, headers: Any = None) -> Any:
    """A model adapter, loaded once (pass it as ``model=`` to :func:`run`).

    ``model``: Hugging Face Hub id, local folder, ``.gguf`` file or a packaged offline
    name (``smollm2``, ``gemma3-270m``; ``glove-6b-50d``, word vectors;
    ``all-minilm-l6-v2``, a sentence encoder; a classifier SPEC with
    ``kind="classifier"``). ``kind``: ``auto`` (a packaged name's own kind, else a
    language model's from its config) / ``masked`` / ``causal`` for language models.
    ``store``: the score cache (default: ``$GENDERSCOPE_STORE`` or
    ``~/.cache/genderscope/store.sqlite``); an LM adapter or encoder keeps it open.
    Models the store has seen come back *deferred* (weights or vectors read on the
    first answer no cache holds). Warning: a classifier SPEC runs code (a pickle is
    unpickled, ``module:name`` / ``file.py:name`` imported and called): only trusted ones.
    ``batch_size``:
    texts per call (None: 64 for a classifier or sentence encoder; a language model sizes
    its batches from the texts' lengths). ``openai:NAME`` + ``base_url``: an
    OpenAI-compatible chat endpoint (:mod:`genderscope.models.endpoint`), and its client
    settings (None: the defaults): ``concurrency`` (requests in flight, 4), ``timeout``
    (seconds, 120), ``retries`` (4), ``api_key_env`` (the key's variable,
    ``OPENAI_API_KEY``), ``headers`` (``{"K": "V"}`` or ``["K:V"]``); they are not part of
    the model's identity (reuse keys).
    """
    if kind not in kinds.LOAD:
        raise GenderscopeError(f"kind must be one of {', '.join(kinds.LOAD)}, got {kind!r}")
    if kind == "auto":  # glove-6b-50d, all-minilm-l6-v2: not on the Hub as language models
        kind = _packaged_kind(str(model))
    if base_url and not str(model).startswith("openai:"):  # never silently ignored
        raise GenderscopeError(f"{shown_option('--base-url')} is for an endpoint model "
                               f"(openai:NAME); {model} is not one")
    client = _client_settings(model, concurrency=concurrency, timeout=timeout,
                              max_retries=retries, api_key_env=api_key_env, headers=headers)
    if kind == "classifier":
        from genderscope.models.classifier import load_classifier

        return load_classifier(str(model), batch_size=batch_size or 64)
    if kind == "vectors":  # the store only holds their memo: parsed on first lookup
        from genderscope.models.vectors import load_vectors

        with using_store(store) as st:
            return load_vectors(str(model), store=st)
    st, owned = open_store(store)
    try:
        if kind == "encoder":
            from genderscope.models.encoder import SentenceEncoder

            return SentenceEncoder.load(str(model), device=device, store=st,
                                        batch_size=batch_size or 64)
        if client:
            from genderscope.models.endpoint import OpenAIChat

            return OpenAIChat(str(model), base_url, store=st, **client)
        from genderscope.models.loading import load_lm

        return load_lm(model, kind, store=st, device=device, dtype=dtype,
                       start_token=start_token, batch_size=batch_size, base_url=base_url)
    except BaseException:  # refused: the store it opened is not left open
        if owned:
            st.close()
        raise


def _packaged_kind(spec: str) -> str:
    """``vectors`` or ``encoder`` for a packaged word-vector or sentence-encoder name,
    else ``auto`` (a language model's kind is read from its config)."""
    from genderscope.models.encoder import PACKAGED as ENCODERS
    from genderscope.models.vectors import PACKAGED as VECTORS

    return "vectors" if spec in VECTORS else "encoder" if spec in ENCODERS else "auto"


def _client_settings(model: Any, **given: Any) -> dict[str, Any]:
    """The endpoint client settings given (not None); refused in one line for a model
    that is not ``openai:NAME``."""
    client = {k: v for k, v in given.items() if v is not None}
    if client and not (isinstance(model, (str, Path)) and str(model).startswith("openai:")):
        flags = ", ".join(shown_option("--retries" if k == "max_retries" else flag(k))
                          for k in client)
        what = model if isinstance(model, (str, Path)) else "a loaded model (give them to " \
            "load_model)"
        raise GenderscopeError(f"{flags} {'is' if len(client) == 1 else 'are'} for an "
                               f"endpoint model (openai:NAME); {what} is not one")
    return client


def plan_of(measure: str, options: dict[str, Any]) -> tuple[Plan, dict[str, Any]]:
    """The measure's plan (options checked against its declaration, data loaded, no
    model), and the options it takes with their defaults (less ``progress``)."""
    from genderscope.checks import check_options

    check_options(options)  # seeds >= 0, whole-number counts: before any work
    found = declared(measure)  # its plan checks the options (Declaration wraps it)
    accepted = {o.name: o.default for o in found.options  # key=False: keyed, if at
                if o.name != "progress" and o.key}  # all, through the plan's inputs
    return found.plan(**options), accepted


def run_key(measure: str, adapter: Any, **options: Any) -> str | None:
    """The key :func:`run` would find or record this call's run under (None: never
    reused), told without running it; ``adapter`` may be deferred (nothing loads). How
    it was loaded (kind, dtype, start token) is read from its identity."""
    from genderscope.engine.keys import key_options, reuse_key

    plan, accepted = plan_of(measure, dict(options))
    return reuse_key(measure, plan, adapter,
                     key_options(accepted, {**options, **plan.key_options}))


def _call_text(measure: str, model: Any, options: dict[str, Any]) -> str:
    args = [repr(measure)] + ([f"model={model!r}"] if isinstance(model, (str, Path)) else [])
    args += [f"{k}={str(v) if isinstance(v, Path) else v!r}" for k, v in options.items()]
    return f"genderscope.run({', '.join(args)})"


def _check_loaded_start_token(model: Any, start_token: str) -> None:
    """A ``start_token`` other than ``auto`` with a model already loaded must be the one
    it was loaded with: a masked model has none (as :func:`load_model` refuses), and a
    causal model's was fixed when it loaded (it would be ignored, and the run keyed
    under the token asked for)."""
    if start_token == "auto" or model is None or isinstance(model, (str, Path)):
        return
    from genderscope.checks import refuse_masked_only

    name = getattr(model, "source", "the model given")
    refuse_masked_only(start_token, [(name, getattr(model, "kind", None) or "")])
    describe = getattr(model, "describe", None)
    own = describe().get("start_token") if callable(describe) else None
    if getattr(model, "kind", None) == "causal" and own is not None and own != start_token:
        raise GenderscopeError(f"start_token {start_token!r}: {name} was loaded with "
                               f"{own!r}; load it with start_token={start_token!r}, or leave "
                               "start_token out")


@honours_progress_argument
def run(measure: str, model: Any = None, *, store: Store | str | Path | None = None,
        out: str | Path | None = None, save: bool = False, progress: bool = False,
        kind: str = "auto",
        device: str | None = None, dtype: str = "float32", start_token: str = "auto",
        batch_size: int | None = None, command: str | None = None, reuse: bool = True,
        base_url: str | None = None, record: bool = True, concurrency: int | None = None,
        timeout: float | None = None, retries: int | None = None,
        api_key_env: str | None = None, headers: Any = None,
        **options: Any) -> Result:
    """Run one measure on one model; record it in the store and return the Result.

    ``measure``: one of :func:`genderscope.measures` (``crows-pairs``, ``winobias``,
    ``bec-pro``, ...). ``model``: a model spec (see :func:`load_model`) or an adapter
    :func:`load_model` returned (``None`` for ``bias-amplification``, which compares
    texts). Warning: a classifier SPEC (``counterfactual``, ``attack``) runs code, as in
    :func:`load_model`. ``options``: the measure's declared options, named as the CLI's
    in snake case (``bias_type="gender"``, ``limit=100``, ``subset_seed=0``, ``seed=0``,
    ``resamples=10_000``, ``data=...``); an unknown option or a value out of range is an
    error. ``out``: also write ``summary.json`` + ``items.csv`` (+ tables) there
    (``save=True``: to ``./genderscope-results/<method>``, as the CLI does);
    ``metadata["out"]`` says where. The seed (where the measure has randomness), the
    subset and the call are recorded in ``result.metadata``; ``metadata["run_id"]`` is the
    run's id in the store.

    ``reuse``: when the store already holds a run of this measure with the same options,
    the same model identity and the same items (:mod:`genderscope.engine.keys`), return it
    (``metadata["reused"]`` is True) without loading the model or recomputing anything;
    ``out`` is rewritten only when it does not already hold that run. ``reuse=False``
    recomputes (every score still comes from the score cache). ``record=False``: return
    the result without recording it (a sweep worker ships it to the driver's store).
    ``batch_size``, ``concurrency``, ``timeout``, ``retries``, ``api_key_env``,
    ``headers``: as in :func:`load_model` (batching and an endpoint's client settings are
    not part of the reuse key).
    """
    client = dict(concurrency=concurrency, timeout=timeout, retries=retries,
                  api_key_env=api_key_env, headers=headers)
    _client_settings(model, **client)  # before any work
    _check_loaded_start_token(model, start_token)  # before any work
    if out is not None:  # before the plan reads a file: never an input, never unsafe
        _check_out(out, model, options, store)
    plan, accepted = plan_of(measure, {**options, "progress": progress})
    if model is None and plan.needs != "none":
        raise GenderscopeError(f"{measure}: give a model (model=...)")
    if kind not in kinds.LM_LOAD:
        raise GenderscopeError(f"kind must be auto, masked or causal, got {kind!r}")
    if dtype != "float32" and declared(measure).sentence_scored:
        import warnings

        warnings.warn(f"{measure} with dtype {dtype}: sentence scores sum many token terms, "
                      "and half precision moves them by nats (CrowS-Pairs on SmolLM2, "
                      "bfloat16: 9 of 300 decisions flipped; docs/performance.md); float32 "
                      "is the reference", UserWarning, stacklevel=2)
    if out is None and save:
        out = Path("genderscope-results") / plan.method
        _check_out(out, model, options, store)
    with using_store(store) as st:
        plan.store = st
        t0 = time.perf_counter()
        if plan.needs == "none":
            adapter = None
        elif isinstance(model, (str, Path)):
            adapter = load_model(model, kind=kind if plan.needs == "lm" else plan.needs,
                                 device=device, dtype=dtype, start_token=start_token, store=st,
                                 batch_size=batch_size, base_url=base_url, **client)
        else:
            adapter = model
        t_load = time.perf_counter() - t0
        from genderscope.engine.keys import key_options, out_holds, reuse_key

        key = reuse_key(measure, plan, adapter,  # the model as loaded, not as typed
                        key_options(accepted, {**options, **plan.key_options}))
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
        if adapter is not None:  # every run names its model, the same way
            result.metadata["model"] = model_description(adapter, result.metadata.get("model"))
        if key is not None:
            result.metadata["cache_key"] = key
        result.metadata["runtime_s"] = round(time.perf_counter() - t0, 2)
        result.metadata["load_s"] = round(t_load, 2)
        result.metadata["command"] = command or _call_text(  # every option, defaults too:
            measure, model, {**{o.name: o.default for o in declared(measure).options  # a
                                if o.name != "progress"}, **options})  # call one can paste
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
    return result


def model_description(adapter: Any, named: Any = None) -> dict[str, Any]:
    """What a run records of its model (``metadata["model"]``: ``runs list``, ``runs
    export --model``, ``runs diff`` and the report's provenance read it): the adapter's
    ``describe()``, or its fingerprint alone where it has none. ``named``: what the
    measure recorded, kept when it has the adapter's fingerprint (a view of the same
    model: SEAT reads a causal LM as an ``lm-encoder``)."""
    if isinstance(named, dict) and named.get("fingerprint") is not None and \
            named.get("fingerprint") == getattr(adapter, "fingerprint", None):
        return named
    describe = getattr(adapter, "describe", None)
    if callable(describe):
        return dict(describe())
    return {"fingerprint": getattr(adapter, "fingerprint", None)}


def _check_out(out: Any, model: Any, options: dict[str, Any], store: Any) -> None:
    """Refuse, before any work, an ``out`` folder that is unsafe or is or holds anything
    the run reads (:func:`genderscope.outputs.command_inputs`)."""
    from genderscope.outputs import check_output_folder, command_inputs

    check_output_folder(out, inputs=command_inputs(models=[model], options=options,
                                                   store=store),
                        files=("summary.json", "items.csv"))


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
