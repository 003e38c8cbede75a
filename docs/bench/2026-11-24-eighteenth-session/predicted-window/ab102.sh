#!/usr/bin/env bash
# Look-back's first round trip as wide as the block's last walk (+2, at most 16) against H.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 300 scripts/bench-ab --rounds 3 .devrun/H.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab102.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab102.log | grep -v "| cub |"
timeout 150 cmake --build build/gpu-machine --target sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
T=build/gpu-machine/bin/sort_gpu_tests
timeout 150 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -8
