#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 470 scripts/bench-ab --rounds 2 .devrun/S3.tar -- sort --n 64K,16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 1M,4M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 30 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 -- sort --n 256M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 4 > $OUT/final11.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/final11.log | grep -v "| cub |" | head -40
echo "done at $(( $(date +%s) - start )) s"
T=build/gpu-machine/bin/sort_gpu_tests
[ -x $T ] || timeout 60 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED" | head
echo "== racecheck"; RSW_ONESWEEP_TUNING=384x20/2 timeout 60 compute-sanitizer --tool racecheck $T --gtest_filter='Kernels/OnesweepHistogram.*:*Onesweep*Uniform_65521*' > $OUT/san-racecheck.log 2>&1; echo "rc=$? at $(( $(date +%s) - start )) s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $OUT/san-racecheck.log | head -4
