#include "rsw/physics/broad_phase.hpp"

#include <optional>
#include <string>
#include <vector>

#include "../query/frame_queries.hpp"
#include "argument_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics {
namespace {

// Filter arrays are optional; given, they hold one entry per box.
void check_filter_sizes(std::size_t count, std::size_t categories, std::size_t masks,
                        std::size_t worlds) {
  if (categories != 0) detail::check_sizes(count, {categories}, "categories");
  if (masks != 0) detail::check_sizes(count, {masks}, "masks");
  if (worlds != 0) detail::check_sizes(count, {worlds}, "worlds");
}

// Where the options send the next frame, and the backend that reports for it.
detail::SweepKind kind_for(const BroadPhaseOptions& options, rsw::Backend backend) {
  if (options.brute_force) return detail::SweepKind::BruteForce;
  return backend == rsw::Backend::Cuda ? detail::SweepKind::Cuda : detail::SweepKind::Cpu;
}

}  // namespace

struct BroadPhase::Impl {
  BroadPhaseOptions options;
  std::unique_ptr<detail::SweepBackend> sweep;
  detail::SweepKind sweep_kind = detail::SweepKind::Cpu;  // which kind `sweep` is
  BroadPhaseStats stats;
  bool have_frame = false;
  bool grouped = false;                // the frame grouped its pairs by world
  std::optional<PairView> host_pairs;  // fetched from the backend on first find_pairs()
  detail::FrameQueries queries;        // region and ray queries of the frame's boxes

  // The backend of `wanted`; the sorted order moves over when it changes.
  detail::SweepBackend& backend_for(detail::SweepKind wanted) {
    if (sweep && sweep_kind == wanted) return *sweep;
    std::vector<std::uint32_t> order;
    if (sweep) order = sweep->export_order();
    sweep = detail::make_sweep(wanted);
    if (!order.empty()) sweep->import_order(std::move(order));
    sweep_kind = wanted;
    return *sweep;
  }

  // One frame, or an rsw::Error and no frame. A frame that fails part-way may leave the
  // backend's carried state (the sorted order, buffers mid-growth) half-written, so the
  // backend is dropped and the next frame starts afresh.
  void run_frame(const detail::BoxSource& source) {
    have_frame = false;
    host_pairs.reset();
    queries.clear();
    stats = BroadPhaseStats{.boxes = source.count};
    try {
      run_frame_or_throw(source);
    } catch (const std::bad_alloc&) {
      sweep.reset();
      throw host_out_of_memory("BroadPhase::update of " + std::to_string(source.count) + " boxes");
    } catch (...) {
      sweep.reset();
      throw;
    }
    have_frame = true;
    grouped = options.group_by_world;
    queries.set_frame(source, sweep_kind == detail::SweepKind::Cuda, options.stream);
  }

  void run_frame_or_throw(const detail::BoxSource& source) {
    const detail::Clock::time_point start = detail::Clock::now();
    const rsw::Backend backend =
        options.brute_force ? rsw::Backend::Cpu : resolve_backend(options.backend);
    backend_for(kind_for(options, backend))
        .run(source,
             {.axis = options.axis,
              .mode = options.mode,
              .invalid_boxes = options.invalid_boxes,
              .sort = detail::sort_for_backend(options.sort, backend),
              .sorted_pairs = options.sorted_pairs,
              .group_by_world = options.group_by_world,
              .stage_times = options.stage_times,
              .stream = options.stream},
             stats);
    stats.backend = backend;
    stats.total_ms = detail::ms_since(start);
  }

  PairView find_pairs() {
    if (!have_frame) return {};
    if (!host_pairs) {
      const detail::Clock::time_point start = detail::Clock::now();
      host_pairs = sweep->host_pairs(stats);
      stats.total_ms += detail::ms_since(start);
    }
    return *host_pairs;
  }

  DevicePairView find_pairs_device() {
    if (!have_frame) return {};
    return sweep->device_pairs();
  }

  std::span<const std::uint32_t> world_pair_offsets() {
    if (!have_frame || !grouped) return {};
    const detail::Clock::time_point start = detail::Clock::now();
    const std::span<const std::uint32_t> offsets = sweep->host_world_offsets();
    stats.total_ms += detail::ms_since(start);
    return offsets;
  }

  rsw::DeviceSpan<const std::uint32_t> world_pair_offsets_device() {
    if (!have_frame || !grouped) return {};
    return sweep->device_world_offsets();
  }
};

