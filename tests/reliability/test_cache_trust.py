"""Caches you can trust (issue 37, item 4).

- The file-hash memo (:func:`genderscope.models.memo.cached_sha256`) is keyed on what a
  user cannot set back (inode change time, inode, device) besides path, size and
  modification time: other bytes written at a file's path with its size and its old
  modification time restored are hashed again, never served the old digest.
- A fetched data file corrupted in place with its size unchanged is never used:
  ``data path`` and the first use fetch it again, ``data fetch`` repairs it instead of
  saying "already fetched" (a local mirror on 127.0.0.1, as in test_data_registry.py).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from genderscope.datasets import registry as reg
from genderscope.datasets.locations import find_benchmark
from genderscope.datasets.registry_fetch import fetch, verify
from genderscope.errors import GenderscopeError
from genderscope.models import memo
from tests.datasets.test_data_registry import Mirror, cli, mirror  # noqa: F401 - the mirror fixture


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _rewrite_keeping_size_and_mtime(path: Path, data: bytes) -> None:
    """``data`` written over ``path`` in place (same inode), its old mtime restored."""
    st = path.stat()
    assert len(data) == st.st_size
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


@pytest.fixture()
def hash_count(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file :func:`cached_sha256` reads (its memo could not vouch for it)."""
    import genderscope.results as results

    seen: list[Path] = []
    real = results.file_sha256

    def counted(path: str | Path, *args: object, **kw: object) -> str:
        seen.append(Path(path))
        return real(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(results, "file_sha256", counted)
    return seen


# -- the file-hash memo ---------------------------------------------------------------------
def test_bytes_rewritten_with_the_old_size_and_mtime_are_hashed_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "model.gguf"
    a, b = b"weights of model A " * 300, b"weights of model B " * 300
    model.write_bytes(a)
    assert memo.cached_sha256(model) == sha(a)
    _rewrite_keeping_size_and_mtime(model, b)
    assert memo.cached_sha256(model) == sha(b)


def test_the_memo_key_moves_with_what_a_user_cannot_set_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hash_count: list[Path]) -> None:
    """The key itself changes (inode change time; the inode for a file replaced by a
    rename), so the old memo is never found, whatever the time since it was made."""
    import time

    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(memo, "RACY_NS", 0, raising=False)  # trust any memo: keys alone
    model = tmp_path / "model.bin"
    a, b, c = b"A" * 4096, b"B" * 4096, b"C" * 4096
    model.write_bytes(a)
    time.sleep(0.05)  # past the file system's clock tick
    assert memo.cached_sha256(model) == sha(a)
    assert memo.cached_sha256(model) == sha(a) and len(hash_count) == 1  # memo vouches
    before = memo.stat_key(model)
    time.sleep(0.05)
    _rewrite_keeping_size_and_mtime(model, b)  # same inode: the change time moved
    assert memo.stat_key(model) != before
    assert memo.cached_sha256(model) == sha(b)
    st = model.stat()
    other = tmp_path / "other.bin"  # same size and times, another inode, renamed in
    other.write_bytes(c)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, model)
    assert memo.cached_sha256(model) == sha(c)


def test_a_memo_made_just_after_the_file_changed_is_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hash_count: list[Path]) -> None:
    """File times tick coarsely: a memo made within RACY_NS of the file's last change is
    hashed again (a later memo vouches), so bytes rewritten within one tick of a hash
    cannot keep its key."""
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "model.bin"
    model.write_bytes(b"A" * 64)
    assert memo.cached_sha256(model) == memo.cached_sha256(model) == sha(b"A" * 64)
    assert len(hash_count) == 2  # just written: the memo does not vouch yet
    monkeypatch.setattr(memo, "RACY_NS", 0)  # as if RACY_NS had passed since
    assert memo.cached_sha256(model) == memo.cached_sha256(model) == sha(b"A" * 64)
    assert len(hash_count) == 2  # the last memo, made after the change, vouches


