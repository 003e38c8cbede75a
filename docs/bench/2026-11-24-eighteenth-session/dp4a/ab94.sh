#!/usr/bin/env bash
# dp4a histogram counters (D) and the 384x22/23 tunings (new) against S4; Onesweep tests.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 420 scripts/bench-ab --rounds 2 .devrun/S4.tar .devrun/D.tar -- sort --n 64K,16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 1M,4M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 30 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab94.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab94.log | grep -v "| cub |" | head -40
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for b in ./build/gpu-machine /tmp/rsw-bench-ab/src/D/build/gpu-machine /tmp/rsw-bench-ab/src/S4/build/gpu-machine; do
  for m in pairs keys; do
    RSW_ONESWEEP_TUNING=384x20/2 timeout 60 $NCU --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:count_digits --launch-skip 3 --launch-count 3 $b/bin/radixsweep-bench sort --n 16M --dist uniform --algo onesweep --mode $m --reps 5 > /tmp/ncu.txt 2>&1
    echo "$b $m: $(grep -E 'gpu__time_duration.sum|smsp__inst_executed.sum' /tmp/ncu.txt | awk '{print $NF}' | tr '\n' ' ')"
  done
done
echo "ncu at $(( $(date +%s) - start )) s"
timeout 150 cmake --build build/gpu-machine --target sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
T=build/gpu-machine/bin/sort_gpu_tests
timeout 120 $T --gtest_filter='*Onesweep*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -5
timeout 60 compute-sanitizer --tool memcheck $T --gtest_filter='Kernels/OnesweepHistogram.*' > $OUT/san-memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/san-memcheck.log | head -3
echo "done at $(( $(date +%s) - start )) s"
