#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name --format=csv,noheader
start=$(date +%s)
rm -rf /tmp/tr && mkdir /tmp/tr && tar -C /tmp/tr -xf .devrun/base.tar && cp .devrun/trace-files/* /tmp/tr/sort/src/onesweep/
(cd /tmp/tr && cmake --preset gpu-machine -DCMAKE_CUDA_FLAGS=-DRSW_ONESWEEP_TRACE > /dev/null && cmake --build build/gpu-machine -j16 --target radixsweep-bench 2>&1 | grep -E "error|FAILED" | head)
echo "build at $(( $(date +%s) - start )) s"
B=/tmp/tr/build/gpu-machine/bin/radixsweep-bench
for c in "pairs 16M arrays" "keys 16M arrays" "pairs 16M records" "pairs 64M records"; do set -- $c
  f=$OUT/trace-$1-$2-$3.bin
  RSW_ONESWEEP_LAYOUT=$3 RSW_ONESWEEP_TRACE_FILE=$f $B sort --n $2 --dist uniform --algo onesweep --mode $1 --reps 10 --json /tmp/t.json > /dev/null 2>&1 || echo "bench $c failed"
  echo "=== $c"; python3 .devrun/trace.py $f | grep -v "^pass order"
done
echo "done at $(( $(date +%s) - start )) s"
