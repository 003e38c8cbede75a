// The box tree (box_tree.hpp) on the GPU: built from a world's slots in device memory, and
// batches of regions and rays asked of it there, each batch in the order of the Morton codes
// of its queries (so that a warp's threads walk much the same nodes). Declared without CUDA
// headers; defined in cuda/device_box_tree.cu.
#pragma once

#include <cstdint>
#include <optional>

#include "../world/proxy_table.hpp"
#include "box_tree.hpp"
#include "host_box_tree.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::physics::detail {

class DeviceBoxTree {
 public:
  /// A tree over `count` slots: slot i's box boxes[i], queried by categories[i] (1 without
  /// categories) when states[i] holds a proxy (every slot does without states) and the box is
  /// valid; else met by nothing. Queued on `stream`.
  void build(const Aabb* boxes, const SlotState* states, const std::uint32_t* categories,
             std::uint32_t count, StreamHandle stream);
  /// The same from boxes as six arrays (packed into boxes first).
  void build(const DeviceAabbArrays& boxes, const std::uint32_t* categories, std::uint32_t count,
             StreamHandle stream);

  /// The index of the first region that is not a valid box, or nothing; waits.
  std::optional<std::uint32_t> first_invalid(DeviceSpan<const Aabb> regions, StreamHandle stream);
  /// The index of the first ray that cannot be cast (ray_is_valid), or nothing; waits.
  std::optional<std::uint32_t> first_invalid(DeviceSpan<const Ray> rays, StreamHandle stream);

  /// Every (region, slot) whose boxes overlap, named by the slots' generations (0 without
  /// them), sorted by (query, proxy); waits for the count. The regions are valid. Valid until
  /// the next query or build.
  DeviceSpan<const QueryHit> overlap(DeviceSpan<const Aabb> regions, const LeafFilter& filter,
                                     const std::uint32_t* generations, StreamHandle stream);

  /// Each ray's nearest hit (one per ray that hits, in ray order), or with `all_hits` every
  /// hit sorted by (ray, t, slot), named by the slots' generations (0 without them); waits for
  /// the count. Valid until the next cast or build.
  DeviceSpan<const RayHit> cast(DeviceSpan<const Ray> rays, const LeafFilter& filter, bool all_hits,
                                const std::uint32_t* generations, StreamHandle stream);

  /// Hits with box indices in place of ids (for BroadPhase), in device memory: valid until
  /// the next call.
  DeviceSpan<const BoxQueryHit> box_hits(DeviceSpan<const QueryHit> hits, StreamHandle stream);
  DeviceSpan<const BoxRayHit> box_hits(DeviceSpan<const RayHit> hits, StreamHandle stream);

 private:
  TreeView view() const;
  /// The rays' order for a cast (sorted_order_): by the Morton code of their origins.
  void order_rays(DeviceSpan<const Ray> rays, StreamHandle stream);
  /// Sorts the queries' keys and order (ray_keys_, order_) into sorted_order_.
  void sort_order(std::uint32_t count, StreamHandle stream);

  std::uint32_t count_ = 0;
  DeviceBuffer<Aabb> packed_;  // boxes given as six arrays
  DeviceBuffer<TreeLeaf> slot_leaves_;
  DeviceBuffer<std::uint64_t> codes_;
  DeviceBuffer<std::uint64_t> sorted_codes_;
  DeviceBuffer<std::uint32_t> slots_;
  DeviceBuffer<std::uint32_t> sorted_slots_;
  DeviceBuffer<TreeBounds> centres_;
  DeviceBuffer<TreeLeaf> leaves_;
  DeviceBuffer<TreeNode> nodes_;
  DeviceBuffer<std::uint32_t> leaf_parents_;
  DeviceBuffer<std::uint32_t> arrived_;
  DeviceBuffer<std::uint8_t> temp_;
  // A query's order and results.
  DeviceBuffer<std::uint32_t> ray_keys_;
  DeviceBuffer<std::uint32_t> sorted_ray_keys_;
  DeviceBuffer<std::uint32_t> order_;
  DeviceBuffer<std::uint32_t> sorted_order_;
  DeviceBuffer<RayHit> nearest_;
  DeviceBuffer<SlotHit> slot_hits_;
  DeviceBuffer<SlotHit> sorted_hits_;
  DeviceBuffer<RayHit> hits_;
  DeviceBuffer<unsigned long long> counter_;
  DeviceBuffer<std::uint32_t> region_counts_;
  DeviceBuffer<unsigned long long> region_offsets_;
  DeviceBuffer<std::uint32_t> staged_;
  DeviceBuffer<std::uint32_t> crowded_;
  DeviceBuffer<std::uint32_t> region_slots_;
  DeviceBuffer<std::uint32_t> sorted_region_slots_;
  DeviceBuffer<QueryHit> query_hits_;
  DeviceBuffer<std::uint32_t> first_invalid_;
  DeviceBuffer<BoxQueryHit> box_query_hits_;
  DeviceBuffer<BoxRayHit> box_ray_hits_;
};

}  // namespace rsw::physics::detail
