#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine -B build/probe -DCMAKE_CUDA_FLAGS=-DRSW_PROBE > /dev/null 2>&1 || exit 1
cmake --build build/probe --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/probe/bin/radixsweep-bench; [ -x $B ] || B=$(find build/probe -name radixsweep-bench -type f | head -1)
for args in "--n 16M --mode pairs" "--n 16M --mode keys" "--n 64M --mode pairs" "--n 1M --mode pairs"; do
  echo "=== $args"
  RSW_PROBE=1 $B sort $args --dist uniform --algo onesweep --reps 4 > /dev/null 2> $OUT/probe.err
  awk '/^probe/{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' $OUT/probe.err
  cp $OUT/probe.err "$OUT/probe-$(echo $args | tr -d ' -').err"
done
echo "done at $(( $(date +%s) - start )) s"
