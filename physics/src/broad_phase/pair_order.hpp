// Pairs in (a, b) order on the host, for BroadPhaseOptions::sorted_pairs, and grouped by
// world, for BroadPhaseOptions::group_by_world.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "frame_plan.hpp"

#include "rsw/physics/aabb.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::physics::detail {

/// Sorts pairs by (a, b) (a stable LSD radix sort on b, then a).
void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter);

/// The worlds that world_pair_offsets covers: ids 0 to the largest of a valid box, or 1
/// (world 0) when the boxes carry no world ids and some are valid.
RSW_HOST_DEVICE inline std::uint32_t worlds_present(const BoxSummary& summary, bool world_ids) {
  if (!world_ids) return summary.valid > 0 ? 1u : 0u;
  return summary.world_low <= summary.world_high ? summary.world_high + 1 : 0u;
}

/// The world a pair belongs to, given its boxes' worlds: theirs, the other's when one is
/// kAllWorlds, `shared_key` (past every world's) when both are.
RSW_HOST_DEVICE constexpr std::uint32_t pair_world(std::uint32_t world_a, std::uint32_t world_b,
                                                   std::uint32_t shared_key) {
  if (world_a != kAllWorlds) return world_a;
  return world_b != kAllWorlds ? world_b : shared_key;
}

/// Sorts pairs by (world, a, b) and writes `offsets`: `worlds` + 1 entries, world w's pairs
/// at [offsets[w], offsets[w + 1]), the pairs of two kAllWorlds boxes after offsets.back().
/// `box_worlds` holds each box's world (empty: all in world 0).
void group_pairs_by_world(std::vector<Pair>& pairs, std::span<const std::uint32_t> box_worlds,
                          std::uint32_t worlds, std::vector<std::uint32_t>& offsets,
                          sort::Sorter& sorter);

}  // namespace rsw::physics::detail
