#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 300 scripts/bench-ab --rounds 3 .devrun/S4.tar -- sort --n 1M,4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab88.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab88.log | grep -v "| cub |" | head -40
timeout 60 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED" | head
echo "build at $(( $(date +%s) - start )) s"
timeout 80 ctest --test-dir build/gpu-machine -L gpu -R "Onesweep|onesweep" -j6 --output-on-failure > $OUT/onesweep-tests.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/onesweep-tests.log | head -12
T=build/gpu-machine/bin/sort_gpu_tests
echo "== memcheck"; RSW_ONESWEEP_TUNING=384x20/2 timeout 60 compute-sanitizer --tool memcheck $T --gtest_filter='Layouts/OnesweepPairLayout.*:*Onesweep*Uniform_65521*' > $OUT/san-memcheck.log 2>&1; echo "rc=$? at $(( $(date +%s) - start )) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/san-memcheck.log | head -4