BroadPhase::BroadPhase(BroadPhaseOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}
BroadPhase::~BroadPhase() = default;
BroadPhase::BroadPhase(BroadPhase&&) noexcept = default;
BroadPhase& BroadPhase::operator=(BroadPhase&&) noexcept = default;

void BroadPhase::update(std::span<const Aabb> boxes, FilterArrays filter) {
  const std::size_t count = boxes.size();
  detail::check_sizes(count, {}, "boxes");
  check_filter_sizes(count, filter.categories.size(), filter.masks.size(), filter.worlds.size());
  impl_->run_frame({.form = detail::BoxSource::Form::HostAos,
                    .count = count,
                    .host_aos = boxes,
                    .host_filter = filter});
}

void BroadPhase::update(const AabbArrays& boxes, FilterArrays filter) {
  const std::size_t count = boxes.min_x.size();
  detail::check_sizes(count,
                      {boxes.min_y.size(), boxes.min_z.size(), boxes.max_x.size(),
                       boxes.max_y.size(), boxes.max_z.size()},
                      "AabbArrays");
  check_filter_sizes(count, filter.categories.size(), filter.masks.size(), filter.worlds.size());
  impl_->run_frame({.form = detail::BoxSource::Form::HostSoa,
                    .count = count,
                    .host_soa = boxes,
                    .host_filter = filter});
}

void BroadPhase::update(const DeviceAabbArrays& boxes, DeviceFilterArrays filter) {
  const std::size_t count = boxes.min_x.size;
  detail::check_sizes(
      count,
      {boxes.min_y.size, boxes.min_z.size, boxes.max_x.size, boxes.max_y.size, boxes.max_z.size},
      "DeviceAabbArrays");
  check_filter_sizes(count, filter.categories.size, filter.masks.size, filter.worlds.size);
  impl_->run_frame({.form = detail::BoxSource::Form::Device,
                    .count = count,
                    .device = boxes,
                    .device_filter = filter,
                    .stream = impl_->options.stream});
}

void BroadPhase::update(rsw::DeviceSpan<const Aabb> boxes, DeviceFilterArrays filter) {
  const std::size_t count = boxes.size;
  detail::check_sizes(count, {}, "boxes");
  check_filter_sizes(count, filter.categories.size, filter.masks.size, filter.worlds.size);
  impl_->run_frame({.form = detail::BoxSource::Form::DeviceAos,
                    .count = count,
                    .device_aos = boxes,
                    .device_filter = filter,
                    .stream = impl_->options.stream});
}

PairView BroadPhase::find_pairs() {
  return with_bad_alloc_as_error("BroadPhase::find_pairs", [&] { return impl_->find_pairs(); });
}

DevicePairView BroadPhase::find_pairs_device() {
  return with_bad_alloc_as_error("BroadPhase::find_pairs_device",
                                 [&] { return impl_->find_pairs_device(); });
}

std::span<const std::uint32_t> BroadPhase::world_pair_offsets() {
  return with_bad_alloc_as_error("BroadPhase::world_pair_offsets",
                                 [&] { return impl_->world_pair_offsets(); });
}

rsw::DeviceSpan<const std::uint32_t> BroadPhase::world_pair_offsets_device() {
  return with_bad_alloc_as_error("BroadPhase::world_pair_offsets_device",
                                 [&] { return impl_->world_pair_offsets_device(); });
}

std::span<const BoxQueryHit> BroadPhase::query(std::span<const Aabb> regions,
                                               const QueryOptions& options) {
  return with_bad_alloc_as_error("BroadPhase::query",
                                 [&] { return impl_->queries.query(regions, options); });
}

DeviceSpan<const BoxQueryHit> BroadPhase::query(DeviceSpan<const Aabb> regions,
                                                const QueryOptions& options) {
  return with_bad_alloc_as_error("BroadPhase::query",
                                 [&] { return impl_->queries.query(regions, options); });
}

std::span<const BoxRayHit> BroadPhase::raycast(std::span<const Ray> rays,
                                               const RaycastOptions& options) {
  return with_bad_alloc_as_error("BroadPhase::raycast",
                                 [&] { return impl_->queries.raycast(rays, options); });
}

DeviceSpan<const BoxRayHit> BroadPhase::raycast(DeviceSpan<const Ray> rays,
                                                const RaycastOptions& options) {
  return with_bad_alloc_as_error("BroadPhase::raycast",
                                 [&] { return impl_->queries.raycast(rays, options); });
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
