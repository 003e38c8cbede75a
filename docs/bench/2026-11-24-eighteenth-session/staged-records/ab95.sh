#!/usr/bin/env bash
# Records' values staged in shared memory as their keys load (new) against 49b7da8 (H).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p $OUT/r20 $OUT/r16 $OUT/auto
RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=384x20/2 OUT=$OUT/r20 timeout 300 scripts/bench-ab --rounds 3 .devrun/H.tar -- sort --n 16M,24M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab95.log 2>&1
echo "r20 rc=$? at $(( $(date +%s) - start )) s"; grep -E "^\| " $OUT/ab95.log | grep -v "| cub |"
RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=384x16/2 OUT=$OUT/r16 timeout 200 scripts/bench-ab --rounds 2 .devrun/H.tar -- sort --n 16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 > $OUT/ab95b.log 2>&1
echo "r16 rc=$? at $(( $(date +%s) - start )) s"; grep -E "^\| " $OUT/ab95b.log | grep -v "| cub |"
OUT=$OUT/auto timeout 200 scripts/bench-ab --rounds 2 .devrun/H.tar -- sort --n 16M,24M,64M --dist uniform --algo onesweep,cub --mode pairs --reps 20 > $OUT/ab95c.log 2>&1
echo "auto rc=$? at $(( $(date +%s) - start )) s"; grep -E "^\| " $OUT/ab95c.log | grep -v "| cub |"
