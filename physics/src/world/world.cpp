#include "rsw/physics/world.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "../argument_checks.hpp"
#include "../broad_phase/frame_plan.hpp"
#include "../broad_phase/sweep_backend.hpp"
#include "../query/query_checks.hpp"
#include "proxy_table.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "world_backend.hpp"

namespace rsw::physics {
namespace {

// A seed per world, so that two worlds give their slots different generations.
std::uint32_t next_world_seed() {
  static std::atomic<std::uint32_t> worlds{0};
  return worlds.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B9u + 0x7F4A7C15u;
}

}  // namespace

struct World::Impl {
  WorldOptions options;
  rsw::Backend backend = rsw::Backend::Cpu;
  detail::ProxyTable table{next_world_seed()};
  std::unique_ptr<detail::WorldBackend> worker;
  std::vector<std::uint32_t> moved;  // slots whose box the host wrote since the last step
  bool layout_changed = false;
  bool statics_changed = false;
  WorldStats stats;
  bool have_step = false;
  // The last step's sets as ProxyPairs, converted on first request; their capacity is kept,
  // so a world in its steady state allocates nothing here.
  std::vector<ProxyPair> host_sets[3];
  bool host_ready[3] = {};
  // The last query's hits (host), and for the CPU backends their copy in device memory.
  std::vector<QueryHit> query_hits;
  DeviceBuffer<QueryHit> query_device_hits;
  // The same of the last raycast.
  std::vector<RayHit> ray_hits;
  DeviceBuffer<RayHit> ray_device_hits;

  explicit Impl(const WorldOptions& world_options) : options(world_options) {
    backend = options.brute_force ? rsw::Backend::Cpu : resolve_backend(options.backend);
    worker = backend == rsw::Backend::Cuda ? detail::make_cuda_world(table)
                                           : detail::make_cpu_world(table, options.brute_force);
  }

  detail::TableChanges changes() const {
    return {.moved = moved, .layout = layout_changed, .statics = statics_changed};
  }

  // Under InvalidBoxes::Reject, throws naming the first invalid box of a call.
  void check_boxes(std::span<const Aabb> boxes, std::string_view what) const {
    if (options.invalid_boxes == InvalidBoxes::Reject) detail::check_boxes(what, boxes);
  }

  std::span<const QueryHit> query(std::span<const Aabb> regions, const QueryOptions& query) {
    detail::check_regions("World::query", regions);
    detail::check_query_world("World::query", query.world);
    const std::span<const Pair> pairs = worker->query(regions, query, options, changes());
    if (worker->on_device()) {  // the changes were brought to the device
      moved.clear();
      layout_changed = false;
    }
    resize_host(query_hits, pairs.size(), "the query's hits");
    std::ranges::transform(pairs, query_hits.begin(), [&](const Pair& p) {
      return QueryHit{p.a, table.id_of(p.b)};
    });
    return query_hits;
  }

  DeviceSpan<const QueryHit> query(DeviceSpan<const Aabb> regions, const QueryOptions& query) {
    detail::check_query_world("World::query", query.world);
    if (!worker->on_device()) {
      std::vector<Aabb> host(regions.size);
      rsw::detail::copy_device_to_host(host.data(), regions.data, regions.size_bytes(),
                                       options.stream);
      synchronize(options.stream);
      const std::span<const QueryHit> hits = this->query(host, query);
      query_device_hits.upload(hits, options.stream);
      synchronize(options.stream);
      return query_device_hits.span();
    }
    std::optional<std::uint32_t> first_invalid;
    const DeviceSpan<const QueryHit> hits =
        worker->query(regions, query, options, changes(), first_invalid);
    moved.clear();
    layout_changed = false;
    if (first_invalid) {
      Aabb region;
      rsw::detail::copy_device_to_host(&region, regions.data + *first_invalid, sizeof(Aabb),
                                       options.stream);
      synchronize(options.stream);
      throw detail::invalid_region("World::query", *first_invalid, region);
    }
    return hits;
  }

