#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name --format=csv,noheader
start=$(date +%s)
OUT=$OUT/ab timeout 560 scripts/bench-ab --rounds 2 .devrun/w3.tar .devrun/w4.tar .devrun/early-scatter.tar .devrun/early-tail.tar -- sort --n 16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep --mode pairs --reps 10 > $OUT/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| |builds" $OUT/ab.log | head -30
