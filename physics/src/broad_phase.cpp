#include "rsw/physics/broad_phase.hpp"

#include <chrono>
#include <optional>
#include <vector>

#include "host_boxes.hpp"
#include "rsw/engine/error.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics {

struct BroadPhase::Impl {
  BroadPhaseOptions options;
  detail::HostBoxes boxes;
  std::unique_ptr<detail::SweepBackend> sweep;
  rsw::Backend sweep_backend = rsw::Backend::Auto;  // which kind `sweep` is
  std::vector<Pair> pairs;  // brute force or sorted pairs; otherwise the backend's own
  PairView result;
  sort::Sorter pair_sorter;
  BroadPhaseStats stats;

  // The backend the options ask for; the sorted order moves over when it changes.
  detail::SweepBackend& backend_for(rsw::Backend wanted) {
    if (sweep && sweep_backend == wanted) return *sweep;
    std::vector<std::uint32_t> order;
    if (sweep) order = sweep->export_order();
    sweep = wanted == rsw::Backend::Cuda ? detail::make_cuda_sweep() : detail::make_cpu_sweep(0);
    if (!order.empty()) sweep->import_order(std::move(order));
    sweep_backend = wanted;
    return *sweep;
  }

  void run_frame(std::size_t excluded, std::chrono::steady_clock::time_point start) {
    stats = BroadPhaseStats{.boxes = boxes.size(), .excluded_boxes = excluded};
    if (options.brute_force) {
      stats.backend = rsw::Backend::Cpu;
      detail::brute_force_pairs(boxes, pairs);
      stats.pairs = pairs.size();
      result = pairs;
    } else {
      const rsw::Backend backend = resolve_backend(options.backend);
      const int axis = detail::choose_axis(boxes, options.axis);
      detail::SweepBackend& sweeper = backend_for(backend);
      std::optional<detail::CellGrid> grid;
      if (options.mode == SweepMode::Cells) grid = detail::choose_grid(boxes, axis);
      sweeper.run(boxes, axis, grid ? &*grid : nullptr,
                  detail::sort_for_backend(options.sort, backend), stats);
      stats.backend = backend;
      stats.sweep_axis = axis;
      result = sweeper.pairs();
    }
    if (options.sorted_pairs) {
      if (result.data() != pairs.data()) pairs.assign(result.begin(), result.end());
      detail::sort_pairs_lexicographically(pairs, pair_sorter);
      result = pairs;
    }
    stats.total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
};

BroadPhase::BroadPhase(BroadPhaseOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}
BroadPhase::~BroadPhase() = default;
BroadPhase::BroadPhase(BroadPhase&&) noexcept = default;
BroadPhase& BroadPhase::operator=(BroadPhase&&) noexcept = default;

void BroadPhase::update(std::span<const Aabb> boxes, FilterArrays filter) {
  const auto start = std::chrono::steady_clock::now();
  impl_->result = {};
  const std::size_t excluded =
      detail::load_boxes(boxes, filter, impl_->options.invalid_boxes, impl_->boxes);
  impl_->run_frame(excluded, start);
}

void BroadPhase::update(const AabbArrays& boxes, FilterArrays filter) {
  const auto start = std::chrono::steady_clock::now();
  impl_->result = {};
  const std::size_t excluded =
      detail::load_boxes(boxes, filter, impl_->options.invalid_boxes, impl_->boxes);
  impl_->run_frame(excluded, start);
}

PairView BroadPhase::find_pairs() {
  return impl_->result;
}

const BroadPhaseStats& BroadPhase::stats() const noexcept {
  return impl_->stats;
}

const BroadPhaseOptions& BroadPhase::options() const noexcept {
  return impl_->options;
}

void BroadPhase::set_options(const BroadPhaseOptions& options) {
  impl_->options = options;
}

}  // namespace rsw::physics
