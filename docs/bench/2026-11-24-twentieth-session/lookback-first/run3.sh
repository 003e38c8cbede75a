#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name --format=csv,noheader
start=$(date +%s)
V=${V:-traceA}
rm -rf /tmp/tr && mkdir /tmp/tr && tar -C /tmp/tr -xf .devrun/base.tar && cp .devrun/$V/* /tmp/tr/sort/src/onesweep/
(cd /tmp/tr && cmake --preset gpu-machine -DCMAKE_CUDA_FLAGS=-DRSW_ONESWEEP_TRACE > /dev/null && cmake --build build/gpu-machine -j16 --target radixsweep-bench 2>&1 | grep -E "error|FAILED" | head)
echo "trace build at $(( $(date +%s) - start )) s"
B=/tmp/tr/build/gpu-machine/bin/radixsweep-bench
for c in "pairs 16M arrays" "keys 16M arrays" "pairs 64M records"; do set -- $c
  f=$OUT/trace-$1-$2-$3.bin
  RSW_ONESWEEP_LAYOUT=$3 RSW_ONESWEEP_TRACE_FILE=$f $B sort --n $2 --dist uniform --algo onesweep --mode $1 --reps 10 --json /tmp/t.json > /dev/null 2>&1 || echo "bench $c failed"
  echo "=== $c"; python3 .devrun/trace.py $f | grep -v "^pass order" | grep -v "histogram\|records\|kernel"
done
echo "traces at $(( $(date +%s) - start )) s"
OUT=$OUT/ab timeout 400 scripts/bench-ab --rounds 2 .devrun/base.tar -- sort --n 16M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab.log | head -30
