#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null && timeout 200 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED|warning" | head
echo "build at $(( $(date +%s) - start )) s"
timeout 230 ctest --test-dir build/gpu-machine -L gpu -j4 --output-on-failure > $OUT/gpu-tests.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/gpu-tests.log | head -12
T=build/gpu-machine/bin/sort_gpu_tests
: > $OUT/sanitizers.log
for l in arrays records; do
  for tool in memcheck synccheck racecheck; do
    F="*Onesweep*Uniform_65521*:Layouts/OnesweepPairLayout.EveryPassCountParityAndAlignment/$l"
    [ $tool = racecheck ] && F='*Onesweep*Uniform_65521*'
    echo "== $l $tool 384x21/2" >> $OUT/sanitizers.log
    RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=384x21/2 timeout 60 compute-sanitizer --tool $tool $T --gtest_filter="$F" > /tmp/san.log 2>&1; echo "rc=$?" >> $OUT/sanitizers.log
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" /tmp/san.log >> $OUT/sanitizers.log
  done
done
cat $OUT/sanitizers.log; echo "sanitizers at $(( $(date +%s) - start )) s"
OUT=$OUT/final timeout 230 scripts/bench-ab --rounds 2 .devrun/S5.tar -- sort --n 64K,16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 4M,12M,20M,24M,32M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 -- sort --n 256M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 4 > $OUT/final14.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/final14.log | grep -v "| cub |" | head -40
