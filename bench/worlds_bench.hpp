// The worlds benchmark: many independent copies of a small scene in one frame (the batched
// environments of robot learning). Each world holds the same number of boxes in the same
// region of space; a frame finds the pairs inside every world. Beside BroadPhase with world
// ids, in the same run: BroadPhase without them on the same boxes with each world moved to a
// region of its own (what a user has to do without worlds), and on the GPU an all-pairs kernel
// per world (one block a world, its boxes in shared memory). Every method must find the same
// number of pairs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct WorldsBenchOptions {
  std::vector<std::size_t> worlds = {1024};
  std::vector<std::size_t> boxes_per_world = {64};
  std::vector<std::string> backends;              ///< cpu, cuda
  double pairs_per_box = 4.0;                     ///< partners a box has in its world, about
  std::size_t most_boxes = std::size_t{1} << 24;  ///< larger configurations are skipped
  std::size_t frames = 20;
  std::size_t warmup = 3;
};

/// Per world count, boxes per world and backend: a "worlds" row (BroadPhase with world ids),
/// a "regions" row (BroadPhase, the worlds apart in space) and, on the GPU, a "worlds-records"
/// row (the boxes as one device array of records, the form the Python module passes) and an
/// "all-pairs" row (for worlds of up to 16384 boxes).
void run_worlds_bench(const WorldsBenchOptions& options, Report& report);

}  // namespace rsw::bench
