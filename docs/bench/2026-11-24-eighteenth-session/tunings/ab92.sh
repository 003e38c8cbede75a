#!/usr/bin/env bash
# Layouts x tunings (384x20, 384x22) around the records threshold; one build (the tree, with 384x22).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 || exit 1
cmake --build build/gpu-machine --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/gpu-machine/bin/radixsweep-bench
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2; do
  for t in 384x20/2 384x22/2; do
    for l in arrays records; do
      RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=$t $B sort --n 8M,12M,16M,24M,32M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/$l-${t%/2}-$round.json > /dev/null 2>&1 || echo "FAIL $l $t"
    done
    RSW_ONESWEEP_TUNING=$t $B sort --n 16M,64M --dist uniform --algo onesweep,cub --mode keys --reps 20 --json /tmp/m/keys-${t%/2}-$round.json > /dev/null 2>&1 || echo "FAIL keys $t"
  done
  RSW_ONESWEEP_TUNING=384x24/2 $B sort --n 16M,64M --dist uniform --algo onesweep,cub --mode keys --reps 20 --json /tmp/m/keys-384x24-$round.json > /dev/null 2>&1 || echo "FAIL keys 24"
  RSW_ONESWEEP_LAYOUT=records $B sort --n 16M,64M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/auto-records-$round.json > /dev/null 2>&1 || echo "FAIL auto"
  RSW_ONESWEEP_LAYOUT=records RSW_ONESWEEP_TUNING=384x22/2 $B sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 --json /tmp/m/records-384x22-64M-$round.json > /dev/null 2>&1 || echo "FAIL r22"
done
echo "benched at $(( $(date +%s) - start )) s"
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
  print(k[2].ljust(24),k[1],k[0].ljust(5),' '.join('%.4f/%.4f=%.3fx'%(a,b,b/a) for a,b,t in v),v[0][2])
PY
