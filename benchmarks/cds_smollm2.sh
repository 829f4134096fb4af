#!/bin/bash
# CDS on GAP + fine-tuning SmolLM2-135M on CPU, then BEC-Pro and CrowS-Pairs (gender)
# before/after. Run from the repository root, under the heavy-job lock:
#   flock /tmp/gs-heavy.lock bash benchmarks/cds_smollm2.sh /tmp/gs-cds [--device cpu|cuda]
# Budget: the first 400 GAP documents (development-1..400), CDS p=0.5 seed 42, 1 epoch
# whole passages (--unit passage), lr 2e-5, batch 1, max 128 tokens. Bartl et al. use
# 3 epochs on the sentences of the fully flipped GAP (--corpus gap-flipped-bartl --mode none).
set -euo pipefail
W=${1:-/tmp/gs-cds}
DEVICE=cpu
if [ "${2:-}" = "--device" ]; then DEVICE=${3:?--device needs a value}; fi
mkdir -p "$W"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} GENDERSCOPE_DATA=${GENDERSCOPE_DATA:-../shared/data}
S=$W/store.sqlite
gs() { python -c "from genderscope.cli.app import main; main()" "$@"; }
t() { /usr/bin/time -f "%e s wall, %M KB maxrss" "$@"; }  # for commands, not functions
echo "commit $(git rev-parse --short HEAD)"; date -u
t python -c "from genderscope.cli.app import main; main()" debias cds --model smollm2 \
  --corpus gap --mode cds --prob 0.5 --seed 42 --limit 400 --epochs 1 --lr 2e-5 \
  --unit passage --batch-size 1 --max-length 128 --save-every 100 --out "$W/smollm2-cds" --overwrite \
  --device "$DEVICE"
time gs run bec-pro --model smollm2 --lang en --out "$W/becpro-before" --store "$S" --no-progress \
  --device "$DEVICE"
time gs run bec-pro --model "$W/smollm2-cds" --lang en --out "$W/becpro-after" --store "$S" \
  --no-progress --device "$DEVICE"
time gs run crows-pairs --model smollm2 --bias-type gender --out "$W/crows-before" --store "$S" \
  --device "$DEVICE"
time gs run crows-pairs --model "$W/smollm2-cds" --bias-type gender --out "$W/crows-after" \
  --store "$S" --device "$DEVICE"
gs compare "$W/becpro-before" "$W/becpro-after" --out "$W/cmp-becpro" --store "$S"
gs compare "$W/crows-before" "$W/crows-after" --out "$W/cmp-crows" --store "$S"
date -u
