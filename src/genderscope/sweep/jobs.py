"""One sweep job: a model and its measures, run where a Ray worker runs it.

No Ray here: the driver wraps :func:`run_model_job` in a Ray task. Each measure runs
through :func:`genderscope.reporting.runner.run_one`; workers never write the driver's
store (their score cache is a :class:`JobCache`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genderscope.errors import GenderscopeError
from genderscope.reporting.entry import Context
from genderscope.results import Result
from genderscope.store import Store
from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

CRASH_ENV = "GENDERSCOPE_SWEEP_TEST_CRASH"
"""Fault-injection hook for tests, a comma-separated list of model names: ``NAME``
makes the first attempt of that model's job kill its own worker process (SIGKILL)
after its first measure ran; ``NAME*`` does so on every attempt."""


def _crash_now(model: str, attempt: int) -> bool:
    names = [n.strip() for n in os.environ.get(CRASH_ENV, "").split(",")]
    return (model in names and attempt == 1) or f"{model}*" in names


class JobCache(Store):
    """The store an adapter sees inside a job: an in-memory store for this job's new
    cache entries, whose reads fall back to the driver's store file opened read-only
    (when ``path`` is reachable from this worker: same machine or a shared path).

    Every cache read goes through :meth:`get_scores`, so it sees both;
    :meth:`new_entries` gives the ``scores`` rows this job added, for the driver.
    """

    def __init__(self, path: str | Path | None) -> None:
        super().__init__(":memory:")
        self._driver: Store | None = None
        if path is not None and Path(path).is_file():
            with contextlib.suppress(GenderscopeError, sqlite3.Error):
                self._driver = Store(path, readonly=True)

    def get_scores(self, model: str, namespace: str, keys: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self._driver is not None:
            with contextlib.suppress(sqlite3.Error):  # store gone or locked: compute instead
                found = self._driver.get_scores(model, namespace, keys)
        found.update(super().get_scores(model, namespace, keys))
        return found

    def new_entries(self) -> list[tuple[str, str, str, Any]]:
        """The ``(model, namespace, key, value)`` cache rows this job added."""
        return self._con.execute("SELECT model, namespace, key, value FROM scores "
                                 "ORDER BY model, namespace, key").fetchall()

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
        super().close()


def measure_context(spec: SweepSpec, measure: MeasureSpec) -> Context:
    """The report Context of one measure: the sweep's settings, overridden per measure."""
    quick = spec.quick if measure.quick is None else measure.quick
    return Context(lang=measure.lang or spec.lang, quick=quick, full=spec.full and not quick,
                   seed=spec.seed if measure.seed is None else measure.seed,
                   data_dir=spec.data, progress=False, decoding=spec.decoding)


def make_subject(model: ModelSpec, cache: object, *, device: str | None, dtype: str,
                 start_token: str):
    """The report Subject of ``model`` (identity read without loading weights)."""
    from genderscope.reporting import runner

    if model.endpoint:
        subject = runner.endpoint_subject(model.spec, cache, base_url=model.base_url,  # type: ignore
                                          client=model.client_options)
    elif model.kind == "vectors":
        subject = runner.vectors_subject(model.spec, cache)  # type: ignore[arg-type]
    elif model.kind == "encoder":
        subject = runner.encoder_subject(model.spec, cache, device=device)  # type: ignore
    else:
        subject = runner.lm_subject(model.spec, cache, kind=model.kind,  # type: ignore
                                    device=device, dtype=dtype, start_token=start_token,
                                    revision=model.revision)
    subject.label = model.name
    return subject


@dataclass
class MeasureOutcome:
    """What one measure of a job gave: ``ok`` (with its Result), ``failed`` (with a
    one-line reason) or ``not applicable``."""

    name: str
    status: str
    reason: str = ""
    result: Result | None = None
    seconds: float = 0.0
    parts: list[Result] = field(default_factory=list)
    """The Result of each of the card's plans (several for WEAT's tests): what the driver
    records, each under its plan's key."""


@dataclass
class JobOutcome:
    """What a job returns to the driver."""

    model: str
    measures: list[MeasureOutcome]
    cache_entries: list[tuple[str, str, str, Any]] = field(default_factory=list)
    """New score-cache rows ``(model, namespace, key, value)``."""
    host: str = ""
    pid: int = 0
    node: str = ""
    """The Ray node id it ran on (set by the driver's task; empty without Ray)."""
    load_seconds: float | None = None
    seconds: float = 0.0
    error: str = ""
    """Set when the model itself could not be set up (every measure failed for it)."""


@dataclass
class JobPayload:
    """What the driver sends: the model, the measures still to run, the settings."""

    model: ModelSpec
    measures: list[tuple[str, Context]]
    device: str | None
    dtype: str
    start_token: str
    store_path: str | None
    command: str = ""


def run_model_job(job: JobPayload, attempt: int = 1) -> JobOutcome:
    """Load ``job.model`` once and run each of its measures (never raises for a measure
    or model failure: those become failed outcomes with a one-line reason)."""
    from genderscope.reporting.registry import measures
    from genderscope.reporting.runner import one_line, run_one

    t0 = time.perf_counter()
    cache = JobCache(job.store_path)
    out = JobOutcome(job.model.name, [], host=socket.gethostname(), pid=os.getpid())
    try:
        try:
            subject = make_subject(job.model, cache, device=job.device, dtype=job.dtype,
                                   start_token=job.start_token)
        except Exception as exc:  # noqa: BLE001 - a bad model fails its job, not the sweep
            out.error = one_line(exc)
            out.measures = [MeasureOutcome(name, "failed", out.error) for name, _ in job.measures]
            return out
        registry = measures()
        for k, (name, ctx) in enumerate(job.measures):
            if name not in registry:  # registered in the driver only
                out.measures.append(MeasureOutcome(name, "failed", f"measure {name!r} is not "
                                                   "registered in the worker process"))
                continue
            sec = run_one(registry[name], subject, ctx, cache, reuse=False, record=False,
                          command=job.command)
            out.measures.append(MeasureOutcome(name, sec.status, sec.reason, sec.result,
                                               sec.seconds, sec.parts))
            if k == 0 and _crash_now(job.model.name, attempt):
                os.kill(os.getpid(), signal.SIGKILL)  # test hook: the worker dies mid-job
        out.cache_entries = cache.new_entries()
        out.load_seconds = subject.load_seconds
        return out
    finally:
        cache.close()
        out.seconds = round(time.perf_counter() - t0, 2)
