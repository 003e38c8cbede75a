// The query benchmark: World::query with batches of small regions and World::raycast with
// batches of rays (short, and across the whole scene; nearest hit or all) against a world of
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
  std::vector<std::size_t> queries;   ///< regions or rays a batch
  std::vector<std::string> kinds;     ///< aabb, ray, ray-all
  std::vector<std::string> backends;  ///< cpu, cuda
  double pairs_per_box = 5.0;         ///< density of the uniform scene
  std::size_t frames = 10;
  std::size_t warmup = 2;
};

/// Per size, batch and backend: a "frame" row (BroadPhase on the proxies' boxes), and per
/// kind: an "aabb" row (World::query of a batch of small regions), "ray" and "ray-all" rows
/// (World::raycast of a batch of rays up to 10 box sizes long, and of one across the scene;
/// the nearest hit, or all). From device arrays on the GPU, the hits left there.
void run_query_bench(const QueryBenchOptions& options, Report& report);

}  // namespace rsw::bench
