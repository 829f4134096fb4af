"""The sweep driver (docs/sweep.md, "How it runs"): plans jobs without loading a model
(:mod:`genderscope.sweep.planning`), runs one Ray task per model with its pending measures,
and records each finished task's Results and cache entries in one transaction
(:meth:`~genderscope.store.Store.record_job`). Ray is imported only here.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

from genderscope.errors import GenderscopeError
from genderscope.reporting.runner import one_line
from genderscope.store import Store
from genderscope.sweep.jobs import JobOutcome, JobPayload, run_model_job
from genderscope.sweep.planning import (  # noqa: F401 - re-exported for callers
    JobStatus,
    Planned,
    SweepRun,
    _payload,
    plan,
    record,
)
from genderscope.sweep.spec import SweepSpec


# -- Ray ----------------------------------------------------------------------------------
def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise GenderscopeError("genderscope sweep needs Ray: pip install "
                               "'genderscope[ray]'") from None
    return ray


def local_gpus() -> int:
    """GPUs a local Ray instance would see, told without starting it:
    ``CUDA_VISIBLE_DEVICES`` when set, else the GPUs ``nvidia-smi -L`` lists (0 when it
    is missing)."""
    import shutil
    import subprocess

    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return len([d for d in env.split(",") if d.strip() and not d.strip().startswith("-")])
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return 0
    try:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(line.startswith("GPU ") for line in listed.stdout.splitlines())


def start_ray(address: str | None, num_cpus: int | None = None) -> bool:
    """Connect to ``address`` or start a local Ray instance; True when this call started
    it (and the caller should shut it down, then :func:`forget_ray_token`).

    A local instance gets node address 127.0.0.1, and since Ray's servers still listen
    on every interface, it requires a fresh random token (Ray token authentication,
    ``RAY_AUTH_MODE=token``) unless the user set ``RAY_AUTH_MODE``: nobody on the network
    can submit work to it."""
    ray = _ray()
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "ERROR",
                              "log_to_driver": False}
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            if "RAY_AUTH_MODE" not in os.environ:
                _use_fresh_token()
            ray.init(num_cpus=num_cpus, _node_ip_address="127.0.0.1", **kwargs)
    except Exception as exc:  # noqa: BLE001 - any start failure (Ray raises a bare
        # Exception("The current node timed out during startup") on a busy machine)
        forget_ray_token()
        with contextlib.suppress(Exception):  # a half-started instance is not left behind
            ray.shutdown()
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        reason = one_line(exc) or type(exc).__name__
        raise GenderscopeError(f"cannot start {where}: {reason}") from None
    return True


_OWN_TOKEN: list[bool] = []
"""Non-empty while this process holds the token it set for its local Ray instance."""


def _use_fresh_token() -> None:
    """Set ``RAY_AUTH_MODE=token`` and a random ``RAY_AUTH_TOKEN`` for the local instance
    and its workers, refreshing Ray's configuration (read at import); if that fails the
    token is dropped and Ray runs without it."""
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    _OWN_TOKEN.append(True)
    try:
        from ray._raylet import Config

        Config.initialize("")
    except Exception:  # noqa: BLE001 - a Ray without token support or another layout
        forget_ray_token()


def forget_ray_token() -> None:
    """Drop the token :func:`start_ray` set (after ``ray.shutdown()``)."""
    if _OWN_TOKEN:
        os.environ.pop("RAY_AUTH_MODE", None)
        os.environ.pop("RAY_AUTH_TOKEN", None)
        _OWN_TOKEN.clear()
        try:  # Ray's configuration back to what the environment says
            from ray._raylet import AuthenticationTokenLoader, Config

            Config.initialize("")
            AuthenticationTokenLoader.instance().reset_cache()
        except Exception:  # noqa: BLE001
            pass


class _Tracker:
    """Counts the attempts of each task (a small Ray actor): attempt 2+ = a retry."""

    def __init__(self) -> None:
        self.attempts: dict[str, int] = {}

    def start(self, name: str) -> int:
        self.attempts[name] = self.attempts.get(name, 0) + 1
        return self.attempts[name]

    def counts(self) -> dict[str, int]:
        return dict(self.attempts)


def _task_failure(ray: Any, exc: Exception, retries: int) -> str:
    """One line for a task that returned no outcome."""
    died = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
            ray.exceptions.LocalRayletDiedError)
    if isinstance(exc, died):
        return f"its worker process died on all {retries + 1} attempts " \
               f"({type(exc).__name__}); see the Ray logs"
    if isinstance(exc, ray.exceptions.RayError):
        return f"the job failed: {one_line(getattr(exc, 'cause', None) or exc)}"[:400]
    return f"cannot record the job's results: {one_line(exc)}"[:400]


def _fail(run: SweepRun, job: Planned, reason: str,
          notify: Callable[[JobStatus, str], None]) -> None:
    """Every job of ``job`` not yet settled fails with ``reason``."""
    for measure, _ in job.pending:
        st = run.statuses[(job.model.name, measure.name)]
        if st.status == "pending":
            st.status, st.reason = "failed", reason
        notify(st, st.status)


PAUSE_ENV = "GENDERSCOPE_SWEEP_TEST_PAUSE"
"""Test hook, ``NAME[,NAME...]=FOLDER``: the first attempt of model NAME's task writes its
Ray node id to ``FOLDER/NAME.node`` and waits (at most 120 s) until ``FOLDER/NAME.go``
exists, so a test can remove that node, or kill the driver, while the task is in flight."""


def _pause_for_test(name: str, node: str, attempt: int) -> None:
    hook = os.environ.get(PAUSE_ENV, "")
    names, _, folder = hook.partition("=")
    if not folder or name not in names.split(",") or attempt != 1:
        return
    from pathlib import Path

    go = Path(folder) / f"{name}.go"
    if go.exists():
        return
    (Path(folder) / f"{name}.node").write_text(node, encoding="utf-8")
    deadline = time.monotonic() + 120
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def _ray_job(payload: JobPayload, tracker: Any) -> JobOutcome:
    import ray

    attempt = ray.get(tracker.start.remote(payload.model.name))
    node = ray.get_runtime_context().get_node_id()
    _pause_for_test(payload.model.name, node, attempt)
    outcome = run_model_job(payload, attempt)
    outcome.node = node
    return outcome


def run_sweep(spec: SweepSpec, store: Store, *, command: str = "",
              on_status: Callable[[JobStatus, str], None] | None = None,
              on_total: Callable[[int], None] | None = None,
              num_cpus: int | None = None) -> SweepRun:
    """Run every pending job of ``spec`` on Ray and record the results in ``store``.

    ``on_status(status, event)`` is called for each job when it is skipped, done,
    failed, not applicable or retried (``event`` says which); ``on_total(n)`` once
    with the number of jobs that will run."""
    t0 = time.perf_counter()
    spec.check_fits(num_cpus, local_gpus())  # a job no node can run would wait forever
    planned, run = plan(spec, store)
    notify = on_status or (lambda st, ev: None)
    for st in run.statuses.values():
        if st.status != "pending":
            notify(st, st.status)
    if on_total is not None:
        on_total(sum(len(p.pending) for p in planned))
    if run.statuses and all(st.status == "not applicable" for st in run.statuses.values()):
        first = next(iter(run.statuses.values()))  # as `genderscope report` refuses it
        raise GenderscopeError(f"no measure of the sweep applies to its models (e.g. "
                               f"{first.measure} on {first.model}: {first.reason})")
    if not planned:
        run.seconds = round(time.perf_counter() - t0, 2)
        return run
    ray = _ray()
    started = start_ray(spec.address, num_cpus)
    try:
        # the tracker lives on the driver's node: a worker node that dies takes no state
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
        tracker = ray.remote(num_cpus=0)(_Tracker).options(scheduling_strategy=here).remote()
        refs: dict[Any, Planned] = {}
        remote_job = ray.remote(_ray_job)
        for job in planned:
            cpus, gpus = spec.resources(job.model)
            task = remote_job.options(num_cpus=cpus, num_gpus=gpus, max_retries=spec.max_retries,
                                      name=f"genderscope-sweep:{job.model.name}")
            refs[task.remote(_payload(spec, job, store, command, gpus), tracker)] = job
        run.ran = len(refs)
        announced: dict[str, int] = {}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            for name, n in ray.get(tracker.counts.remote()).items():
                if n > announced.get(name, 1):
                    announced[name] = n
                    for st in run.statuses.values():
                        if st.model == name and st.status == "pending":
                            st.attempts = n
                            notify(st, "retried")
            for ref in done:
                job = refs.pop(ref)  # drops the reference: Ray may free the object
                try:
                    outcome: JobOutcome = ray.get(ref)
                    record(store, run, job, outcome)
                except Exception as exc:  # noqa: BLE001 - retries exhausted, task or store error
                    _fail(run, job, _task_failure(ray, exc, spec.max_retries), notify)
                    continue
                for measure, _ in job.pending:
                    st = run.statuses[(job.model.name, measure.name)]
                    st.attempts = max(st.attempts, announced.get(job.model.name, 1))
                    notify(st, st.status)
    finally:
        if started:
            ray.shutdown()
            forget_ray_token()
    run.seconds = round(time.perf_counter() - t0, 2)
    return run


def run_sequential(spec: SweepSpec, store: Store, *, command: str = "") -> SweepRun:
    """The same jobs one after another in this process, no Ray (for comparisons and the
    benchmark); records exactly as :func:`run_sweep` does."""
    t0 = time.perf_counter()
    planned, run = plan(spec, store)
    for job in planned:
        outcome = run_model_job(_payload(spec, job, store, command, spec.resources(job.model)[1]))
        record(store, run, job, outcome)
    run.ran = len(planned)
    run.seconds = round(time.perf_counter() - t0, 2)
    return run