  std::span<const RayHit> raycast(std::span<const Ray> rays, const RaycastOptions& cast) {
    detail::check_rays("World::raycast", rays);
    detail::check_query_world("World::raycast", cast.world);
    const std::span<const detail::SlotHit> hits = worker->raycast(rays, cast, options, changes());
    if (worker->on_device()) {  // the changes were brought to the device
      moved.clear();
      layout_changed = false;
    }
    resize_host(ray_hits, hits.size(), "the rays' hits");
    std::ranges::transform(hits, ray_hits.begin(), [&](const detail::SlotHit& hit) {
      return RayHit{hit.ray, table.id_of(hit.slot), hit.t};
    });
    return ray_hits;
  }

  DeviceSpan<const RayHit> raycast(DeviceSpan<const Ray> rays, const RaycastOptions& cast) {
    detail::check_query_world("World::raycast", cast.world);
    if (!worker->on_device()) {
      std::vector<Ray> host(rays.size);
      rsw::detail::copy_device_to_host(host.data(), rays.data, rays.size_bytes(), options.stream);
      synchronize(options.stream);
      const std::span<const RayHit> hits = this->raycast(host, cast);
      ray_device_hits.upload(hits, options.stream);
      synchronize(options.stream);
      return ray_device_hits.span();
    }
    std::optional<std::uint32_t> first_invalid;
    const DeviceSpan<const RayHit> hits =
        worker->raycast(rays, cast, options, changes(), first_invalid);
    moved.clear();
    layout_changed = false;
    if (first_invalid) {
      Ray ray;
      rsw::detail::copy_device_to_host(&ray, rays.data + *first_invalid, sizeof(Ray),
                                       options.stream);
      synchronize(options.stream);
      throw detail::invalid_ray("World::raycast", *first_invalid, ray);
    }
    return hits;
  }

  // Slots for `count` new proxies. Room for all is made first, so that a failure creates none.
  std::vector<std::uint32_t> allocate(std::size_t count, const ProxyOptions& proxy) {
    if (!is_world(proxy.world)) {
      throw Error(ErrorKind::InvalidArgument,
                  "World::create: ProxyOptions::world is " + std::to_string(proxy.world) +
                      ": a world id is at most " + std::to_string(kMaxWorld) +
                      " (2^24 - 1), or kAllWorlds (0xFFFFFFFF)");
    }
    std::vector<std::uint32_t> slots;
    resize_host(slots, count, "the slots of the new proxies");
    detail::reserve_geometric(moved, moved.size() + count);
    table.reserve(count, proxy.motion);
    for (std::size_t i = 0; i < count; ++i)
      slots[i] = table.allocate(proxy);
    layout_changed = true;
    statics_changed = statics_changed || (proxy.motion == Motion::Static && count > 0);
    return slots;
  }

  void create(std::span<const Aabb> boxes, const ProxyOptions& proxy, std::span<ProxyId> out) {
    detail::check_sizes(boxes.size(), {out.size()}, "World::create: boxes and ids");
    check_boxes(boxes, "World::create");
    const std::vector<std::uint32_t> slots = allocate(boxes.size(), proxy);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      table.boxes[slots[i]] = boxes[i];
      moved.push_back(slots[i]);
      out[i] = table.id_of(slots[i]);
    }
  }

  void create(DeviceSpan<const Aabb> boxes, const ProxyOptions& proxy, DeviceSpan<ProxyId> out) {
    detail::check_sizes(boxes.size, {out.size}, "World::create: boxes and ids");
    if (!worker->on_device()) {
      std::vector<Aabb> host(boxes.size);
      rsw::detail::copy_device_to_host(host.data(), boxes.data, boxes.size_bytes(), options.stream);
      synchronize(options.stream);
      std::vector<ProxyId> ids(boxes.size);
      create(host, proxy, ids);
      rsw::detail::copy_host_to_device(out.data, ids.data(), out.size_bytes(), options.stream);
      synchronize(options.stream);
      return;
    }
    const std::vector<std::uint32_t> slots = allocate(boxes.size, proxy);
    std::vector<ProxyId> ids(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i)
      ids[i] = table.id_of(slots[i]);
    worker->place(slots, boxes, changes(), options.stream);
    moved.clear();  // brought to the device before the placement
    layout_changed = false;
    rsw::detail::copy_host_to_device(out.data, ids.data(), out.size_bytes(), options.stream);
    synchronize(options.stream);
  }

