#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 300 scripts/bench-ab --rounds 2 .devrun/S3.tar -- sort --n 1M,4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 16M --dist narrow16,sorted --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab82.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab82.log | head -40
timeout 60 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED" | head
echo "build at $(( $(date +%s) - start )) s"
timeout 100 ctest --test-dir build/gpu-machine -L gpu -R "Onesweep|onesweep" -j6 --output-on-failure > $OUT/onesweep-tests.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/onesweep-tests.log | head -12
T=build/gpu-machine/bin/sort_gpu_tests
F='Layouts/OnesweepPairLayout.*:*Onesweep*Uniform_65521*'
for tool in memcheck racecheck synccheck; do
  echo "== $tool"; RSW_ONESWEEP_TUNING=384x20/2 timeout 80 compute-sanitizer --tool $tool $T --gtest_filter="$F" > $OUT/san-$tool.log 2>&1; echo "rc=$? at $(( $(date +%s) - start )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/san-$tool.log | head -4
done
