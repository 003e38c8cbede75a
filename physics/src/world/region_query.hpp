// Region queries (World::query) as one broad-phase frame of two kinds of box: the regions
// first, then every slot's box, with filter bits that let a region pair only with a proxy
// (and a proxy only with a region) whose category the query's mask admits, and world ids that
// keep the query to its world. Every backend runs that frame with its own sweep, so a query is
// exact as the pairs are (closed boxes, invalid boxes meeting nothing), and its pairs, sorted
// by (a, b), are (region, regions + slot) in (region, slot) order.
#pragma once

#include <cstdint>

#include "../broad_phase/sweep_backend.hpp"
#include "rsw/engine/host_device.hpp"
#include "rsw/physics/world.hpp"

namespace rsw::physics::detail {

/// A region's filter bits in the query frame: it pairs with proxies only.
inline constexpr std::uint32_t kRegionCategory = 2;
inline constexpr std::uint32_t kRegionMask = 1;
/// A proxy's mask there: it pairs with regions only.
inline constexpr std::uint32_t kProxyMask = 2;

/// A slot's category in the query frame: 1 for a live proxy whose category `mask` admits,
/// else 0 (it pairs with nothing).
RSW_HOST_DEVICE constexpr std::uint32_t queried_category(bool live, std::uint32_t category,
                                                         std::uint32_t mask) {
  return live && (category & mask) != 0 ? 1u : 0u;
}

/// The query frame's request: sorted pairs, invalid slot boxes excluded (the regions are
/// checked before), no stage times.
inline FrameRequest query_request(const WorldOptions& world, rsw::Backend backend,
                                  StreamHandle stream) {
  return {.axis = world.axis,
          .mode = SweepMode::Cells,
          .invalid_boxes = InvalidBoxes::Exclude,
          .sort = sort_for_backend(world.sort, backend),
          .sorted_pairs = true,
          .stage_times = false,
          .stream = stream};
}

}  // namespace rsw::physics::detail
