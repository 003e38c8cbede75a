#!/usr/bin/env bash
# Arrays' values by LDG two (new) / four (V4) items ahead into {key, value} records in shared memory, against R (8ee800d).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 420 scripts/bench-ab --rounds 2 .devrun/R.tar .devrun/V4.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab107.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab107.log | grep -v "| cub |"
timeout 120 cmake --build build/gpu-machine --target sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
T=build/gpu-machine/bin/sort_gpu_tests
timeout 100 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -8
