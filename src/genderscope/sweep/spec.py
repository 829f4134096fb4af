"""What a sweep is: models (with revisions), measures (with options) and resources per job.

From ``genderscope sweep`` flags, a YAML sweep file (keys: docs/sweep.md), or both (flags
add to the file and override it). Checked here, before Ray starts: a mistake is one line.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from genderscope.checks import whole_number
from genderscope.core.kinds import LOAD
from genderscope.errors import GenderscopeError
from genderscope.reporting.build import DECODING_OPTIONS  # settings: decoding: keys

MODEL_KINDS = tuple(k for k in LOAD if k != "classifier")
"""The ``kind`` a sweep's model may have (:data:`genderscope.core.kinds.LOAD`, less
``classifier``: a sweep gives no texts to classify): ``auto``/``masked``/``causal``:
language models; ``vectors``: word vectors (WEAT); ``encoder``: sentence encoders (SEAT)."""
CPU_ONLY_KINDS = ("vectors",)
"""Kinds whose measures never use a GPU: their jobs ask Ray for no GPU."""
_MEASURE_KEYS = {"name", "lang", "quick", "seed"}
CLIENT_KEYS = ("concurrency", "timeout", "retries", "api_key_env", "headers")
"""An endpoint model's client settings in a sweep file (``genderscope run``'s flags)."""
_MODEL_KEYS = {"model", "kind", "revision", "revisions", "series", "label", "cpus", "gpus",
               "base_url", *CLIENT_KEYS}
_SETTING_KEYS = {"lang", "quick", "full", "seed", "data", "device", "dtype", "start_token",
                 "max_retries", "store", "out", "address", "decoding"}
_RESOURCE_KEYS = {"cpus_per_job", "gpus_per_job"}


@dataclass(frozen=True)
class ModelSpec:
    """One model of a sweep (one revision of it)."""

    spec: str
    kind: str = "auto"
    revision: str | None = None
    series: str | None = None
    """Trajectory group: every model of one series is one point of its trajectory
    (default: the model id, when it is swept at several revisions)."""
    label: str = ""
    cpus: float | None = None
    gpus: float | None = None
    base_url: str | None = None
    """The endpoint of an ``openai:NAME`` model (its jobs run the chat probes only)."""
    client: tuple[tuple[str, Any], ...] = ()
    """An endpoint's client settings (:data:`CLIENT_KEYS`), as ``(name, value)`` pairs."""
    from_file: bool = field(default=False, compare=False)
    """Listed in the sweep file (not a flag): its refusals name the file's keys."""

    @property
    def endpoint(self) -> bool:
        return self.spec.startswith("openai:")

    @property
    def client_options(self) -> dict[str, Any]:
        """:attr:`client` as :class:`~genderscope.models.endpoint.OpenAIChat`'s keywords
        (``retries`` is its ``max_retries``)."""
        return {"max_retries" if k == "retries" else k: v for k, v in self.client}

    @property
    def name(self) -> str:
        """How the model is shown: the label, else ``spec@revision``."""
        if self.label:
            return self.label
        return f"{self.spec}@{self.revision}" if self.revision else self.spec


@dataclass(frozen=True)
class MeasureSpec:
    """One measure of a sweep, with options that override the sweep's settings."""

    name: str
    lang: str | None = None
    quick: bool | None = None
    seed: int | None = None


