// The backends behind World: a step's pairs and events from the proxy table. The CUDA backend
// keeps the boxes by slot on the device (uploading what the host changed) and never brings a
// pair to the host unless asked; the CPU backend (threads) and brute force (the oracle) work
// on the table's boxes. All of them report pairs of slots, sorted by (a, b); World turns them
// into ProxyPairs.
//
// The stages of a step, as WorldStats times them:
//   upload     boxes created or moved on the host, and the table's changes, to the device
//   statics    the static proxies validated, planned, listed in cells and sorted (only when
//              statics were created, moved or destroyed)
//   moving     the moving proxies gathered and swept among themselves (a BroadPhase frame; on
//              the GPU only when they are not swept in the static cells, see world_step.cu)
//   query      each moving proxy looked up in the static cells (on the GPU, and swept there
//              among the others while that grid serves them)
//   pair_sort  both kinds of pair in one list, sorted by (a, b)
//   events     found and lost: the differences with the last step's pairs
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "../query/host_box_tree.hpp"
#include "proxy_table.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/physics/world.hpp"

namespace rsw::physics::detail {

/// What changed in the table since the last step.
struct TableChanges {
  std::span<const std::uint32_t> moved;  ///< slots whose box the host wrote (created or moved)
  bool layout = false;                   ///< proxies created or destroyed
  bool statics = false;                  ///< static proxies created, moved or destroyed
};

/// Which of a step's pair sets.
enum class PairSet { Pairs, Found, Lost };

class WorldBackend {
 public:
  virtual ~WorldBackend() = default;

  /// One step. Throws rsw::Error on invalid boxes (InvalidBoxes::Reject) or failure; then the
  /// last step's pairs stay what the next step's events are found against. Fills every stat
  /// but backend and total_ms.
  virtual void step(const TableChanges& changes, const WorldOptions& options,
                    WorldStats& stats) = 0;
  /// A pair set of the last step, as slots, sorted by (a, b), in host memory.
  virtual std::span<const Pair> host_pairs(PairSet set) = 0;
  /// The same set as ProxyPairs in device memory, with the generations the slots had at the
  /// step.
  virtual DeviceSpan<const ProxyPair> device_pairs(PairSet set) = 0;

  /// Boxes from device arrays (the CUDA backend; the others are never asked). The table's
  /// changes so far are brought to the device first, so that these apply after them.
  ///@{
  /// Writes boxes[i] to slots[i] (slots just allocated for a create).
  virtual void place(std::span<const std::uint32_t> slots, DeviceSpan<const Aabb> boxes,
                     const TableChanges& changes, StreamHandle stream) = 0;
  /// Writes boxes[i] to the proxy ids[i] where ids[i] is live; the next step() throws naming
  /// the first i where it was not.
  virtual void move(DeviceSpan<const ProxyId> ids, DeviceSpan<const Aabb> boxes,
                    const TableChanges& changes, StreamHandle stream) = 0;
  ///@}
  /// Region queries (World::query) against the live proxies' boxes as they are now, the
  /// table's changes brought to the device first: the (region, slot) pairs whose boxes overlap
  /// and pass `options`, sorted by (region, slot). The regions are valid boxes. In host memory;
  /// valid until the next query or step.
  virtual std::span<const Pair> query(std::span<const Aabb> regions, const QueryOptions& options,
                                      const WorldOptions& world, const TableChanges& changes) = 0;
  /// The same from regions in device memory (checked here: the first invalid one's index, or
  /// nothing), named by the slots' generations, in device memory (the CUDA backend; the others
  /// are never asked).
  virtual DeviceSpan<const QueryHit> query(DeviceSpan<const Aabb> regions,
                                           const QueryOptions& options, const WorldOptions& world,
                                           const TableChanges& changes,
                                           std::optional<std::uint32_t>& first_invalid) = 0;

  /// Ray queries (World::raycast) against the live proxies' boxes as they are now, the table's
  /// changes brought to the device first: each ray's nearest hit, or with options.all_hits
  /// every hit sorted by (ray, t, slot), as slots. The rays are valid. In host memory; valid
  /// until the next raycast or step.
  virtual std::span<const SlotHit> raycast(std::span<const Ray> rays, const RaycastOptions& options,
                                           const WorldOptions& world,
                                           const TableChanges& changes) = 0;
  /// The same from rays in device memory (checked here: the first invalid one's index, or
  /// nothing), named by the slots' generations, in device memory (the CUDA backend; the others
  /// are never asked).
  virtual DeviceSpan<const RayHit> raycast(DeviceSpan<const Ray> rays,
                                           const RaycastOptions& options, const WorldOptions& world,
                                           const TableChanges& changes,
                                           std::optional<std::uint32_t>& first_invalid) = 0;

  /// True when boxes from device arrays stay on the device (place and move above).
  virtual bool on_device() const noexcept = 0;
};

/// The backend for a world's options: CUDA (throws rsw::Error(DeviceUnavailable) without a
/// usable device), CPU or brute force. `table` outlives it.
std::unique_ptr<WorldBackend> make_cuda_world(const ProxyTable& table);
std::unique_ptr<WorldBackend> make_cpu_world(const ProxyTable& table, bool brute_force);

}  // namespace rsw::physics::detail
