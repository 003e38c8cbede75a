#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 500 scripts/bench-ab --rounds 2 .devrun/D.tar -- sort --n 64K,16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 1M,4M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 30 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 -- sort --n 256M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 4 > $OUT/final10.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/final10.log | grep -v "| cub |" | head -40
for b in new D; do
  B=/tmp/rsw-bench-ab/src/$b/build/gpu-machine/bin/radixsweep-bench; [ $b = new ] && B=build/gpu-machine/bin/radixsweep-bench
  timeout 60 $B sort --n 16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 10 --cold-l2 --json $OUT/cold-l2-$b.json > /dev/null 2>&1
  python3 -c "
import json; d=json.load(open('$OUT/cold-l2-$b.json'))
print('cold $b', ' '.join('%s/%s/%s:%.4f'%(r['algo'],r['dist'],r['mode'],r['ms_median']) for r in d['rows']))"
done
echo "done at $(( $(date +%s) - start )) s"
