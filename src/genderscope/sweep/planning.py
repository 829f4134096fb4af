"""The sweep's bookkeeping without Ray: which (model, measure) jobs must run, and how a
finished job's Results are recorded.

A job is skipped when every run it would make (one per plan) is already stored under the
key ``genderscope run`` and ``report`` use (:func:`genderscope.reporting.runner.reuse_keys`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from genderscope.reporting.entry import Card, Context
from genderscope.reporting.runner import Subject, not_applicable, one_line, reuse_keys
from genderscope.store import Store
from genderscope.sweep.jobs import JobOutcome, JobPayload, make_subject, measure_context
from genderscope.sweep.spec import ModelSpec, SweepSpec


@dataclass
class JobStatus:
    """The state of one (model, measure) job."""

    model: str
    measure: str
    status: str
    """``pending``, ``done``, ``skipped`` (already recorded), ``failed`` or
    ``not applicable``."""
    reason: str = ""
    attempts: int = 0
    seconds: float = 0.0
    node: str = ""
    """The Ray node id of the attempt that delivered its result."""
    keys: list[str] = field(default_factory=list)
    """One key per plan of the card ('' when unknown)."""
    run_ids: list[str] = field(default_factory=list)
    """One stored run per plan, in the card's order."""

    @property
    def key(self) -> str:
        """The run's key ('' when any is unknown); several plans: space-joined."""
        return " ".join(self.keys) if self.keys and all(self.keys) else ""

    @property
    def run_id(self) -> str | None:
        """The stored run (None before); several plans: their ids, comma-joined."""
        return ", ".join(self.run_ids) or None

    def settle(self, status: str, run_ids: list[str]) -> None:
        self.status, self.run_ids = status, list(run_ids)


@dataclass
class Planned:
    """One model's task: its subject and the measures it still has to run."""

    model: ModelSpec
    subject: Subject | None
    pending: list[tuple[Card, Context]] = field(default_factory=list)


@dataclass
class SweepRun:
    """Outcome of a sweep: every job's status, the subjects and the wall time."""

    statuses: dict[tuple[str, str], JobStatus]
    subjects: dict[str, Subject | None]
    contexts: dict[str, Context]
    seconds: float = 0.0
    ran: int = 0
    """Number of Ray tasks started by this sweep (0 when everything was recorded)."""

    def count(self, status: str) -> int:
        return sum(s.status == status for s in self.statuses.values())


def plan(spec: SweepSpec, store: Store) -> tuple[list[Planned], SweepRun]:
    """Which (model, measure) jobs must run; everything else gets its status now."""
    from genderscope.reporting.registry import select

    chosen = select([m.name for m in spec.measures])
    contexts = {ms.name: measure_context(spec, ms) for ms in spec.measures}
    run = SweepRun({}, {}, contexts)
    planned: list[Planned] = []
    for model in spec.models:
        try:
            subject: Subject | None = make_subject(model, store, device=spec.device,
                                                   dtype=spec.dtype, start_token=spec.start_token)
        except Exception as exc:  # noqa: BLE001 - a bad model id fails its jobs only
            subject, reason = None, one_line(exc)
        run.subjects[model.name] = subject
        job = Planned(model, subject)
        for measure in chosen:
            st = JobStatus(model.name, measure.name, "pending")
            run.statuses[(model.name, measure.name)] = st
            ctx = contexts[measure.name]
            if subject is None:
                st.status, st.reason = "failed", reason
                continue
            why = not_applicable(measure, subject, ctx)
            if why:
                st.status, st.reason = "not applicable", why
                continue
            try:
                st.keys = [k or "" for k in reuse_keys(measure, subject, ctx)]
            except Exception as exc:  # noqa: BLE001 - e.g. a data file that cannot be read
                st.status, st.reason = "failed", one_line(exc)
                continue
            found = [store.find_run(k) if k else None for k in st.keys]
            if found and all(found):
                st.settle("skipped", [f for f in found if f])
                continue
            job.pending.append((measure, ctx))
        if job.pending:
            planned.append(job)
    return planned, run


def record(store: Store, run: SweepRun, job: Planned, outcome: JobOutcome) -> None:
    """Record one finished task's Results (each plan's, under its key) and cache entries
    in one transaction; a run already stored under its key is not stored twice."""
    results = []
    owners: list[str] = []
    for mo in outcome.measures:
        st = run.statuses[(job.model.name, mo.name)]
        st.seconds, st.node = mo.seconds, outcome.node
        if mo.status == "ok" and mo.result is not None:
            parts = mo.parts or [mo.result]
            keys = st.keys if len(st.keys) == len(parts) else [""] * len(parts)
            for part, key in zip(parts, keys, strict=True):
                if key:  # the driver's key when it could tell it (the same key)
                    part.metadata["cache_key"] = key
                results.append(part)
                owners.append(mo.name)
        else:
            st.status, st.reason = mo.status, mo.reason
    ids = store.record_job(results, outcome.cache_entries)
    by_name: dict[str, list[str]] = {}
    for name, run_id in zip(owners, ids, strict=True):
        by_name.setdefault(name, []).append(run_id)
    for name, run_ids in by_name.items():
        run.statuses[(job.model.name, name)].settle("done", run_ids)
    for measure, _ in job.pending:  # a measure the task did not report back
        st = run.statuses[(job.model.name, measure.name)]
        if st.status == "pending":
            st.status, st.reason = "failed", "the job returned no result for this measure"


def _payload(spec: SweepSpec, job: Planned, store: Store, command: str, gpus: float
             ) -> JobPayload:
    device = spec.device if spec.device is not None or gpus > 0 else "cpu"
    return JobPayload(job.model, [(m.name, ctx) for m, ctx in job.pending], device,
                      spec.dtype, spec.start_token, str(store.path), command)