@dataclass
class SweepSpec:
    """Everything a sweep runs, and where."""

    models: list[ModelSpec] = field(default_factory=list)
    measures: list[MeasureSpec] = field(default_factory=list)
    lang: str = "en"
    quick: bool = False
    full: bool = False
    """Every benchmark in full, as ``genderscope report --full`` (else the CPU subsets)."""
    seed: int = 0
    data: Path | None = None
    device: str | None = None
    dtype: str = "float32"
    start_token: str = "auto"
    cpus_per_job: float = 1.0
    gpus_per_job: float = 0.0
    max_retries: int = 3
    """Ray re-runs a job whose worker process died up to this many times."""
    address: str | None = None
    """``None``: a local Ray instance on this machine; ``auto`` or ``ray://host:port``:
    an existing cluster."""
    store: Path | None = None
    out: Path = Path("sweep-report.html")
    decoding: tuple[tuple[str, Any], ...] = ()
    """The chat probes' decoding options over the report's own (``settings: decoding:``;
    :func:`genderscope.reporting.build.decoding_options`)."""
    file: Path | None = None
    """The sweep file its settings came from (named in a refusal of them)."""

    def resources(self, model: ModelSpec) -> tuple[float, float]:
        """(CPUs, GPUs) one job of ``model`` asks Ray for; CPU-only kinds ask no GPU."""
        cpus = model.cpus if model.cpus is not None else self.cpus_per_job
        gpus = model.gpus if model.gpus is not None else self.gpus_per_job
        return cpus, (0.0 if model.kind in CPU_ONLY_KINDS else gpus)

    def check(self) -> SweepSpec:
        """Refuse an empty or inconsistent sweep (one line); returns self."""
        from genderscope.reporting.registry import LANGS, select

        if not self.models:
            raise GenderscopeError("a sweep needs at least one model (--model or a file's "
                                   "models:)")
        if not self.measures:
            raise GenderscopeError("a sweep needs at least one measure (--measure or a file's "
                                   "measures:)")
        if self.quick and self.full:
            raise GenderscopeError("--quick and --full exclude each other")
        select([m.name for m in self.measures])  # unknown names fail here
        for m in self.measures:
            if m.lang is not None and m.lang not in LANGS:
                raise GenderscopeError(f"measure {m.name}: lang must be one of "
                                       f"{', '.join(LANGS)}, got {m.lang!r}")
        if self.lang not in LANGS:
            raise GenderscopeError(f"--lang must be one of {', '.join(LANGS)}, got {self.lang!r}")
        for m in self.models:
            if m.kind not in MODEL_KINDS:
                raise GenderscopeError(f"model {m.spec}: kind must be one of "
                                       f"{', '.join(MODEL_KINDS)}, got {m.kind!r}")
            if (m.base_url or m.client) and not m.endpoint:
                raise GenderscopeError(f"model {m.name}: base_url and client settings are "
                                       "for an endpoint model (openai:NAME)")
            if m.endpoint:  # its URL and client settings, as `genderscope run` checks them
                from genderscope.reporting.inputs import check_endpoint_settings

                check_endpoint_settings(m.name, m.spec, m.base_url, m.client_options,
                                        file_keys=m.from_file)
        for what, entries in (("model", self.models), ("measure", self.measures)):
            dup = sorted(n for n, c in Counter(e.name for e in entries).items() if c > 1)
            if dup:
                raise GenderscopeError(f"{what} listed twice in the sweep: {', '.join(dup)}")
        if not (math.isfinite(self.cpus_per_job) and self.cpus_per_job > 0
                and math.isfinite(self.gpus_per_job) and self.gpus_per_job >= 0):
            raise GenderscopeError("--cpus-per-job must be > 0 and --gpus-per-job >= 0 "
                                   f"(finite), got {self.cpus_per_job} and "
                                   f"{self.gpus_per_job}")
        for m in self.models:
            cpus, gpus = self.resources(m)
            if not (math.isfinite(cpus) and cpus > 0 and math.isfinite(gpus) and gpus >= 0):
                raise GenderscopeError(f"model {m.name}: cpus must be > 0 and gpus >= 0, got "
                                       f"{cpus} and {gpus}")
        for what, seed in (("--seed", self.seed), *((f"measure {m.name}: seed", m.seed)
                                                    for m in self.measures
                                                    if m.seed is not None)):
            whole_number(seed, "seed", 0, label=what)
        whole_number(self.max_retries, "max_retries", 0)
        self._check_start_token()
        if self.data is not None and not self.data.is_dir():
            raise GenderscopeError(f"--data {self.data}: no such folder")
        return self

    def _check_start_token(self) -> None:
        """A start token other than ``auto`` is a causal LM's: refused when every language
        model of the sweep is masked (by ``kind:`` or by its config), as the report's is."""
        from genderscope.reporting.inputs import check_models_start_token

        where = f"sweep file {self.file}: settings: start_token" if self.file else \
            "--start-token"
        check_models_start_token(self.start_token, [(m.name, m.spec, m.kind, m.revision)
                                                    for m in self.models if not m.endpoint],
                                 f"{where} {self.start_token!r}")

    def check_fits(self, num_cpus: int | None, num_gpus: float) -> None:
        """Refuse, before Ray starts, a job no node could run (Ray would wait for it
        forever): more CPUs or GPUs per job than the local Ray instance has.
        ``num_cpus``: the instance's CPUs, a whole number in [1, ``COUNT_MAX["num_cpus"]``]
        (``None``: this machine's), checked always; ``num_gpus``: its GPUs. The jobs are
        not checked against an existing cluster (``address``)."""
        if num_cpus is not None:
            whole_number(num_cpus, "num_cpus", 1)
        if self.address:
            return
        import os

        cpus_have = num_cpus if num_cpus is not None else float(os.cpu_count() or 1)
        for m in self.models:
            cpus, gpus = self.resources(m)
            if cpus > cpus_have:
                raise GenderscopeError(f"model {m.name}: a job asks for {cpus:g} CPUs but the "
                                       f"local Ray instance has {cpus_have:g}; lower "
                                       "--cpus-per-job or raise --num-cpus")
            if gpus > num_gpus:
                raise GenderscopeError(f"model {m.name}: a job asks for {gpus:g} GPUs but "
                                       f"this machine has {num_gpus:g}; use "
                                       "--gpus-per-job 0")

    def series_of(self, model: ModelSpec) -> str | None:
        """The trajectory ``model`` belongs to, if any."""
        if model.series:
            return model.series
        same = [m for m in self.models if m.spec == model.spec and not m.series]
        return model.spec if len(same) > 1 else None


