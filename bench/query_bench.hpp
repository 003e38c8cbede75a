// The region-query benchmark: World::query with batches of small regions against a world of
// uniform unit boxes (every proxy moving, the step taken), beside a BroadPhase frame of the
// world's boxes in the same run.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct QueryBenchOptions {
  std::vector<std::size_t> sizes;     ///< proxies
  std::vector<std::size_t> queries;   ///< regions a batch
  std::vector<std::string> backends;  ///< cpu, cuda
  double pairs_per_box = 5.0;         ///< density of the uniform scene
  std::size_t frames = 10;
  std::size_t warmup = 2;
};

/// Per size, batch and backend: a "query" row (World::query of a batch of regions, from
/// device arrays on the GPU, the hits left there) and a "frame" row (BroadPhase on the
/// proxies' boxes).
void run_query_bench(const QueryBenchOptions& options, Report& report);

}  // namespace rsw::bench
