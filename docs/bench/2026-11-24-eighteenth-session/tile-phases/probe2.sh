#!/usr/bin/env bash
# Per-tile phases from thread 0 (RSW_PROBE2 build): tile time, load..ranked, digit 0's walk, ranked..barrier.
set -o pipefail
start=$(date +%s)
cmake --preset gpu-machine -B build/probe2 -DCMAKE_CUDA_FLAGS=-DRSW_PROBE2 -DCMAKE_CXX_FLAGS=-DRSW_PROBE2 > /dev/null 2>&1 || exit 1
cmake --build build/probe2 --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/probe2/bin/radixsweep-bench
for args in "--n 16M --mode pairs" "--n 16M --mode keys" "--n 64M --mode pairs" "--n 4M --mode pairs"; do
  echo "=== $args"
  RSW_PROBE2=1 $B sort $args --dist uniform --algo onesweep --reps 3 2>&1 >/dev/null | grep probe2 | tail -2
done
echo "done at $(( $(date +%s) - start )) s"
