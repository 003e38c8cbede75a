#!/usr/bin/env bash
set -o pipefail
start=$(date +%s)
for V in $VARIANTS; do
rm -rf /tmp/tr-$V && mkdir /tmp/tr-$V && tar -C /tmp/tr-$V -xf .devrun/base.tar && cp .devrun/$V/* /tmp/tr-$V/sort/src/onesweep/
(cd /tmp/tr-$V && cmake --preset gpu-machine -DCMAKE_CUDA_FLAGS=-DRSW_ONESWEEP_TRACE > /dev/null && cmake --build build/gpu-machine -j8 --target radixsweep-bench 2>&1 | grep -E "error|FAILED" | head) &
done
wait
echo "builds at $(( $(date +%s) - start )) s"
for V in $VARIANTS; do
B=/tmp/tr-$V/build/gpu-machine/bin/radixsweep-bench
for c in ${CASES:-"pairs 16M arrays"}; do set -- ${c//_/ }
  f=$OUT/$V-$1-$2-$3.bin
  RSW_ONESWEEP_TUNING=${TUNING:-384x22/2} RSW_ONESWEEP_LAYOUT=$3 RSW_ONESWEEP_TRACE_FILE=$f $B sort --n $2 --dist uniform --algo onesweep --mode $1 --reps 10 --json /tmp/t.json > /tmp/b.log 2>&1 || echo "bench $c failed"
  echo "=== $V $c $(grep -o '"median_ms": [0-9.]*' /tmp/t.json | head -1)"; python3 .devrun/trace.py $f | grep -v "^pass order\|histogram\|^records\|passes kernel\|tile time\|taken -> look\|into 4\|into end"
done
done
echo "done at $(( $(date +%s) - start )) s"
