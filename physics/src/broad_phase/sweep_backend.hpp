// The sweep-and-prune backends behind BroadPhase: one frame in, the pairs out. They keep the
// sorted order of the last frame (the coherence state), which moves between backends when
// the user switches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "rsw/physics/broad_phase.hpp"

namespace rsw::physics::detail {

/// A frame's boxes as the user gave them: exactly one of the three forms, sizes checked.
struct BoxSource {
  enum class Form { HostAos, HostSoa, Device };
  Form form = Form::HostAos;
  std::size_t count = 0;
  std::span<const Aabb> host_aos;
  AabbArrays host_soa;
  DeviceAabbArrays device;
  FilterArrays host_filter;          // with the host forms
  DeviceFilterArrays device_filter;  // with Form::Device
  StreamHandle stream = nullptr;     // device arrays are ready in this stream's order
};

/// What a frame asks of a backend, from BroadPhaseOptions.
struct FrameRequest {
  SweepAxis axis = SweepAxis::X;
  SweepMode mode = SweepMode::Cells;
  InvalidBoxes invalid_boxes = InvalidBoxes::Reject;
  sort::Algorithm sort = sort::Algorithm::Auto;  // resolved: never Auto here
  bool sorted_pairs = false;
  bool stage_times = true;
  StreamHandle stream = nullptr;
};

class SweepBackend {
 public:
  virtual ~SweepBackend() = default;

  /// Validates the boxes (throwing rsw::Error naming the first invalid one under
  /// InvalidBoxes::Reject), plans the axis and grid, sorts along the axis with keys in last
  /// frame's order, sweeps, and keeps the pairs. Fills every stat but backend and total_ms.
  virtual void run(const BoxSource& boxes, const FrameRequest& request, BroadPhaseStats& stats) = 0;
  /// The pairs of the last run in host memory; adds the download time to `stats`.
  virtual std::span<const Pair> host_pairs(BroadPhaseStats& stats) = 0;
  /// The pairs of the last run in device memory.
  virtual DeviceSpan<const Pair> device_pairs() = 0;

  /// The box order sorted by the last run (a permutation of 0..n-1), for another backend.
  virtual std::vector<std::uint32_t> export_order() = 0;
  /// Continues from an order a previous backend sorted.
  virtual void import_order(std::vector<std::uint32_t> order) = 0;
};

/// The CPU backend; `threads` 0 = one per hardware thread (at most 16).
std::unique_ptr<SweepBackend> make_cpu_sweep(int threads);
/// The CUDA backend; throws rsw::Error(DeviceUnavailable) without a usable device or GPU code.
std::unique_ptr<SweepBackend> make_cuda_sweep();

/// The sort a backend runs for sort::Algorithm::Auto: its own kind.
inline sort::Algorithm sort_for_backend(sort::Algorithm requested, rsw::Backend backend) {
  if (requested != sort::Algorithm::Auto) return requested;
  return backend == rsw::Backend::Cuda ? sort::Algorithm::Onesweep : sort::Algorithm::Cpu;
}

}  // namespace rsw::physics::detail
