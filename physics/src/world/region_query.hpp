// Region queries (World::query) as one broad-phase frame of two kinds of box: the regions
// first, then every slot's box, with filter bits that let a region pair only with a proxy
// (and a proxy only with a region) whose category the query's mask admits, and world ids
// that keep a query of one world to it. Every backend runs that frame with its own sweep, so
// a query is exact as the pairs are (closed boxes, invalid boxes meeting nothing), and its
// pairs, sorted by (a, b), are (region, regions + slot) in (region, slot) order.
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

/// The world ids the query frame takes: none for a query of every world (then every region
/// meets every proxy, as all boxes are in world 0), else the frame's (the regions in the
/// query's world: they meet its proxies and the kAllWorlds ones). Regions in kAllWorlds would
/// be shared geometry, which every world's boxes walk in their cells.
template <class Span>
Span queried_worlds(const QueryOptions& options, Span worlds) {
  return options.world == kAllWorlds ? Span{} : worlds;
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
