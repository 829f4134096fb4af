"""``gs.report`` / ``genderscope report``: every measure that applies to the given models,
as one HTML page. Runs each measure through the engine (:mod:`genderscope.engine`), never
through the API."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genderscope.errors import GenderscopeError

if TYPE_CHECKING:
    from genderscope.reporting.runner import ReportData
    from genderscope.store import Store


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
    on a GPU, seeded subsets on a CPU (see :func:`genderscope.reporting.runner.choose_scope`).
    ``quick``: small subsets, a smoke test. An existing ``out`` is refused unless
    ``overwrite=True``. Stored runs with the same model, parameters
    and data are reused (``reuse=False`` re-runs them). Returns the page's data
    (``.sections``: one per measure and model, with ``.result`` and ``.headlines``).
    """
    from genderscope.checks import no_model_twice
    from genderscope.models.source import check_dtype
    from genderscope.reporting import html as page
    from genderscope.reporting import runner
    from genderscope.reporting.registry import LANGS, Context

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
    from genderscope.store import Store, default_store_path

    store_path = store.path if isinstance(store, Store) else \
        Path(store) if store is not None else default_store_path()
    page.check_writable(out, overwrite=overwrite, inputs=[  # never an input, --overwrite
        *models, *vectors, *encoders, *classifiers, texts, data, store_path])  # or not
    ctx = Context(lang=lang, quick=scope == "quick", full=scope == "full", seed=seed,
                  data_dir=Path(data) if data is not None else None, progress=progress,
                  texts=Path(texts) if texts is not None else None)
    from genderscope.engine import open_store

    st, owned = open_store(store)
    try:
        subjects = [runner.lm_subject(m, st, kind=kind, device=device, dtype=dtype,
                                      start_token=start_token) for m in models]
        subjects += [runner.vectors_subject(v, st) for v in vectors]
        subjects += [runner.encoder_subject(e, st, device=device) for e in encoders]
        subjects += [runner.classifier_subject(c) for c in classifiers]
        result = runner.run_report(subjects, ctx, st, names=list(measures or []) or None,
                                   reuse=reuse, command=command or _call(
                                       models, out, vectors=list(vectors),
                                       encoders=list(encoders), classifiers=list(classifiers),
                                       texts=texts, measures=measures, lang=lang,
                                       quick=quick, full=full, reuse=reuse, kind=kind,
                                       start_token=start_token, data=data, seed=seed,
                                       device=device, dtype=dtype),
                                   on_section=on_section, on_start=on_start)
        page.write(result, out)
    finally:
        if owned:
            st.close()
    return result


def _call(models: Sequence[str], out: str | Path, **options: Any) -> str:
    """The report's call with every argument, defaults included: a line a user can paste
    to make the same page."""
    args = [repr(list(models)), f"out={str(out)!r}"]
    args += [f"{k}={str(v) if isinstance(v, Path) else v!r}" for k, v in options.items()]
    return f"genderscope.report({', '.join(args)})"
