// The sort benchmark: our sorts (cpu, fourway, onesweep) beside std::sort, CUB and Thrust, in one
// process, on the same fresh random inputs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct SortBenchOptions {
  std::vector<std::size_t> sizes;
  std::vector<std::string> distributions;  ///< names of rsw::test::KeyDistribution, any case
  std::vector<std::string> algos;          ///< cpu, std, fourway, onesweep, cub, thrust
  std::vector<std::string> modes;          ///< keys, pairs
  std::size_t repetitions = 20;            ///< timed runs of GPU algorithms
  std::size_t host_repetitions = 5;        ///< timed runs of host algorithms
  std::size_t warmup = 2;                  ///< untimed runs before them
  int cpu_threads = 0;                     ///< for the cpu algorithm; 0 = all hardware threads
  /// GPU rows: before each timed sort, write twice the L2's size elsewhere, so that the sort
  /// finds none of its input in L2. By default the input is as its copy into place left it:
  /// the copy's last part still in L2, as after a kernel that made the keys.
  bool cold_l2 = false;
};

/// Adds a row per size, distribution, mode and algorithm, with metrics gkeys_per_s,
/// temp_bytes, scratch_bytes, passes_run, passes_skipped (our sorts) and the ratio to CUB (GPU
/// rows) or to std::sort (CPU rows) measured in the same run.
void run_sort_bench(const SortBenchOptions& options, Report& report);

}  // namespace rsw::bench
