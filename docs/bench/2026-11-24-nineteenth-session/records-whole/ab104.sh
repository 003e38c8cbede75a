#!/usr/bin/env bash
# Records copied whole (one 8-byte cp.async a record into a record exchange) against H.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
rm -rf /tmp/h && mkdir -p /tmp/h && tar xf .devrun/H.tar -C /tmp/h
(cmake -S /tmp/h --preset gpu-machine > /dev/null 2>&1 && cmake --build /tmp/h/build/gpu-machine --target radixsweep-bench -j8 2>&1 | grep -E "error|FAILED" | head) &
(cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j8 2>&1 | grep -E "error|FAILED|warning" | head) &
wait
echo "built at $(( $(date +%s) - start )) s"
declare -A B=([new]=build/gpu-machine/bin/radixsweep-bench [H]=/tmp/h/build/gpu-machine/bin/radixsweep-bench)
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2 3; do
  for v in new H; do
    RSW_ONESWEEP_LAYOUT=records ${B[$v]} sort --n 16M,20M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/rec-$v-$round.json > /dev/null 2>&1 || echo "FAIL rec $v"
    ${B[$v]} sort --n 16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/arr-$v-$round.json > /dev/null 2>&1 || echo "FAIL arr $v"
    ${B[$v]} sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 --json /tmp/m/def-$v-$round.json > /dev/null 2>&1 || echo "FAIL def $v"
    [ $round -le 2 ] && { ${B[$v]} sort --n 256M --dist uniform --algo onesweep,cub --mode pairs --reps 4 --json /tmp/m/big-$v-$round.json > /dev/null 2>&1 || echo "FAIL big $v"; }
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
  print(k[2].ljust(10),k[1],k[0].ljust(5),'med %.4f'%m,' '.join('%.4f/%.4f=%.3fx'%(a,b,b/a) for a,b,t in v),v[0][2])
PY
T=build/gpu-machine/bin/sort_gpu_tests
RSW_ONESWEEP_LAYOUT=records timeout 150 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -8
