"""GEST through the data registry: the ``gest`` set is pinned to the authors' repository
(commit, SHA-256, git blob); Gest and GestCreative find it as every data set is found
(``--data``, ``$GENDERSCOPE_DATA``, the fetch cache, a verified download). No test
reaches the network: a small fixture stands in for gest.csv, served from 127.0.0.1."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from genderscope.datasets import registry as reg
from genderscope.errors import GenderscopeError
from genderscope.measures.genderbench import gest
from genderscope.measures.genderbench.common import attempts_frame
from genderscope.measures.genderbench.probe_run import point_metrics

COMMIT = "7dd908cae11720ee5d95e43a4ab94fb410c8b790"


def _fixture(folder: Path) -> Path:
    """gest/: a LICENSE and a gest.csv of 2 sentences per stereotype 1-16."""
    d = folder / "gest"
    d.mkdir(parents=True)
    (d / "LICENSE").write_text("Apache License 2.0 (fixture)\n")
    rows = [f'"I did thing {k}.{j}, alone.",{k}' for k in range(1, 17) for j in range(2)]
    (d / "gest.csv").write_text("sentence,stereotype\n" + "\n".join(rows) + "\n")
    return d


@pytest.fixture()
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """The fixture served on 127.0.0.1 as GENDERSCOPE_DATA_MIRROR; empty fetch cache;
    no GENDERSCOPE_DATA."""
    root = tmp_path / "served"
    _fixture(root)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", url)
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GENDERSCOPE_DATA", raising=False)
    yield url, root / "gest"
    server.shutdown()
    server.server_close()


def _as_fixture(ds: reg.Dataset, folder: Path) -> reg.Dataset:
    """The registry's gest entry with the fixture's sizes and digests."""
    files = tuple(dataclasses.replace(
        f, size=(folder / f.path).stat().st_size,
        sha256=hashlib.sha256((folder / f.path).read_bytes()).hexdigest()) for f in ds.files)
    return dataclasses.replace(ds, files=files, version="fixture")


def test_gest_entry_is_pinned_to_the_authors_repository() -> None:
    ds = reg.get("gest")
    assert ds.source == {"repo": "kinit-sk/gest", "commit": COMMIT} and not ds.packaged
    assert ds.licence_id == "Apache-2.0"
    f = ds.file("gest.csv")
    assert ds.file_url(f) == ("https://raw.githubusercontent.com/kinit-sk/gest/"
                              f"{COMMIT}/data/gest_1.1.csv")
    assert (f.size, f.mirrored, len(f.git_blob or "")) == (218_585, False, 40)


def test_without_the_set_the_error_names_the_fetch_command(tmp_path: Path,
                                                             monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GENDERSCOPE_DATA", str(tmp_path))  # no gest/ there
    with pytest.raises(GenderscopeError) as err:
        gest.build_gest()
    msg = str(err.value)
    assert "\n" not in msg and "genderscope data fetch gest" in msg


def test_probes_read_the_set_from_the_data_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _fixture(tmp_path)
    monkeypatch.setenv("GENDERSCOPE_DATA", str(tmp_path))
    spec = gest.build_gest(num_reorderings=1)
    assert len(spec.attempts) == 32 and spec.data_files == [str(tmp_path / "gest" / "gest.csv")]
    assert len(gest.build_creative(data=tmp_path).attempts) == 32  # a data root holding gest/


def test_probe_runs_on_the_set_fetched_through_the_registry(served, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    url, folder = served
    local = _as_fixture(reg.get("gest"), folder)
    real = reg.registry()
    monkeypatch.setattr(reg, "registry", lambda: {**real, "gest": local})
    spec = gest.build_gest(num_reorderings=2, sample_k=10)
    fetched = Path(spec.data_files[0])
    assert fetched.parent == reg.cache_root() / "gest" and reg.cached_dir(local) is not None
    men = ["(" + "abc"[a.meta["options"].index("male")] + ")" for a in spec.attempts]
    got = point_metrics(spec, attempts_frame(spec.attempts, men, spec.evaluate))
    assert got["frequency_male_option"] == 1.0 and got["undetected_rate_attempts"] == 0.0


def test_a_file_that_is_not_the_pinned_one_is_refused(served) -> None:  # type: ignore[no-untyped-def]
    """The fixture is not GEST 1.1: the real entry's digest refuses it and keeps nothing."""
    with pytest.raises(GenderscopeError, match=r"checksum mismatch for gest/"):
        gest.build_gest()
    assert reg.cached_dir(reg.get("gest")) is None
    assert not (reg.cache_root() / "gest" / "gest.csv").exists()
