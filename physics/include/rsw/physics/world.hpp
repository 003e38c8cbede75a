// rsw::physics::World: a persistent broad phase. Boxes live between steps behind handles
// (ProxyId), static geometry is kept apart from what moves, and each step reports which pairs
// began overlapping (found) and which ended (lost), on the GPU or the CPU.
//
//   #include <rsw/physics/world.hpp>
//   using namespace rsw::physics;
//   World world({.backend = rsw::Backend::Auto});
//   ProxyId ground = world.create(Aabb{{-50, -1, -50}, {50, 0, 50}}, {.motion = Motion::Static});
//   ProxyId crate = world.create(Aabb{{0, 0, 0}, {1, 1, 1}});  // Motion::Moving
//   world.step();
//   for (const ProxyPair& p : world.events().found) { }  // began touching: (ground, crate)
//   world.move(crate, Aabb{{0, 5, 0}, {1, 6, 1}});
//   world.step();
//   for (const ProxyPair& p : world.events().lost) { }   // stopped touching: (ground, crate)
//
// A step finds the exact pairs, as BroadPhase does (closed intervals, filter bits, none ever
// dropped), but spends its work on what moves: the static proxies are sorted and listed in
// cells once, and again only when a static proxy is created, moved or destroyed; a step
// sweeps the moving proxies against each other and looks each one up in the static cells.
// Static proxies never pair with each other. Events cost no host round trip per pair: on the
// GPU each pair of the step is tested against the last step's boxes, and each pair of the last
// step against this step's; on the CPU the two sorted pair sets are merged.
//
// Handles: a ProxyId names a slot and the generation of the proxy in it. Slots are reused after
// destroy(), with a new generation, so a stale id (or one of another World) passed to move(),
// destroy() or user() is an rsw::Error(InvalidArgument), never another proxy. A destroyed
// proxy's slot is not reused before the step after next, so the ids in the events of the
// last step always name what they named then.
//
// Every failure is an rsw::Error. A call that throws creates, moves or destroys no proxy (but
// a device-array move, which checks its ids on the device: it writes the boxes of the live
// ones and the next step() reports the first stale one). A step() that throws leaves no step
// to read (pairs() and events() are empty) and changes no proxy; the next step's events are
// found against the last step that stood.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "rsw/engine/api.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::physics {

/// A handle to a proxy of a World: its slot and the generation of the proxy in that slot. The
/// default id names no proxy.
struct ProxyId {
  std::uint32_t index = 0;       ///< the slot
  std::uint32_t generation = 0;  ///< 0 for no proxy; a live proxy's is never 0
  /// Orders by slot, then generation.
  friend constexpr auto operator<=>(const ProxyId&, const ProxyId&) = default;
};

/// Two overlapping proxies, a < b.
struct ProxyPair {
  ProxyId a;  ///< the lower id
  ProxyId b;  ///< the higher id
  /// Orders pairs by a, then b.
  friend constexpr auto operator<=>(const ProxyPair&, const ProxyPair&) = default;
};

/// Whether a proxy moves.
enum class Motion : std::uint8_t {
  Moving,  ///< pairs with every proxy; swept every step
  Static,  ///< pairs only with moving proxies; listed once and kept until statics change
};

/// Setup of a proxy.
struct ProxyOptions {
  Motion motion = Motion::Moving;    ///< static or moving, for the proxy's life
  std::uint32_t category = 1;        ///< filter bits, as in FilterArrays
  std::uint32_t mask = 0xFFFFFFFFu;  ///< filter bits, as in FilterArrays
  std::uint32_t world = 0;           ///< as in FilterArrays: proxies of different worlds never
                                     ///< pair; kAllWorlds pairs with every world
  std::uint64_t user = 0;            ///< the caller's value, kept with the proxy
};

/// A proxy whose box overlaps a query region.
struct QueryHit {
  std::uint32_t query = 0;  ///< the region's index in the query
  ProxyId proxy;            ///< a proxy whose box overlaps the region
  /// Orders hits by query, then proxy.
  friend constexpr auto operator<=>(const QueryHit&, const QueryHit&) = default;
};

/// A proxy whose box a ray meets (see Ray for the test).
struct RayHit {
  std::uint32_t ray = 0;  ///< the ray's index in the query
  ProxyId proxy;          ///< the proxy hit
  float t = 0;            ///< where the ray enters its box (0 when it starts inside)
};

