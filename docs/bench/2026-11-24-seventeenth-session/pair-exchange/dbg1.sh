#!/usr/bin/env bash
start=$(date +%s)
cmake --preset gpu-machine -B build/dbg -DCMAKE_CUDA_FLAGS=-lineinfo > /dev/null 2>&1 || exit 1
timeout 200 cmake --build build/dbg --target sort_gpu_tests -j16 2>&1 | grep -E "error|FAILED" | head
echo "built at $(( $(date +%s) - start )) s"
T=$(find build/dbg -name sort_gpu_tests -type f | head -1)
timeout 60 compute-sanitizer --tool memcheck --show-backtrace device $T --gtest_filter='OnesweepOptions.BitRangesAndDescendingOrder' > $OUT/dbg.log 2>&1
echo "rc=$? at $(( $(date +%s) - start )) s"
grep -E "Invalid|Illegal|illegal|at .*onesweep|ERROR SUMMARY|by thread|Address" $OUT/dbg.log | head -30
