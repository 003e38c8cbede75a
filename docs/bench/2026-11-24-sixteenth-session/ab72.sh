#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 540 scripts/bench-ab --rounds 2 .devrun/S.tar .devrun/Vstwb.tar .devrun/Vst.tar .devrun/Vld.tar -- sort --n 16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab72.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab72.log | grep -v "| cub |" | head -40
