#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null && timeout 200 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED|warning" | head
echo "build at $(( $(date +%s) - start )) s"
OUT=$OUT/ab timeout 330 scripts/bench-ab --rounds 2 .devrun/head2.tar -- sort --n 4M,8M,12M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 16M --dist uniform,narrow16,sorted --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 20M,32M,64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab.log | grep -v "| cub |" | head -30
timeout 240 ctest --test-dir build/gpu-machine -L gpu -j4 --output-on-failure > $OUT/gpu-tests.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/gpu-tests.log | head -12
T=build/gpu-machine/bin/sort_gpu_tests
: > $OUT/sanitizers.log
for tuning in 384x22/2 384x21/2; do
for l in arrays; do
  for tool in memcheck synccheck racecheck; do
    F="*Onesweep*Uniform_65521*:Layouts/OnesweepPairLayout.EveryPassCountParityAndAlignment/$l"
    [ $tool = racecheck ] && F='*Onesweep*Uniform_65521*'
    echo "== $tuning $l $tool" >> $OUT/sanitizers.log
    RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=$tuning timeout 40 compute-sanitizer --tool $tool $T --gtest_filter="$F" > /tmp/san.log 2>&1; echo "rc=$?" >> $OUT/sanitizers.log
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" /tmp/san.log >> $OUT/sanitizers.log
  done
done
done
cat $OUT/sanitizers.log | tr '\n' ' '; echo; echo "sanitizers at $(( $(date +%s) - start )) s"