/// Setup of a World.
struct WorldOptions {
  rsw::Backend backend = rsw::Backend::Auto;  ///< Auto: the GPU when a CUDA device is usable
  bool brute_force = false;  ///< test every pair on the CPU, O(n^2): the oracle for tests
  sort::Algorithm sort = sort::Algorithm::Auto;  ///< the sort of the moving proxies
  SweepAxis axis = SweepAxis::X;                 ///< the sweep axis of statics and moving proxies
  InvalidBoxes invalid_boxes = InvalidBoxes::Reject;  ///< Reject: create/move (or step, for
                                                      ///< boxes from device arrays) throws
  /// Report found and lost sorted by (a, b). Off, they come in the order the backend finds
  /// them: sorted on the CPU, and on the GPU an order that varies from run to run.
  bool sorted_events = false;
  bool stage_times = true;  ///< time each stage of a step for stats() (see BroadPhaseOptions)
  /// The CUDA stream the GPU backend works on; nullptr: a stream of its own, ordered with the
  /// default stream. Device arrays passed in must be ready in its order (with nullptr: queued
  /// on the default stream, or ready before the call); device results are ready in it (with
  /// nullptr, when the call returns).
  rsw::StreamHandle stream = nullptr;
};

/// The pairs that began and ended overlapping at the last step(), in host memory; valid until
/// the next step().
struct WorldEvents {
  std::span<const ProxyPair> found;  ///< pairs now that were not pairs at the step before
  std::span<const ProxyPair> lost;   ///< pairs at the step before that are not pairs now
};

/// WorldEvents in device memory.
struct DeviceWorldEvents {
  rsw::DeviceSpan<const ProxyPair> found;  ///< as WorldEvents::found
  rsw::DeviceSpan<const ProxyPair> lost;   ///< as WorldEvents::lost
};

/// What the last step did. Times in milliseconds, one per stage (CUDA events on the GPU, the
/// host clock on the CPU; zero where a backend has no such stage).
struct WorldStats {
  rsw::Backend backend = rsw::Backend::Cpu;  ///< where the step ran
  std::size_t proxies = 0;                   ///< live proxies
  std::size_t static_proxies = 0;            ///< of which static
  std::size_t moving_proxies = 0;            ///< of which moving
  std::size_t excluded_proxies = 0;          ///< invalid boxes left out (InvalidBoxes::Exclude)
  std::size_t candidates = 0;    ///< pairs overlapping on the sweep axis, tested on the others
  std::size_t moving_pairs = 0;  ///< pairs of two moving proxies
  std::size_t static_pairs = 0;  ///< pairs of a moving and a static proxy
  std::size_t pairs = 0;         ///< all pairs
  std::size_t found = 0;         ///< pairs that began overlapping
  std::size_t lost = 0;          ///< pairs that ended overlapping
  bool statics_listed = false;   ///< the static cells were rebuilt at this step
  BroadPhaseStats moving;        ///< the sweep of the moving proxies among themselves
  double upload_ms = 0;          ///< created and moved boxes to the device (GPU)
  double statics_ms = 0;    ///< the static proxies sorted and listed in cells (when they changed)
  double moving_ms = 0;     ///< the moving proxies gathered and swept among themselves (a frame of
                            ///< their own; 0 when the GPU swept them in the static cells)
  double query_ms = 0;      ///< each moving proxy looked up in the static cells (on the GPU, and
                            ///< swept there among the others while that grid serves them)
  double pair_sort_ms = 0;  ///< the step's pairs put in (a, b) order (the CPU backends; the
                            ///< GPU sorts them when pairs() or pairs_device() first asks, a
                            ///< time not counted here)
  double events_ms = 0;     ///< found and lost (and their sort, with sorted_events)
  double total_ms = 0;      ///< the whole of step(), host clock
};

/// A persistent broad phase: proxies created, moved and destroyed between steps, and the
/// pairs and pair events of each step(). Not thread-safe: one world per thread.
class RSW_API World {
 public:
  /// Resolves the backend (throws rsw::Error(DeviceUnavailable) for Cuda without a device).
  explicit World(WorldOptions options = {});
  ~World();
  /// Moves take over the proxies, the pairs and the events; a moved-from world may only be
  /// assigned to or destroyed.
  ///@{
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  ///@}
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// A new proxy; it takes part from the next step().
  ProxyId create(const Aabb& box, const ProxyOptions& options = {});
  /// boxes.size() new proxies with the same options, their ids into `out` (of the same size).
  void create(std::span<const Aabb> boxes, const ProxyOptions& options, std::span<ProxyId> out);
  /// The same from device arrays; the ids are written to `out` in device memory.
  void create(rsw::DeviceSpan<const Aabb> boxes, const ProxyOptions& options,
              rsw::DeviceSpan<ProxyId> out);

