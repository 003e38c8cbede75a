#!/usr/bin/env bash
# 384x21/2 (7.88 waves of 264 blocks at 2^24) against 384x20 and 384x22, arrays and records, forced.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/gpu-machine/bin/radixsweep-bench
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2 3; do
  for t in 384x20/2 384x21/2 384x22/2; do
    n=${t%/2}
    for l in arrays records; do
      RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=$t $B sort --n 16M,20M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/$l-$n-$round.json > /dev/null 2>&1 || echo "FAIL $l $t"
    done
    RSW_ONESWEEP_TUNING=$t $B sort --n 16M --dist uniform --algo onesweep,cub --mode keys --reps 20 --json /tmp/m/keys-$n-$round.json > /dev/null 2>&1 || echo "FAIL keys $t"
  done
  for t in 384x20/2 384x21/2; do
    RSW_ONESWEEP_TUNING=$t $B sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 --json /tmp/m/rec64-${t%/2}-$round.json > /dev/null 2>&1 || echo "FAIL 64 $t"
  done
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
  print(k[2].ljust(14),k[1],k[0].ljust(5),'med %.4f'%m,' '.join('%.4f/%.4f=%.3fx'%(a,b,b/a) for a,b,t in v))
PY
