#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null; cmake --build --preset gpu-machine --target radixsweep-bench -j16 2>&1 | tail -1
B=build/gpu-machine/bin/radixsweep-bench
echo "built at $(( $(date +%s) - start )) s"
for r in 1 2; do
for t in 384x20/2 384x24/2 320x24/2 320x20/2 256x28/2 448x16/2; do
  RSW_ONESWEEP_TUNING=$t $B sort --n 16M --dist uniform --algo onesweep --mode keys,pairs --reps 20 | awk -v t=$t 'NR>1{printf "%s %s %s %s\n", t, $2, $5, $6}'
  RSW_ONESWEEP_TUNING=$t $B sort --n 64M --dist uniform --algo onesweep --mode pairs --reps 8 | awk -v t=$t 'NR>1{printf "%s %s %s %s\n", t, $2, $5, $6}'
done
$B sort --n 16M --dist uniform --algo cub --mode keys,pairs --reps 20 | awk 'NR>1{printf "cub %s %s %s\n", $2, $5, $6}'
done
echo "done at $(( $(date +%s) - start )) s"
