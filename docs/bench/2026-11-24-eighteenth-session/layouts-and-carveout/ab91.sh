#!/usr/bin/env bash
# Carveout and layout matrix at 2^24 pairs, one build (the working tree, env-gated carveout).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 || exit 1
cmake --build build/gpu-machine --target radixsweep-bench -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
B=build/gpu-machine/bin/radixsweep-bench
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for c in default resident; do
  for l in arrays records; do
    if [ $c = default ]; then unset RSW_ONESWEEP_CARVEOUT; else export RSW_ONESWEEP_CARVEOUT=$c; fi
    RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=384x20/2 timeout 60 $NCU --section LaunchStats --section Occupancy -k regex:onesweep_passes --launch-skip 2 --launch-count 1 $B sort --n 16M --dist uniform --algo onesweep --mode pairs --reps 3 > /tmp/ncu-$c-$l.txt 2>&1
    echo "$c $l: $(grep -E 'Shared Memory Configuration Size|Driver Shared Memory Per Block|Dynamic Shared Memory Per Block|Achieved Occupancy|Block Limit Shared' /tmp/ncu-$c-$l.txt | tr -s ' ' | tr '\n' ';')"
  done
done
unset RSW_ONESWEEP_CARVEOUT
echo "ncu at $(( $(date +%s) - start )) s"
mkdir -p /tmp/m; rm -f /tmp/m/*
for round in 1 2; do
  for t in 384x16/2 384x20/2 384x24/2; do
    for l in arrays records; do
      for c in default resident; do
        name="$l-${t%/2}-$c"
        if [ $c = default ]; then unset RSW_ONESWEEP_CARVEOUT; else export RSW_ONESWEEP_CARVEOUT=$c; fi
        RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=$t $B sort --n 16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 --json /tmp/m/$name-$round.json > /dev/null 2>&1 || echo "FAIL $name"
      done
    done
  done
  for c in default resident; do
    if [ $c = default ]; then unset RSW_ONESWEEP_CARVEOUT; else export RSW_ONESWEEP_CARVEOUT=$c; fi
    $B sort --n 16M,64M --dist uniform --algo onesweep,cub --mode keys,pairs --reps 10 --json /tmp/m/auto-$c-$round.json > /dev/null 2>&1 || echo "FAIL auto $c"
  done
done
unset RSW_ONESWEEP_CARVEOUT
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
    rows[(label,r['n'],r['mode'])].append((r['ms_median'],cub[(r['n'],r['mode'])],r.get('tuning')))
for k,v in sorted(rows.items()):
  print(k[0].ljust(24),k[1],k[2].ljust(5),' '.join('%.4f/%.4f=%.3fx'%(a,b,b/a) for a,b,t in v),v[0][2])
PY
