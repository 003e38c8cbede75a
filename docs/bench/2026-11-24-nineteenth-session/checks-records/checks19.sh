#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null && timeout 260 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED|warning" | head
echo "build at $(( $(date +%s) - start )) s"
timeout 220 ctest --test-dir build/gpu-machine -L gpu -j4 --output-on-failure > $OUT/gpu-tests.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/gpu-tests.log | head -12
T=build/gpu-machine/bin/sort_gpu_tests
F='*Onesweep*Uniform_65521*:Layouts/OnesweepPairLayout.EveryPassCountParityAndAlignment/1'
for tool in memcheck synccheck racecheck; do
  [ $tool = racecheck ] && F='*Onesweep*Uniform_65521*'
  echo "== $tool"; RSW_ONESWEEP_LAYOUT=records timeout 100 compute-sanitizer --tool $tool $T --gtest_filter="$F" > $OUT/san-$tool.log 2>&1; echo "rc=$? at $(( $(date +%s) - start )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/san-$tool.log | head -4
done
