// The sweep-and-prune backends behind BroadPhase: one frame in, the pairs out. They keep the
// sorted order of the last frame (the coherence state), which moves between backends when
// the user switches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "host_boxes.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::physics::detail {

class SweepBackend {
 public:
  virtual ~SweepBackend() = default;

  /// Sorts the boxes along `axis` (keys in last frame's order), sweeps (inside the cells of
  /// `grid`, or along the whole axis when grid is null), and keeps the pairs. Fills the stats
  /// it measures (candidates, cells, pairs, sort, stage times).
  virtual void run(const HostBoxes& boxes, int axis, const CellGrid* grid,
                   sort::Algorithm sort_algorithm, BroadPhaseStats& stats) = 0;
  /// The pairs of the last run, in host memory.
  virtual std::span<Pair> pairs() = 0;

  /// The box order sorted by the last run (a permutation of 0..n-1), for another backend.
  virtual std::vector<std::uint32_t> export_order() = 0;
  /// Continues from an order a previous backend sorted.
  virtual void import_order(std::vector<std::uint32_t> order) = 0;
};

/// The CPU backend; `threads` 0 = one per hardware thread.
std::unique_ptr<SweepBackend> make_cpu_sweep(int threads);
/// The CUDA backend; throws rsw::Error(DeviceUnavailable) without a usable device or GPU code.
std::unique_ptr<SweepBackend> make_cuda_sweep();

/// The sort a backend runs for sort::Algorithm::Auto: its own kind.
inline sort::Algorithm sort_for_backend(sort::Algorithm requested, rsw::Backend backend) {
  if (requested != sort::Algorithm::Auto) return requested;
  return backend == rsw::Backend::Cuda ? sort::Algorithm::FourWay : sort::Algorithm::Cpu;
}

}  // namespace rsw::physics::detail
