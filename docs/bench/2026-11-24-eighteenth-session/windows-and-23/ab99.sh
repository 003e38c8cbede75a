#!/usr/bin/env bash
# A 384x23 tuning beside 384x22 (new), and key-value look-back windows of 3 (W3) and 4 (W4), against H.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 500 scripts/bench-ab --rounds 3 .devrun/H.tar .devrun/W3.tar .devrun/W4.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab99.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab99.log | grep -v "| cub |"
