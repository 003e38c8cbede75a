#!/usr/bin/env bash
# Which tuning's kernel hits the illegal instruction; perf of 384x22/384x20 arrays forced against R.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
T=build/gpu-machine/bin/sort_gpu_tests
for t in 256x20/3 256x20/2 384x16/2 384x20/2 384x22/2 384x24/2; do
  for l in arrays records; do
    RSW_ONESWEEP_LAYOUT=$l RSW_ONESWEEP_TUNING=$t timeout 30 $T --gtest_filter='*Onesweep*Uniform_65521*:OnesweepTiles.SizesAroundTileMultiplesAndTheTableSize' > /tmp/t.log 2>&1; echo "$t $l rc=$? $(grep -c '^\[       OK' /tmp/t.log) ok $(grep -m1 -o 'illegal[a-z ]*\|misaligned[a-z ]*' /tmp/t.log)"
  done
done
RSW_ONESWEEP_LAYOUT=arrays RSW_ONESWEEP_TUNING=384x24/2 timeout 60 compute-sanitizer --tool memcheck $T --gtest_filter='*Onesweep*Uniform_65521*' > $OUT/memcheck-24.log 2>&1; grep -m1 -A14 "=========  *Invalid\|========= .*rror\|Illegal" $OUT/memcheck-24.log | head -24
for t in 384x22/2 384x20/2; do
  mkdir -p $OUT/${t%/2}
  RSW_ONESWEEP_LAYOUT=arrays RSW_ONESWEEP_TUNING=$t OUT=$OUT/${t%/2} timeout 200 scripts/bench-ab --rounds 2 .devrun/R.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 > $OUT/ab109-${t%/2}.log 2>&1
  echo "ab $t rc=$? at $(( $(date +%s) - start )) s"
  grep -E "^\| " $OUT/ab109-${t%/2}.log | grep -v "| cub |"
done
