#!/usr/bin/env bash
# Calibration picks (sequential H vs interleaved new), SASS of the arrays kernels, records again.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
if [ ! -x /tmp/h/build/gpu-machine/bin/radixsweep-bench ]; then
  rm -rf /tmp/h && mkdir -p /tmp/h && tar xf .devrun/H.tar -C /tmp/h
  (cmake -S /tmp/h --preset gpu-machine > /dev/null 2>&1 && cmake --build /tmp/h/build/gpu-machine --target radixsweep-bench -j8 2>&1 | grep -E "error|FAILED" | head) &
fi
(cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j8 2>&1 | grep -E "error|FAILED|warning" | head) &
wait
echo "built at $(( $(date +%s) - start )) s"
declare -A B=([new]=build/gpu-machine/bin/radixsweep-bench [H]=/tmp/h/build/gpu-machine/bin/radixsweep-bench)
for v in new H; do
  for k in ILi384ELi22ELi2ELb1ELb0E ILi384ELi20ELi2ELb1ELb0E ILi384ELi24ELi2ELb0ELb0E; do
    cuobjdump -sass ${B[$v]} | awk -v k=$k '/Function : /{p=index($0,k)>0} p' | sed -E 's@/\*[0-9a-f]{4}\*/@@; s@/\* 0x[0-9a-f]+ \*/@@' | grep -v '^\s*$' > /tmp/sass-$v-$k.txt
  done
done
for k in ILi384ELi22ELi2ELb1ELb0E ILi384ELi20ELi2ELb1ELb0E ILi384ELi24ELi2ELb0ELb0E; do
  echo "sass $k: new $(wc -l < /tmp/sass-new-$k.txt) H $(wc -l < /tmp/sass-H-$k.txt) diff $(diff /tmp/sass-new-$k.txt /tmp/sass-H-$k.txt | wc -l)"
done
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2 3 4 5 6; do
  for v in new H; do
    ${B[$v]} sort --n 16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/arr-$v-$round.json > /dev/null 2>&1 || echo "FAIL arr $v"
    [ $round -le 3 ] && { RSW_ONESWEEP_LAYOUT=records ${B[$v]} sort --n 16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/rec-$v-$round.json > /dev/null 2>&1 || echo "FAIL rec $v"; }
    [ $round -le 3 ] && { ${B[$v]} sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 --json /tmp/m/def-$v-$round.json > /dev/null 2>&1 || echo "FAIL def $v"; }
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
