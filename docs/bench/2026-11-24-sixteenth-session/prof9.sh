#!/usr/bin/env bash
set -o pipefail
start=$(date +%s)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
cmake --preset gpu-machine -B build/prof -DCMAKE_CUDA_FLAGS=-lineinfo > /dev/null 2>&1 || exit 1
[ -x build/prof/bin/radixsweep-bench ] || cmake --build build/prof --target radixsweep-bench -j16 2>&1 | tail -1
echo "built at $(( $(date +%s) - start )) s"
B=build/prof/bin/radixsweep-bench
S="--section WarpStateStats --section SourceCounters --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --import-source yes"
export RSW_ONESWEEP_TUNING=384x20/2
for h in digit lane; do
RSW_ONESWEEP_HISTOGRAM=$h timeout 150 $NCU $S -k regex:count_digits --launch-skip 2 --launch-count 1 -o /tmp/c-$h $B sort --n 16M --dist uniform --algo onesweep --mode pairs --reps 3 2>&1 | tail -1
$NCU -i /tmp/c-$h.ncu-rep --page details > $OUT/count-$h-details.txt 2>&1
$NCU -i /tmp/c-$h.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/count-$h-sass.csv.gz
grep -E "Duration|DRAM Throughput|Memory Throughput|Eligible Warps|Issued Warp|No Eligible|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|SM Busy" $OUT/count-$h-details.txt | head -20
done
echo "profiled at $(( $(date +%s) - start )) s"

