// The broad-phase benchmark: frames of a scene (or of the user's boxes from a CSV file) through
// each backend, with per-stage times, counts and the sort's share of the frame.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct BroadPhaseBenchOptions {
  std::vector<std::size_t> sizes;
  std::vector<std::string> scenes;             ///< scene names (scene_names())
  std::vector<std::string> backends;           ///< cpu, cuda
  std::vector<std::string> modes;              ///< cells, xsweep
  std::vector<std::string> inputs = {"host"};  ///< host, device (boxes and pairs stay there)
  std::string boxes_file;      ///< CSV boxes instead of scenes (sizes and scenes ignored)
  std::string pairs_file;      ///< write the last frame's pairs of the first backend here
  double pairs_per_box = 5.0;  ///< density of the generated scenes
  float motion = 0.01f;        ///< per-frame jitter, in box sizes (0: still boxes)
  std::size_t frames = 20;     ///< timed frames after warm-up
  std::size_t warmup = 3;
  std::vector<std::string> stage_times = {"on"};  ///< on, off: BroadPhaseOptions::stage_times
  /// After the frames, the last frame's pairs among this many boxes (those whose minimum on x
  /// ranks in a middle stretch) checked against the CPU backend's on those boxes alone; a
  /// difference is an error. 0: no check.
  std::size_t check_sample = 0;
};

/// A row per input and backend: ms_median of the frame, per-stage medians, counts.
/// The scenes' names as --scene takes them, in declaration order: "uniform, clustered, ...".
std::string scene_names();

void run_broadphase_bench(const BroadPhaseBenchOptions& options, Report& report);

}  // namespace rsw::bench
