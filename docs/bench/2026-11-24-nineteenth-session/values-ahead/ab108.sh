#!/usr/bin/env bash
# Arrays' values two ahead, stored by st.shared.v2 (new), against R; memcheck of V4plain (C++ uint2 store).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
rm -rf /tmp/v4 && mkdir -p /tmp/v4 && tar xf .devrun/V4plain.tar -C /tmp/v4
(cmake -S /tmp/v4 --preset gpu-machine > /dev/null 2>&1 && cmake --build /tmp/v4/build/gpu-machine --target sort_gpu_tests -j8 2>&1 | grep -E "error|FAILED" | head) &
(cmake --preset gpu-machine > /dev/null 2>&1 && cmake --build build/gpu-machine --target radixsweep-bench sort_gpu_tests -j8 2>&1 | grep -E "error|FAILED" | head) &
wait
echo "built at $(( $(date +%s) - start )) s"
RSW_ONESWEEP_TUNING=384x20/2 timeout 60 compute-sanitizer --tool memcheck /tmp/v4/build/gpu-machine/bin/sort_gpu_tests --gtest_filter='*Onesweep*Uniform_65521*' > $OUT/v4-memcheck.log 2>&1
echo "v4 memcheck rc=$?"; grep -m1 -A12 "=========  *Invalid\|========= .*rror" $OUT/v4-memcheck.log | head -30
T=build/gpu-machine/bin/sort_gpu_tests
timeout 100 $T --gtest_filter='*Onesweep*:-*HundredRuns*' > $OUT/onesweep-tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - start )) s"; grep -E "PASSED|FAILED" $OUT/onesweep-tests.log | head -8
if grep -q "PASSED  \] 242" $OUT/onesweep-tests.log; then
  timeout 300 scripts/bench-ab --rounds 2 .devrun/R.tar -- sort --n 4M,16M --dist uniform --algo onesweep,cub --mode pairs --reps 20 -- sort --n 64M --dist uniform --algo onesweep,cub --mode pairs --reps 10 > $OUT/ab108.log 2>&1
  echo "ab rc=$? at $(( $(date +%s) - start )) s"
  grep -E "^\| " $OUT/ab108.log | grep -v "| cub |"
fi
