#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 330 scripts/bench-ab --rounds 3 .devrun/S4.tar .devrun/V1.tar -- sort --n 1M,4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 16M --dist uniform,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab89.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab89.log | grep -v "| cub |" | head -40
