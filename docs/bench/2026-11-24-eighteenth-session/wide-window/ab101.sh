#!/usr/bin/env bash
# Key-value look-back: two predecessors on the first round trip, four after (new) against H; probes of round trips.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 300 scripts/bench-ab --rounds 3 .devrun/H.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab101.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab101.log | grep -v "| cub |"
cmake --preset gpu-machine -B build/probeA "-DCMAKE_CUDA_FLAGS=-DRSW_PROBE2 -DRSW_WIDE_WINDOW=kWindow" -DCMAKE_CXX_FLAGS=-DRSW_PROBE2 > /dev/null 2>&1 &&
cmake --preset gpu-machine -B build/probeB -DCMAKE_CUDA_FLAGS=-DRSW_PROBE2 -DCMAKE_CXX_FLAGS=-DRSW_PROBE2 > /dev/null 2>&1 || exit 1
(cmake --build build/probeA --target radixsweep-bench -j8 2>&1 | grep -E "error|FAILED" | head -3) &
(cmake --build build/probeB --target radixsweep-bench -j8 2>&1 | grep -E "error|FAILED" | head -3) &
wait
echo "probes built at $(( $(date +%s) - start )) s"
for b in probeA probeB; do
  for args in "--n 16M --mode pairs" "--n 16M --mode keys"; do
    echo "=== $b $args"
    RSW_PROBE2=1 build/$b/bin/radixsweep-bench sort $args --dist uniform --algo onesweep --reps 3 2>&1 >/dev/null | grep probe2 | tail -1
  done
done
echo "done at $(( $(date +%s) - start )) s"
