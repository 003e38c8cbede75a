#!/usr/bin/env bash
set -o pipefail
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1; cmake --build --preset gpu-machine --target radixsweep-bench -j16 2>&1 | tail -1
B=build/gpu-machine/bin/radixsweep-bench
for r in 1 2; do for h in digit lane; do echo "histogram $h"; RSW_ONESWEEP_HISTOGRAM=$h $B sort --n 256K,1M,2M,4M,8M --dist uniform,sorted --algo onesweep --mode keys,pairs --reps 20 | awk 'NR>1{print $3,$4,$5,$6}'; done; done > $OUT/threshold.txt
python3 - <<'P' $OUT/threshold.txt
import sys,collections
d=collections.defaultdict(list); h=None
for l in open(sys.argv[1]):
    if l.startswith('histogram'): h=l.split()[1]; continue
    p=l.split()
    if len(p)==4 and p[0].isdigit(): d[(int(p[0]),p[1],p[2],h)].append(float(p[3]))
keys=sorted(set(k[:3] for k in d))
for k in keys: print(k, 'digit', d[k+('digit',)], 'lane', d[k+('lane',)])
P
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS"
if [ -n "$NSYS" ]; then
RSW_ONESWEEP_TUNING=384x20/2 RSW_ONESWEEP_HISTOGRAM=lane timeout 120 $NSYS profile -o /tmp/tl -f true -t cuda $B sort --n 16M --dist uniform --algo onesweep --mode pairs --reps 5 > /dev/null 2>&1
$NSYS stats -q -r cuda_gpu_trace -f csv -o /tmp/tl /tmp/tl.nsys-rep > /dev/null 2>&1
ls /tmp/tl*
python3 - <<'P'
import csv,glob
f=glob.glob('/tmp/tl*cuda_gpu_trace*.csv')[0]
rows=list(csv.DictReader(open(f)))
print(list(rows[0].keys()))
for r in rows[-12:]:
    print(r.get('Start (ns)'), r.get('Duration (ns)'), (r.get('Name') or '')[:70])
P
fi
echo "done at $(( $(date +%s) - start )) s"