# -- reading a sweep file -------------------------------------------------------------
def _bad(where: str, what: str) -> GenderscopeError:
    return GenderscopeError(f"sweep file {where}: {what}")


def _keys(where: str, entry: dict[str, Any], allowed: set[str], what: str) -> None:
    extra = sorted(set(entry) - allowed)
    if extra:
        raise _bad(where, f"unknown {what} key(s) {', '.join(extra)}; allowed: "
                          f"{', '.join(sorted(allowed))}")


def _number(where: str, key: str, value: Any, kind: type) -> Any:
    """A number >= 0 of the file: a whole one (``seed``, ``max_retries``) as
    :func:`~genderscope.checks.whole_number` checks it, or any finite one."""
    if kind is int:
        try:
            return whole_number(value, key, 0, label=key)
        except GenderscopeError as exc:
            raise _bad(where, str(exc)) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value):
        raise _bad(where, f"{key} must be a finite number, got {value!r}")
    if value < 0:
        raise _bad(where, f"{key} must be >= 0, got {value!r}")
    return kind(value)


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML safe loading (PyYAML's C loader when built) that refuses a key given twice in
    one mapping (YAML would keep the last silently, dropping e.g. a whole list of models)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            with contextlib.suppress(TypeError):  # an unhashable key is left to YAML
                if key in seen:
                    raise _bad(str(getattr(self, "name", "")), f"key {key!r} given twice "
                               f"(line {key_node.start_mark.line + 1})")
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _bool(where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _bad(where, f"{key} must be true or false, got {value!r}")
    return value


def _frozen(value: Any) -> Any:
    """A client setting as a hashable value (headers: ``("K:V", ...)``)."""
    if isinstance(value, dict):
        return tuple(f"{k}:{v}" for k, v in value.items())
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return value


def parse_models(where: str, entries: Any) -> list[ModelSpec]:
    """Model entries (strings or mappings) -> one ModelSpec per revision."""
    if not isinstance(entries, list):
        raise _bad(where, "models: must be a list")
    out: list[ModelSpec] = []
    for k, entry in enumerate(entries):
        at = f"{where} models[{k}]"
        if isinstance(entry, str):
            out.append(ModelSpec(entry, from_file=True))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("model"), str):
            raise _bad(at, "give a model id/path, or a mapping with model:")
        _keys(at, entry, _MODEL_KEYS, "model")
        if "revision" in entry and "revisions" in entry:
            raise _bad(at, "give revision: or revisions:, not both")
        revs = entry.get("revisions", [entry.get("revision")])
        if not isinstance(revs, list) or not revs or \
                not all(r is None or isinstance(r, str) for r in revs):
            raise _bad(at, "revisions: must be a non-empty list of branch/tag/commit names")
        base = ModelSpec(
            entry["model"], kind=str(entry.get("kind", "auto")),
            series=str(entry["series"]) if entry.get("series") is not None else None,
            label=str(entry.get("label", "")),
            cpus=_number(at, "cpus", entry["cpus"], float) if "cpus" in entry else None,
            gpus=_number(at, "gpus", entry["gpus"], float) if "gpus" in entry else None,
            base_url=str(entry["base_url"]) if entry.get("base_url") is not None else None,
            client=tuple((k, _frozen(entry[k])) for k in CLIENT_KEYS
                         if entry.get(k) is not None), from_file=True)
        if base.label and len(revs) > 1:
            raise _bad(at, "label: names one model; drop it when listing several revisions")
        out.extend(replace(base, revision=r) for r in revs)
    return out


def parse_measures(where: str, entries: Any) -> list[MeasureSpec]:
    if not isinstance(entries, list):
        raise _bad(where, "measures: must be a list")
    out: list[MeasureSpec] = []
    for k, entry in enumerate(entries):
        at = f"{where} measures[{k}]"
        if isinstance(entry, str):
            out.append(MeasureSpec(entry))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise _bad(at, "give a measure name, or a mapping with name:")
        _keys(at, entry, _MEASURE_KEYS, "measure")
        out.append(MeasureSpec(
            entry["name"], lang=str(entry["lang"]) if "lang" in entry else None,
            quick=_bool(at, "quick", entry["quick"]) if "quick" in entry else None,
            seed=_number(at, "seed", entry["seed"], int) if "seed" in entry else None))
    return out


def load_file(path: Path) -> SweepSpec:
    """A SweepSpec from a YAML sweep file (see the module docstring)."""
    where = str(path)
    if not path.is_file():
        raise GenderscopeError(f"sweep file {path}: no such file")
    try:
        text = path.read_text(encoding="utf-8")
        loader = _UniqueKeyLoader(text)
        loader.name = where
        try:
            raw = loader.get_single_data()
        finally:
            loader.dispose()
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _bad(where, f"not valid YAML: {first}") from None
    except RecursionError:
        raise _bad(where, "nested too deeply") from None
    if not isinstance(raw, dict):
        raise _bad(where, "must be a mapping with models: and measures:")
    _keys(where, raw, {"models", "measures", "settings", "resources"}, "top-level")
    spec = SweepSpec(models=parse_models(where, raw.get("models", [])),
                     measures=parse_measures(where, raw.get("measures", [])), file=path)
    settings = raw.get("settings") or {}
    resources = raw.get("resources") or {}
    if not isinstance(settings, dict) or not isinstance(resources, dict):
        raise _bad(where, "settings: and resources: must be mappings")
    _keys(where, settings, _SETTING_KEYS, "settings")
    _keys(where, resources, _RESOURCE_KEYS, "resources")
    for key, value in settings.items():
        if key == "decoding":
            from genderscope.reporting.build import decoding_options

            if not isinstance(value, dict):
                raise _bad(where, "settings: decoding must be a mapping, e.g. "
                                  "{repeat_penalty: 1.0}")
            unknown = sorted(set(value) - set(DECODING_OPTIONS))
            if unknown:
                raise _bad(where, f"settings: decoding: unknown key(s) {', '.join(unknown)}; "
                                  f"allowed: {', '.join(DECODING_OPTIONS)}")
            spec.decoding = decoding_options(**value)
        elif key in ("quick", "full"):
            setattr(spec, key, _bool(where, key, value))
        elif key in ("seed", "max_retries"):
            setattr(spec, key, _number(where, key, value, int))
        elif key in ("data", "store", "out"):
            if not isinstance(value, str) or not value.strip():
                raise _bad(where, f"settings: {key} must be a path, got {value!r}")
            p = Path(value).expanduser()
            setattr(spec, key, p if p.is_absolute() else path.parent / p)
        else:
            setattr(spec, key, None if value is None else str(value))
    for key, value in resources.items():
        setattr(spec, key, _number(where, key, value, float))
    return spec