# -- fetched data files -----------------------------------------------------------------------
def _corrupt_in_place(path: Path) -> bytes:
    raw = bytearray(path.read_bytes())
    raw[0] ^= 1
    _rewrite_keeping_size_and_mtime(path, bytes(raw))
    return bytes(raw)


def test_a_cached_file_corrupted_in_place_is_never_used(mirror: Mirror,  # noqa: F811
                                                         tmp_path: Path) -> None:
    ds = reg.get("kurita")
    folder = fetch(ds, notice=False)
    assert reg.cached_dir(ds) == folder and reg.status(ds) == "fetched"
    target = ds.file("negative_traits.txt")
    _corrupt_in_place(folder / target.path)
    assert reg.cached_dir(ds) is None
    assert reg.status(ds) == "damaged" and reg.damaged(ds) == [target]
    assert find_benchmark("kurita") == folder  # the first use fetches it again
    assert sha((folder / target.path).read_bytes()) == target.sha256
    assert mirror.log[f"kurita/{target.path}"] == 2
    assert mirror.log["kurita/positive_traits.txt"] == 1  # the good files are kept
    assert reg.cached_dir(ds) == folder and verify(ds) == []


def test_data_path_never_returns_a_corrupted_copy(mirror: Mirror,  # noqa: F811
                                                  tmp_path: Path) -> None:
    ds = reg.get("kurita")
    folder = fetch(ds, notice=False)
    target = ds.file("positive_traits.txt")
    _corrupt_in_place(folder / target.path)
    r = cli("data", "path", "kurita", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(folder)
    assert sha((folder / target.path).read_bytes()) == target.sha256  # repaired first
    assert "positive_traits.txt" in r.stderr and "failed the check" in r.stderr


def test_data_fetch_repairs_a_corrupted_file(mirror: Mirror,  # noqa: F811
                                             tmp_path: Path) -> None:
    ds = reg.get("kurita")
    folder = fetch(ds, notice=False)
    target = ds.file("negative_traits.txt")
    _corrupt_in_place(folder / target.path)
    r = cli("data", "fetch", "kurita", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "already fetched" not in r.stdout and f"kurita: fetched ({folder})" in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if "failed the check" in ln]
    assert len(lines) == 1 and f"kurita/{target.path}" in lines[0]
    assert sha((folder / target.path).read_bytes()) == target.sha256 and verify(ds) == []
    again = cli("data", "fetch", "kurita", cwd=tmp_path)
    assert again.returncode == 0 and "already fetched" in again.stdout


def test_a_corrupted_file_offline_is_refused_not_used(mirror: Mirror,  # noqa: F811
                                                      tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    ds = reg.get("kurita")
    folder = fetch(ds, notice=False)
    bad = _corrupt_in_place(folder / "negative_traits.txt")
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", "http://127.0.0.1:9")  # nothing listens
    with pytest.raises(GenderscopeError, match="not available offline") as err:
        find_benchmark("kurita")
    assert "\n" not in str(err.value)
    assert (folder / "negative_traits.txt").read_bytes() == bad  # nothing half-written


def test_an_intact_copy_is_vouched_for_by_the_memo(mirror: Mirror,  # noqa: F811
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   hash_count: list[Path]) -> None:
    """Checking a fetched set before each use reads no file the memo vouches for; a
    file it cannot vouch for (no memo) is hashed in full and accepted."""
    ds = reg.get("kurita")
    folder = fetch(ds, notice=False)
    monkeypatch.setattr(memo, "RACY_NS", 0)  # as if the files were fetched long ago
    assert reg.cached_dir(ds) == folder
    hash_count.clear()
    assert reg.cached_dir(ds) == folder and find_benchmark("kurita") == folder
    assert hash_count == []
    for m in (tmp_path / "cache" / "hashes").iterdir():
        m.unlink()
    assert reg.cached_dir(ds) == folder and len(hash_count) == len(ds.files)
