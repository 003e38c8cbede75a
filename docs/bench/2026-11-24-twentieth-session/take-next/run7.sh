#!/usr/bin/env bash
set -o pipefail
start=$(date +%s)
OUT=$OUT/ab timeout 560 scripts/bench-ab --rounds 2 $BASES -- sort --n 16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| |builds" $OUT/ab.log | grep -v "| cub |" | head -30
