// The backends behind BroadPhase: one frame in, the pairs out. The CUDA and CPU sweeps and
// brute force (the tests' oracle) answer alike; the sweeps keep the sorted order of the last
// frame (the coherence state), which moves between backends when the user switches.
//
// The stages every backend times, by the same name for the same work (BroadPhaseStats):
//   upload    the user's host boxes copied to the device (the CUDA sweep)
//   keys      the boxes validated and summarized, the frame planned (axis, grid), and the
//             sort keys staged in last frame's order
//   sort      the boxes sorted by their minimum on the sweep axis
//   list      the boxes gathered into sorted order and listed in the cells they cover; the
//             listings sorted by cell and gathered into records
//   sweep     candidates found along the axis and tested on the others and the filter bits,
//             the pairs written
//   pair_sort the pairs ordered by (a, b), when sorted_pairs asks, or by (world, a, b) and the
//             worlds' offsets found, when group_by_world asks
//   download  the pairs copied to the host (the CUDA sweep's find_pairs())
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::physics::detail {

/// A frame's boxes as the user gave them: exactly one of the three forms, sizes checked.
struct BoxSource {
  enum class Form { HostAos, HostSoa, Device, DeviceAos };
  Form form = Form::HostAos;
  std::size_t count = 0;
  std::span<const Aabb> host_aos;
  AabbArrays host_soa;
  DeviceAabbArrays device;
  DeviceSpan<const Aabb> device_aos;
  FilterArrays host_filter;          // with the host forms
  DeviceFilterArrays device_filter;  // with the device forms
  StreamHandle stream = nullptr;     // device arrays are ready in this stream's order
};

/// What a frame asks of a backend, from BroadPhaseOptions.
struct FrameRequest {
  SweepAxis axis = SweepAxis::X;
  SweepMode mode = SweepMode::Cells;
  InvalidBoxes invalid_boxes = InvalidBoxes::Reject;
  sort::Algorithm sort = sort::Algorithm::Auto;  // resolved: never Auto here
  bool sorted_pairs = false;
  bool group_by_world = false;
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
  /// The last run's world_pair_offsets (group_by_world), in host or device memory.
  virtual std::span<const std::uint32_t> host_world_offsets() = 0;
  virtual DeviceSpan<const std::uint32_t> device_world_offsets() = 0;

  /// The box order sorted by the last run (a permutation of 0..n-1), for another backend.
  virtual std::vector<std::uint32_t> export_order() = 0;
  /// Continues from an order a previous backend sorted.
  virtual void import_order(std::vector<std::uint32_t> order) = 0;
};

/// The backends, one of which runs a frame.
enum class SweepKind { Cuda, Cpu, BruteForce };

/// The backend of `kind`; the CUDA sweep throws rsw::Error(DeviceUnavailable) without a usable
/// device or GPU code.
std::unique_ptr<SweepBackend> make_sweep(SweepKind kind);
std::unique_ptr<SweepBackend> make_cuda_sweep();
/// `threads` 0 = one per hardware thread (at most 16).
std::unique_ptr<SweepBackend> make_cpu_sweep(int threads);
std::unique_ptr<SweepBackend> make_brute_force_sweep();

/// Results found on the host (pairs, world offsets), copied to the device on the first
/// request after each frame.
template <class T>
class HostResult {
 public:
  /// The values, for a new frame to write (the device copy is stale from here on).
  std::vector<T>& rewrite() {
    on_device_ = false;
    return values_;
  }
  std::span<const T> host() const { return values_; }
  DeviceSpan<const T> device() {
    if (!on_device_) {
      device_.upload(values_);
      synchronize(nullptr);
      on_device_ = true;
    }
    return device_.span();
  }

 private:
  std::vector<T> values_;
  DeviceBuffer<T> device_;
  bool on_device_ = false;
};
using HostPairs = HostResult<Pair>;
using HostOffsets = HostResult<std::uint32_t>;

/// The error for a frame with more (box, cell) listings than either sweep's 32-bit listing
/// indices reach.
Error too_many_listings(std::uint64_t listings);

using Clock = std::chrono::steady_clock;

/// Milliseconds on the host clock since `start`.
inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The sort a backend runs for sort::Algorithm::Auto: its own kind.
inline sort::Algorithm sort_for_backend(sort::Algorithm requested, rsw::Backend backend) {
  if (requested != sort::Algorithm::Auto) return requested;
  return backend == rsw::Backend::Cuda ? sort::Algorithm::Onesweep : sort::Algorithm::Cpu;
}

}  // namespace rsw::physics::detail
