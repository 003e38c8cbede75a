#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 450 scripts/bench-ab --rounds 2 .devrun/S3.tar .devrun/T0.tar .devrun/T2.tar .devrun/T3.tar -- sort --n 1M,4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab83.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab83.log | grep -v "| cub |" | head -40
