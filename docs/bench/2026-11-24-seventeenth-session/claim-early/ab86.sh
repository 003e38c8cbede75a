#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 260 scripts/bench-ab --rounds 2 .devrun/S3.tar .devrun/P.tar -- sort --n 64K,1M,4M,16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 16M --dist sorted,narrow16 --algo onesweep,cub --mode keys --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab86.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab86.log | grep -v "| cub |" | head -40
timeout 60 cmake --build build/gpu-machine -j16 2>&1 | grep -E "error|FAILED" | head
echo "build at $(( $(date +%s) - start )) s"
timeout 80 ctest --test-dir build/gpu-machine -L gpu -R "Onesweep|onesweep" -j6 --output-on-failure > $OUT/onesweep-tests.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/onesweep-tests.log | head -12
T=build/gpu-machine/bin/sort_gpu_tests
echo "== racecheck"; RSW_ONESWEEP_TUNING=384x20/2 timeout 70 compute-sanitizer --tool racecheck $T --gtest_filter='Kernels/OnesweepHistogram.*:*Onesweep*Uniform_65521*' > $OUT/san-racecheck.log 2>&1; echo "rc=$? at $(( $(date +%s) - start )) s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $OUT/san-racecheck.log | head -4
cmake --preset gpu-machine -B build/probe -DCMAKE_CUDA_FLAGS=-DRSW_PROBE > /dev/null 2>&1 && timeout 90 cmake --build build/probe --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
B=build/probe/bin/radixsweep-bench
for args in "--n 16M --mode pairs" "--n 16M --mode keys"; do
  echo "=== $args"
  RSW_PROBE=1 timeout 30 $B sort $args --dist uniform --algo onesweep --reps 4 > /dev/null 2> $OUT/probe.err
  awk '/^probe/{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' $OUT/probe.err | grep -v "mean wait\|wait begin"
  cp $OUT/probe.err "$OUT/probe-$(echo $args | tr -d ' -').err"
done
echo "done at $(( $(date +%s) - start )) s"
