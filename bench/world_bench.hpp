// The World benchmark: steps of a world whose moving proxies all move a little each step (from
// device arrays on the GPU), static share by static share, beside a BroadPhase frame of the
// same boxes (pairs unsorted, and sorted by (a, b)) in the same run.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct WorldBenchOptions {
  std::vector<std::size_t> sizes;
  std::vector<double> static_shares = {0.9, 0.0};  ///< of the proxies, static
  std::vector<std::string> backends;               ///< cpu, cuda
  double pairs_per_box = 5.0;                      ///< density of the uniform scene
  float motion = 0.01f;  ///< per-step jitter of the moving proxies, in box sizes
  std::size_t frames = 20;
  std::size_t warmup = 3;
  bool stage_times = false;  ///< WorldOptions::stage_times (and the frames')
};

/// Per size, static share and backend: a "world" row (move + step + events), a "frame" row
/// (BroadPhase update + pairs) and a "frame-sorted" row (the same with sorted_pairs).
void run_world_bench(const WorldBenchOptions& options, Report& report);

}  // namespace rsw::bench
