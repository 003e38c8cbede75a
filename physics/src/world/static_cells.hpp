// A world's static proxies, listed once in the cells of a grid planned from them, and the
// look-up of a moving box in those cells. The CPU and the GPU build the same listing (keys by
// listing_key(), sorted) and run the same query (query_static_cells), compiled for both.
//
// In each cell the listings are sorted by their minimum on the sweep axis s. A moving box m
// pairs with a static box t of the cell when they overlap on s, u and v and the cell is the
// pair's home (the one holding the larger of the two minimum corners, as in the sweep). The
// statics that overlap m on s start by m.max_s and end at or after m.min_s. Each small static
// (extent at most `small_extent`) carries its reach, the largest max_s of its cell's small
// listings up to it: the walk finds the first whose reach gets to m.min_s (a binary search;
// none before it can overlap m) and goes forward to m.max_s. The few longer statics (a ground
// plane, a wall), which would stretch every reach after them, are listed apart and each
// cell's are all tested, up to m.max_s.
#pragma once

#include <bit>
#include <cstdint>

#include "../broad_phase/frame_plan.hpp"
#include "rsw/engine/host_device.hpp"
#include "rsw/sort/key_mapping.hpp"

namespace rsw::physics::detail {

/// A box's corners as the plan and the look-up read them: low[axis], high[axis].
RSW_HOST_DEVICE inline void corners(const Aabb& box, float (&low)[3], float (&high)[3]) {
  low[0] = box.min.x;
  low[1] = box.min.y;
  low[2] = box.min.z;
  high[0] = box.max.x;
  high[1] = box.max.y;
  high[2] = box.max.z;
}

/// A proxy's listing in one cell: 32 bytes, one sector. The GPU lists moving proxies in the
/// static cells this way too.
struct alignas(16) StaticListing {
  float min_u, max_u;
  float min_v, max_v;
  float min_s, max_s;   ///< on the sweep axis
  std::uint32_t slot;   ///< the proxy
  std::uint32_t place;  ///< a small static's reach (see reach_of); a moving listing's cell and
                        ///< where its box starts (GPU)
};

/// A small static listing's reach: the largest max_s of its cell's small listings up to and
/// including it. Reaches rise along a cell's run, and a box that starts on s after a listing's
/// reach overlaps none of the listings up to it.
RSW_HOST_DEVICE inline float reach_of(const StaticListing& listing) {
  return std::bit_cast<float>(listing.place);
}

/// Sets the reaches of the small listings [begin, end) of one cell.
RSW_HOST_DEVICE inline void mark_reaches(StaticListing* listings, std::uint32_t begin,
                                         std::uint32_t end) {
  float reach = 0;
  for (std::uint32_t j = begin; j < end; ++j) {
    const float max_s = listings[j].max_s;
    reach = j == begin || max_s > reach ? max_s : reach;
    listings[j].place = std::bit_cast<std::uint32_t>(reach);
  }
}
static_assert(sizeof(StaticListing) == 32, "a listing is one sector");

/// Where the static listings lie and how to read them, on the host or the device.
struct StaticCellsView {
  CellGrid grid;
  int axis = 0;             ///< the sweep axis s
  float small_extent = 0;   ///< statics with min_s >= max_s - small_extent are "small"
  std::uint32_t cells = 0;  ///< grid.cells(), or 0 with no statics listed
  /// Cell c's small listings are listings[small_start[c], small_start[c + 1]), its long ones
  /// listings[long_start[c], long_start[c + 1]); each run sorted by min_s.
  const std::uint32_t* small_start = nullptr;
  const std::uint32_t* long_start = nullptr;
  const StaticListing* listings = nullptr;
  /// Filter bits and worlds by slot (no worlds: every proxy in world 0).
  const std::uint32_t* categories = nullptr;
  const std::uint32_t* masks = nullptr;
  const std::uint32_t* worlds = nullptr;
};

/// Whether a static box is short enough on s for the backward scan. Evaluated in float the way
/// the scan's bound is, so that the scan finds every small static that reaches the moving box.
RSW_HOST_DEVICE inline bool is_small_static(float min_s, float max_s, float small_extent) {
  return min_s >= max_s - small_extent;
}

/// The sort key of a listing: long statics after every small one, then by cell, then by min_s.
RSW_HOST_DEVICE inline std::uint64_t listing_key(bool small, std::uint32_t cell, int cell_bits,
                                                 float min_s) {
  const std::uint64_t long_bit = small ? 0 : std::uint64_t{1} << (32 + cell_bits);
  return long_bit | std::uint64_t{cell} << 32 | sort::ordered_key(min_s);
}

/// The first key of cell c's small (or long) listings: where its run starts in sorted keys.
RSW_HOST_DEVICE inline std::uint64_t first_key_of(bool small, std::uint32_t cell, int cell_bits) {
  const std::uint64_t long_bit = small ? 0 : std::uint64_t{1} << (32 + cell_bits);
  return long_bit | std::uint64_t{cell} << 32;
}

/// The listing of static box [low, high] in the grid's terms.
RSW_HOST_DEVICE inline StaticListing make_listing(const StaticCellsView& statics,
                                                  const float (&low)[3], const float (&high)[3],
                                                  std::uint32_t slot) {
  const int u = statics.grid.axis_u;
  const int v = statics.grid.axis_v;
  const int s = statics.axis;
  return {low[u], high[u], low[v], high[v], low[s], high[s], slot, 0};
}

/// A moving box as the look-up reads it: its bounds in the grid's terms and its filter bits.
struct MovingQuery {
  float min_u, max_u;
  float min_v, max_v;
  float min_s, max_s;
  std::uint32_t category;
  std::uint32_t mask;
  std::uint32_t world;
};

RSW_HOST_DEVICE inline MovingQuery make_query(const StaticCellsView& statics, const float (&low)[3],
                                              const float (&high)[3], std::uint32_t category,
                                              std::uint32_t mask, std::uint32_t world) {
  const int u = statics.grid.axis_u;
  const int v = statics.grid.axis_v;
  const int s = statics.axis;
  return {low[u], high[u], low[v], high[v], low[s], high[s], category, mask, world};
}

/// Whether the moving box and static listing t, met in `cell`, overlap on every axis and the
/// cell is their pair's home.
RSW_HOST_DEVICE inline bool meets_in_cell(const StaticCellsView& statics, std::uint32_t cell,
                                          const MovingQuery& m, const StaticListing& t) {
  if (!(t.min_s <= m.max_s && m.min_s <= t.max_s && t.min_u <= m.max_u && m.min_u <= t.max_u &&
        t.min_v <= m.max_v && m.min_v <= t.max_v)) {
    return false;
  }
  const CellGrid& grid = statics.grid;
  const float home_u = t.min_u > m.min_u ? t.min_u : m.min_u;
  const float home_v = t.min_v > m.min_v ? t.min_v : m.min_v;
  return grid.cell_id(grid.cell_u(home_u), grid.cell_v(home_v)) == cell;
}

/// Whether the moving box and the proxy in `slot` pass each other's filter bits and worlds.
RSW_HOST_DEVICE inline bool admits(const StaticCellsView& statics, const MovingQuery& m,
                                   std::uint32_t slot) {
  return filters_pass(m.category, m.mask, statics.categories[slot], statics.masks[slot]) &&
         (statics.worlds == nullptr || worlds_meet(m.world, statics.worlds[slot]));
}

/// Whether the moving box and static listing t, met in `cell`, make a pair reported there:
/// they meet there and their filter bits and worlds admit it.
RSW_HOST_DEVICE inline bool pairs_in_cell(const StaticCellsView& statics, std::uint32_t cell,
                                          const MovingQuery& m, const StaticListing& t) {
  return meets_in_cell(statics, cell, m, t) && admits(statics, m, t.slot);
}

/// Calls report(slot) for every static proxy that the moving box overlaps, each once (one
/// thread; the GPU runs a warp-wide form of the same walk). Returns the candidates tested.
template <class Report>
RSW_HOST_DEVICE std::uint32_t query_static_cells(const StaticCellsView& statics,
                                                 const MovingQuery& m, Report&& report) {
  if (statics.cells == 0) return 0;
  const CellGrid& grid = statics.grid;
  std::uint32_t candidates = 0;
  const CellRange range = grid.cells_of(m.min_u, m.max_u, m.min_v, m.max_v);
  for (std::uint32_t cu = range.u0; cu <= range.u1; ++cu) {
    for (std::uint32_t cv = range.v0; cv <= range.v1; ++cv) {
      const std::uint32_t cell = grid.cell_id(cu, cv);
      const auto test = [&](const StaticListing& t) {
        ++candidates;
        if (pairs_in_cell(statics, cell, m, t)) report(t.slot);
      };
      // Small statics: from the first whose reach gets to m's min_s (none before can overlap
      // m) to the last starting by max_s.
      std::uint32_t first = statics.small_start[cell];
      std::uint32_t high_index = statics.small_start[cell + 1];
      const std::uint32_t end = high_index;
      while (first < high_index) {
        const std::uint32_t middle = first + (high_index - first) / 2;
        if (reach_of(statics.listings[middle]) < m.min_s) {
          first = middle + 1;
        } else {
          high_index = middle;
        }
      }
      for (std::uint32_t j = first; j < end && statics.listings[j].min_s <= m.max_s; ++j) {
        test(statics.listings[j]);
      }
      // Long statics: all of the cell's that start by max_s.
      const std::uint32_t long_end = statics.long_start[cell + 1];
      for (std::uint32_t j = statics.long_start[cell];
           j < long_end && statics.listings[j].min_s <= m.max_s; ++j) {
        test(statics.listings[j]);
      }
    }
  }
  return candidates;
}

/// The extent below which statics count as small: twice their mean extent on s.
RSW_HOST_DEVICE inline float small_extent_of(const BoxSummary& summary, int axis) {
  if (summary.valid == 0) return 0;
  return static_cast<float>(2.0 * summary.extent_sum[axis] / static_cast<double>(summary.valid));
}

/// The pair of slots x and y, the smaller first.
RSW_HOST_DEVICE inline Pair ordered_pair(std::uint32_t x, std::uint32_t y) {
  return x < y ? Pair{x, y} : Pair{y, x};
}

/// The pair of slots x and y as one key that sorts as (a, b) does: the smaller slot above the
/// larger, each in `slot_bits` bits (so that a sort need look at 2 * slot_bits bits only).
RSW_HOST_DEVICE inline std::uint64_t pair_key(std::uint32_t x, std::uint32_t y, int slot_bits) {
  return x < y ? std::uint64_t{x} << slot_bits | y : std::uint64_t{y} << slot_bits | x;
}

/// The slots of a pair_key.
RSW_HOST_DEVICE inline Pair pair_of_key(std::uint64_t key, int slot_bits) {
  return {static_cast<std::uint32_t>(key >> slot_bits),
          static_cast<std::uint32_t>(key & ((std::uint64_t{1} << slot_bits) - 1))};
}

}  // namespace rsw::physics::detail
