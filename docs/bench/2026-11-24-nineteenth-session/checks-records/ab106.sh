#!/usr/bin/env bash
# Records (new path) at 384x20/22/24 forced; sanitizers on the records kernels.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED|warning" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/gpu-machine/bin/radixsweep-bench
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2; do
  for t in 384x20/2 384x22/2 384x24/2; do
    n=${t/\//-}
    RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=$t $B sort --n 16M,32M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/rec-$n-$round.json > /dev/null 2>&1 || echo "FAIL $t"
    RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=$t $B sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 --json /tmp/m/rec64-$n-$round.json > /dev/null 2>&1 || echo "FAIL $t"
  done
  RSW_ONESWEEP_LAYOUT=arrays RSW_ONESWEEP_TUNING=384x22/2 $B sort --n 16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/arr-384x22-$round.json > /dev/null 2>&1 || echo "FAIL arr"
  echo "round $round at $(( $(date +%s) - start )) s"
done
(cd /tmp/m && tar cf $OUT/m.tar *.json)
python3 - <<'PY' | tee $OUT/m.md
import json,glob,collections,os
rows=collections.defaultdict(list)
for f in sorted(glob.glob('/tmp/m/*.json')):
  label=os.path.basename(f).rsplit('-',1)[0]
  d=json.load(open(f))['rows']
  cub={(r['n'],r['mode']):r['ms_median'] for r in d if r['algo']=='cub'}
  for r in d:
    if r['algo']!='onesweep': continue
    rows[(r['mode'],r['n'],label)].append((r['ms_median'],cub[(r['n'],r['mode'])],r.get('tuning')))
for k,v in sorted(rows.items()):
  m=sorted(a for a,b,t in v)[len(v)//2]
  print(k[2].ljust(16),k[1],k[0].ljust(5),'med %.4f'%m,' '.join('%.4f/%.4f=%.3fx %s'%(a,b,b/a,t) for a,b,t in v))
PY
T=build/gpu-machine/bin/sort_gpu_tests
for tool in memcheck synccheck racecheck; do
  for F in '*Onesweep*Uniform_65521*' 'Layouts/OnesweepPairLayout.EveryPassCountParityAndAlignment/records'; do
    echo "== $tool $F"; RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=384x20/2 timeout 70 compute-sanitizer --tool $tool $T --gtest_filter="$F" > $OUT/san-$tool-${F:0:3}.log 2>&1; echo "rc=$? at $(( $(date +%s) - start )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/san-$tool-${F:0:3}.log | head -4
  done
done