  void move(std::span<const ProxyId> ids, std::span<const Aabb> boxes) {
    detail::check_sizes(ids.size(), {boxes.size()}, "World::move: ids and boxes");
    for (const ProxyId id : ids)
      table.slot_of(id, "World::move");
    check_boxes(boxes, "World::move");
    detail::reserve_geometric(moved, moved.size() + ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::uint32_t slot = ids[i].index;
      table.boxes[slot] = boxes[i];
      moved.push_back(slot);
      statics_changed = statics_changed || table.states()[slot] == detail::SlotState::Static;
    }
  }

  void move(DeviceSpan<const ProxyId> ids, DeviceSpan<const Aabb> boxes) {
    detail::check_sizes(ids.size, {boxes.size}, "World::move: ids and boxes");
    if (!worker->on_device()) {
      std::vector<ProxyId> host_ids(ids.size);
      std::vector<Aabb> host_boxes(boxes.size);
      rsw::detail::copy_device_to_host(host_ids.data(), ids.data, ids.size_bytes(), options.stream);
      rsw::detail::copy_device_to_host(host_boxes.data(), boxes.data, boxes.size_bytes(),
                                       options.stream);
      synchronize(options.stream);
      move(host_ids, host_boxes);
      return;
    }
    worker->move(ids, boxes, changes(), options.stream);
    moved.clear();
    layout_changed = false;
  }

  void destroy(std::span<const ProxyId> ids) {
    // Every id live and none twice: checked before any is removed.
    std::vector<std::uint32_t> slots;
    resize_host(slots, ids.size(), "the slots to destroy");
    for (std::size_t i = 0; i < ids.size(); ++i)
      slots[i] = table.slot_of(ids[i], "World::destroy");
    std::ranges::sort(slots);
    if (const auto repeat = std::ranges::adjacent_find(slots); repeat != slots.end()) {
      throw Error(ErrorKind::InvalidArgument,
                  "World::destroy: proxy index " + std::to_string(*repeat) + " given twice");
    }
    table.reserve_releases(slots.size());  // then the loop cannot fail part-way
    for (const std::uint32_t slot : slots) {
      statics_changed = statics_changed || table.states()[slot] == detail::SlotState::Static;
      table.release(slot);
    }
    layout_changed = layout_changed || !slots.empty();
  }

  void step() {
    const detail::Clock::time_point start = detail::Clock::now();
    have_step = false;
    std::ranges::fill(host_ready, false);
    stats = WorldStats{};
    table.prepare_step();
    worker->step(changes(), options, stats);
    moved.clear();
    layout_changed = false;
    statics_changed = false;
    table.stepped();
    have_step = true;
    stats.backend = backend;
    stats.proxies = table.live();
    stats.static_proxies = table.statics().size();
    stats.moving_proxies = table.moving().size();
    stats.total_ms = detail::ms_since(start);
  }

  std::span<const ProxyPair> host_set(detail::PairSet set) {
    if (!have_step) return {};
    const auto index = static_cast<std::size_t>(set);
    std::vector<ProxyPair>& converted = host_sets[index];
    if (!host_ready[index]) {
      const std::span<const Pair> pairs = worker->host_pairs(set);
      resize_host(converted, pairs.size(), "the pairs named by their proxies");
      std::ranges::transform(pairs, converted.begin(), [&](const Pair& p) {
        return ProxyPair{table.id_of(p.a), table.id_of(p.b)};
      });
      host_ready[index] = true;
    }
    return converted;
  }

  DeviceSpan<const ProxyPair> device_set(detail::PairSet set) {
    if (!have_step) return {};
    return worker->device_pairs(set);
  }
};

World::World(WorldOptions options)
    : impl_(with_bad_alloc_as_error("World", [&] { return std::make_unique<Impl>(options); })) {}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

