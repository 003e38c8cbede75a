#!/usr/bin/env bash
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 400 scripts/bench-ab --rounds 2 .devrun/S.tar -- sort --n 64K,16M --dist uniform,sorted,narrow16 --algo onesweep,cub --mode keys,pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 > $OUT/ab74.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\| " $OUT/ab74.log | grep -v "| cub |" | head -40
B=build/gpu-machine/bin/radixsweep-bench
for h in digit lane digit lane; do echo "histogram $h"; RSW_ONESWEEP_HISTOGRAM=$h $B sort --n 4M,16M --dist uniform,sorted --algo onesweep --mode keys,pairs --reps 20 | awk 'NR>1{print $3,$4,$5,$6}'; done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
export RSW_ONESWEEP_TUNING=384x20/2
for h in digit lane; do
RSW_ONESWEEP_HISTOGRAM=$h timeout 100 $NCU -f --section SpeedOfLight --section InstructionStats --section ComputeWorkloadAnalysis -k regex:count_digits --launch-skip 2 --launch-count 1 -o /tmp/c-$h $B sort --n 16M --dist uniform --algo onesweep --mode pairs --reps 3 2>&1 | tail -1
$NCU -i /tmp/c-$h.ncu-rep --page details > $OUT/count-$h-details.txt 2>&1
grep -E "Duration|Elapsed Cycles|SM Active|Issue Slots Busy|  Executed Instructions  " $OUT/count-$h-details.txt | head -8
done
echo "done at $(( $(date +%s) - start )) s"
