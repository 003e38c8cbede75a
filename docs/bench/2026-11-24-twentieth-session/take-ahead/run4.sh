#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null && timeout 200 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED" | head
echo "build at $(( $(date +%s) - start )) s"
T=build/gpu-machine/bin/sort_gpu_tests
timeout 200 $T --gtest_filter="${FILTER:-*Onesweep*}" > $OUT/tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"
grep -E "PASSED|FAILED" $OUT/tests.log | head -8
OUT=$OUT/ab timeout 400 scripts/bench-ab --rounds 2 .devrun/base.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab.log | grep -v "| cub |" | head -30