ProxyId World::create(const Aabb& box, const ProxyOptions& options) {
  ProxyId id;
  create(std::span(&box, 1), options, std::span(&id, 1));
  return id;
}

void World::create(std::span<const Aabb> boxes, const ProxyOptions& options,
                   std::span<ProxyId> out) {
  with_bad_alloc_as_error("World::create", [&] { impl_->create(boxes, options, out); });
}

void World::create(DeviceSpan<const Aabb> boxes, const ProxyOptions& options,
                   DeviceSpan<ProxyId> out) {
  with_bad_alloc_as_error("World::create", [&] { impl_->create(boxes, options, out); });
}

void World::move(ProxyId id, const Aabb& box) {
  move(std::span(&id, 1), std::span(&box, 1));
}

void World::move(std::span<const ProxyId> ids, std::span<const Aabb> boxes) {
  with_bad_alloc_as_error("World::move", [&] { impl_->move(ids, boxes); });
}

void World::move(DeviceSpan<const ProxyId> ids, DeviceSpan<const Aabb> boxes) {
  with_bad_alloc_as_error("World::move", [&] { impl_->move(ids, boxes); });
}

void World::destroy(ProxyId id) {
  destroy(std::span(&id, 1));
}

void World::destroy(std::span<const ProxyId> ids) {
  with_bad_alloc_as_error("World::destroy", [&] { impl_->destroy(ids); });
}

void World::destroy(DeviceSpan<const ProxyId> ids) {
  with_bad_alloc_as_error("World::destroy", [&] {
    std::vector<ProxyId> host(ids.size);
    rsw::detail::copy_device_to_host(host.data(), ids.data, ids.size_bytes(),
                                     impl_->options.stream);
    synchronize(impl_->options.stream);
    impl_->destroy(host);
  });
}

void World::step() {
  with_bad_alloc_as_error("World::step", [&] { impl_->step(); });
}

WorldEvents World::events() {
  return with_bad_alloc_as_error("World::events", [&] {
    return WorldEvents{.found = impl_->host_set(detail::PairSet::Found),
                       .lost = impl_->host_set(detail::PairSet::Lost)};
  });
}

DeviceWorldEvents World::events_device() {
  return with_bad_alloc_as_error("World::events_device", [&] {
    return DeviceWorldEvents{.found = impl_->device_set(detail::PairSet::Found),
                             .lost = impl_->device_set(detail::PairSet::Lost)};
  });
}

std::span<const ProxyPair> World::pairs() {
  return with_bad_alloc_as_error("World::pairs",
                                 [&] { return impl_->host_set(detail::PairSet::Pairs); });
}

DeviceSpan<const ProxyPair> World::pairs_device() {
  return with_bad_alloc_as_error("World::pairs_device",
                                 [&] { return impl_->device_set(detail::PairSet::Pairs); });
}

std::span<const QueryHit> World::query(std::span<const Aabb> regions, const QueryOptions& options) {
  return with_bad_alloc_as_error("World::query", [&] { return impl_->query(regions, options); });
}

DeviceSpan<const QueryHit> World::query(DeviceSpan<const Aabb> regions,
                                        const QueryOptions& options) {
  return with_bad_alloc_as_error("World::query", [&] { return impl_->query(regions, options); });
}

std::span<const RayHit> World::raycast(std::span<const Ray> rays, const RaycastOptions& options) {
  return with_bad_alloc_as_error("World::raycast", [&] { return impl_->raycast(rays, options); });
}

DeviceSpan<const RayHit> World::raycast(DeviceSpan<const Ray> rays, const RaycastOptions& options) {
  return with_bad_alloc_as_error("World::raycast", [&] { return impl_->raycast(rays, options); });
}

std::uint64_t World::user(ProxyId id) const {
  return impl_->table.user(impl_->table.slot_of(id, "World::user"));
}

bool World::contains(ProxyId id) const noexcept {
  return impl_->table.contains(id);
}

std::size_t World::size() const noexcept {
  return impl_->table.live();
}

const WorldStats& World::stats() const noexcept {
  return impl_->stats;
}

const WorldOptions& World::options() const noexcept {
  return impl_->options;
}

}  // namespace rsw::physics
