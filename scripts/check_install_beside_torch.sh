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
# Usage: scripts/check_install_beside_torch.sh [OLD_COMMIT]   (run from the repository root)
# Output recorded in docs/install.md. Takes a few minutes (downloads, resolution).
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
echo "OK: genderscope installs beside the torch already there"
