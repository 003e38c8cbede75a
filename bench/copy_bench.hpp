// The copy benchmark: memory bandwidth on the host and on the device. It is the floor the sort
// and sweep figures are compared against (bytes that must move / measured bandwidth).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct CopyBenchOptions {
  std::vector<std::size_t> sizes;  ///< bytes per copy
  std::vector<std::string> algos;  ///< "host" (std::memcpy, one thread), "cuda" (cudaMemcpyAsync)
  std::size_t repetitions = 20;    ///< timed runs per row
  std::size_t warmup = 3;          ///< untimed runs before them
};

/// Adds one row per size and algorithm, with metric gb_per_s (bytes read + written per second).
void run_copy_bench(const CopyBenchOptions& options, Report& report);

}  // namespace rsw::bench
