// The soak benchmark: a broad phase run for many frames over moving boxes, every Nth frame
// with all boxes drawn into a small region (the pair buffer must grow). Each clustered frame's
// pairs are compared with a reference backend, and the process's memory at one frame is
// compared with its memory at the last: what stays flat over a long run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench_report.hpp"

namespace rsw::bench {

struct SoakBenchOptions {
  std::size_t boxes = std::size_t{1} << 20;
  std::string backend = "cuda";         ///< cuda (reference: the CPU backend), cpu (brute force)
  std::size_t frames = 10'000;          ///< frames run
  std::size_t cluster_every = 100;      ///< every Nth frame is clustered and checked
  double pairs_per_box = 5.0;           ///< density of the ordinary frames
  double cluster_pairs_per_box = 20.0;  ///< density of the clustered frames
  std::size_t memory_from = 1'000;      ///< the frame whose memory the last frame's is held to
  double max_memory_growth = 0.01;      ///< allowed growth of host RSS and device memory in use
  std::uint32_t seed = 0;               ///< 0: a fresh random seed, reported in the row
};

/// Adds one row: the median time of the ordinary and clustered frames, the frames checked,
/// and memory at `memory_from` and at the last frame. A clustered frame whose pairs differ
/// from the reference, or memory that grew more than allowed, is a failure of the report.
void run_soak_bench(const SoakBenchOptions& options, Report& report);

}  // namespace rsw::bench