  /// Gives a proxy a new box (static proxies too: their cells are rebuilt at the next step).
  void move(ProxyId id, const Aabb& box);
  /// ids[i] gets boxes[i]; every id is checked before any box is changed.
  void move(std::span<const ProxyId> ids, std::span<const Aabb> boxes);
  /// The same from device arrays, without crossing PCIe on the GPU: the ids are checked on the
  /// device, and a stale one skipped there and reported by the next step() (the GPU backend;
  /// the CPU backends download both arrays and check at once).
  void move(rsw::DeviceSpan<const ProxyId> ids, rsw::DeviceSpan<const Aabb> boxes);

  /// Removes a proxy; its pairs are reported lost at the next step().
  void destroy(ProxyId id);
  /// Removes these proxies; every id is checked (a repeat is stale) before any is removed.
  void destroy(std::span<const ProxyId> ids);
  /// The same from device memory (the ids are downloaded: slots are kept on the host).
  void destroy(rsw::DeviceSpan<const ProxyId> ids);

  /// One step: the pairs of the proxies as they are now, and the events since the last step.
  void step();

  /// The found and lost pairs of the last step, in host memory, valid until the next step().
  WorldEvents events();
  /// The same in device memory.
  DeviceWorldEvents events_device();
  /// Every overlapping pair as of the last step(), sorted by (a, b); valid until the next
  /// step().
  std::span<const ProxyPair> pairs();
  /// The same in device memory.
  rsw::DeviceSpan<const ProxyPair> pairs_device();

  /// Region queries: every live proxy whose box overlaps a region (closed boxes, as the pairs
  /// are found; boxes as created or last moved, the step not needed), each (region, proxy)
  /// once, sorted by (query, proxy); invalid proxy boxes meet nothing. A region that is not a
  /// valid box (NaN, infinite, min > max) is an rsw::Error naming it. Valid until the next
  /// query() or step(). E.g. world.query(std::span(&blast, 1)) for what an explosion reaches.
  std::span<const QueryHit> query(std::span<const Aabb> regions, const QueryOptions& options = {});
  /// The same for regions in device memory, the hits in device memory.
  rsw::DeviceSpan<const QueryHit> query(rsw::DeviceSpan<const Aabb> regions,
                                        const QueryOptions& options = {});

  /// Ray queries: for each ray, the nearest live proxy whose box it meets within [0, max_t]
  /// (the lowest id among boxes entered at the same t), one hit per ray that hits, in ray
  /// order; with options.all_hits, every such proxy, sorted by (ray, t, proxy). Boxes as
  /// created or last moved (the step not needed); invalid proxy boxes meet nothing. A ray with
  /// a NaN or infinite origin or direction, or a max_t that is NaN or < 0, is an rsw::Error
  /// naming it. Valid until the next raycast() or step(). Exact: the hits and t are those of
  /// the slab test (Ray) against every box.
  std::span<const RayHit> raycast(std::span<const Ray> rays, const RaycastOptions& options = {});
  /// The same for rays in device memory, the hits in device memory.
  rsw::DeviceSpan<const RayHit> raycast(rsw::DeviceSpan<const Ray> rays,
                                        const RaycastOptions& options = {});

  /// The user value given at create().
  std::uint64_t user(ProxyId id) const;
  /// True when `id` names a live proxy of this world.
  bool contains(ProxyId id) const noexcept;
  /// Live proxies.
  std::size_t size() const noexcept;

  /// Statistics of the last step.
  const WorldStats& stats() const noexcept;
  /// The options in force.
  const WorldOptions& options() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::physics

namespace std {
/// Hashes a ProxyId (for unordered containers).
template <>
struct hash<rsw::physics::ProxyId> {
  /// The hash of the id's slot and generation as one 64-bit value.
  std::size_t operator()(const rsw::physics::ProxyId& id) const noexcept {
    return std::hash<std::uint64_t>{}(std::uint64_t{id.index} << 32 | id.generation);
  }
};
}  // namespace std
