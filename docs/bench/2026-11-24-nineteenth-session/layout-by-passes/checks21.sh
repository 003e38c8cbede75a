#!/usr/bin/env bash
# Records only when three passes or more run: tests, memcheck, and narrow pairs against S5.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED|warning" | head
echo "built at $(( $(date +%s) - start )) s"
T=build/gpu-machine/bin/sort_gpu_tests
timeout 120 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -8
RSW_ONESWEEP_LAYOUT=records timeout 120 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests-records.log 2>&1; echo "tests (records) rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests-records.log | head -8
for tool in memcheck racecheck; do
RSW_ONESWEEP_TUNING=384x20/2 timeout 90 compute-sanitizer --tool $tool $T --gtest_filter='Layouts/OnesweepPairLayout.EveryPassCountParityAndAlignment/records' > $OUT/$tool.log 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED" $OUT/$tool.log
done
OUT=$OUT/ab timeout 200 scripts/bench-ab --rounds 2 .devrun/S5.tar -- sort --n 16M,64M --dist narrow16,narrow8,uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab115.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab115.log | grep -v "| cub |"
