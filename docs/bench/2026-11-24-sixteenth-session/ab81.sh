#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 500 scripts/bench-ab --rounds 2 .devrun/S3.tar -- sort --n 1M,4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 16M --dist narrow16 --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab81.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab81.log | grep -v "| cub |" | head -40
build/gpu-machine/bin/radixsweep-bench sort --n 16M --dist uniform --algo onesweep --mode pairs --reps 10 | tail -1
