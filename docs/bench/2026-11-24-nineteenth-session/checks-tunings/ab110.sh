#!/usr/bin/env bash
# HEAD (record exchange for records): every tuning x layout on the tile tests, memcheck of 384x24 records.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
T=build/gpu-machine/bin/sort_gpu_tests
for t in 256x20/3 256x20/2 384x16/2 384x20/2 384x22/2 384x24/2; do
  for l in arrays records; do
    RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=$t timeout 60 $T --gtest_filter='*Onesweep*Uniform_65521*:OnesweepTiles.*:*OnesweepPairLayout*' > /tmp/t.log 2>&1; echo "$t $l rc=$? $(grep -c '^\[       OK' /tmp/t.log) ok $(grep -m1 -o 'illegal[a-z ]*\|misaligned[a-z ]*' /tmp/t.log)"
  done
done
for t in 384x24/2 384x22/2; do
RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=$t timeout 60 compute-sanitizer --tool memcheck $T --gtest_filter='*Onesweep*Uniform_65521*' > $OUT/memcheck-${t%/2}.log 2>&1; echo "memcheck $t rc=$?"; grep -E "ERROR SUMMARY" $OUT/memcheck-${t%/2}.log
done
echo "done at $(( $(date +%s) - start )) s"
