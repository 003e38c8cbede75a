#!/usr/bin/env bash
# Upper bound: a look-back that costs nothing (NL, wrong results, the bench's check off) against H.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
RSW_BENCH_NO_VERIFY=1 timeout 400 scripts/bench-ab --rounds 2 .devrun/H.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab98.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab98.log | grep -v "| cub |"
