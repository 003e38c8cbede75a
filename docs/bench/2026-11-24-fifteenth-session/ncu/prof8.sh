#!/usr/bin/env bash
set -o pipefail
start=$(date +%s)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
cmake --preset gpu-machine -B build/prof -DCMAKE_CUDA_FLAGS=-lineinfo > /dev/null 2>&1 || exit 1
cmake --build build/prof --target radixsweep-bench -j16 2>&1 | tail -1
B=build/prof/bin/radixsweep-bench
S="--section WarpStateStats --section SourceCounters --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats --import-source yes"
export RSW_ONESWEEP_TUNING=384x20/2
for m in pairs keys; do
timeout 120 $NCU $S -k regex:onesweep_passes --launch-skip 2 --launch-count 1 -o /tmp/p-$m $B sort --n 16M --dist uniform --algo onesweep --mode $m --reps 3 2>&1 | tail -1
$NCU -i /tmp/p-$m.ncu-rep --page details > $OUT/prof-$m-details.txt 2>&1
$NCU -i /tmp/p-$m.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/prof-$m-sass.csv.gz
done
echo "profiled at $(( $(date +%s) - start )) s"
grep -E "Duration|DRAM Throughput|Memory Throughput|Eligible Warps|Issued Warp|No Eligible|Achieved Occupancy|Registers Per|Warp Cycles Per Issued" $OUT/prof-pairs-details.txt | head -20
