#!/usr/bin/env bash
# Records (evict_last keys, whole-record copies) against arrays, 12M/16M/20M, calibrated tunings.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/gpu-machine/bin/radixsweep-bench
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2 3; do
  for l in arrays records; do
    RSW_ONESWEEP_LAYOUT=$l $B sort --n 12M,16M,20M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/$l-$round.json > /dev/null 2>&1 || echo "FAIL $l"
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
  print(k[2].ljust(10),k[1],k[0].ljust(5),'med %.4f'%m,' '.join('%.4f/%.4f=%.3fx %s'%(a,b,b/a,t) for a,b,t in v))
PY
