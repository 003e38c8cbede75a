#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 540 scripts/bench-ab --rounds 2 .devrun/S4.tar -- sort --n 64K,16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 1M,4M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 30 -- sort --n 20M,24M,32M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 -- sort --n 256M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 4 > $OUT/final12.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/final12.log | grep -v "| cub |" | head -40
echo "done at $(( $(date +%s) - start )) s"
