#!/usr/bin/env bash
# Records' key loads with L1::evict_last (new) against R2 (8ee800d), records forced.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
RSW_ONESWEEP_LAYOUT=records timeout 420 scripts/bench-ab --rounds 3 .devrun/R2.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab111.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab111.log | grep -v "| cub |"
