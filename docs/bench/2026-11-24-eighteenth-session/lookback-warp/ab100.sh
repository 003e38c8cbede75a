#!/usr/bin/env bash
# A look-back warp (one of twelve looks back for all digits while eleven rank) against H.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 330 scripts/bench-ab --rounds 2 .devrun/H.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab100.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab100.log | grep -v "| cub |"; grep -iE "error|wrong|fail" $OUT/ab100.log | head -5
timeout 150 cmake --build build/gpu-machine --target sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
T=build/gpu-machine/bin/sort_gpu_tests
timeout 150 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -8
