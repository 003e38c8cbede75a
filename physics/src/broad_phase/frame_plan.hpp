// What every backend decides before it sorts: which boxes are valid, the sweep axis and the
// cell grid. The decision is a function of a BoxSummary, which the CPU reduces in a loop and
// the GPU in a kernel; plan_frame() itself runs on both (it is compiled by nvcc for a
// one-thread kernel), so the GPU needs no host round trip to choose its axis and grid.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "rsw/engine/host_device.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/sort/key_mapping.hpp"

namespace rsw::physics::detail {

/// Valid means finite and min <= max on every axis. Written so that NaN fails: every
/// comparison with NaN is false.
RSW_HOST_DEVICE inline bool box_is_valid(const float (&low)[3], const float (&high)[3]) {
  for (int axis = 0; axis < 3; ++axis) {
    if (!(low[axis] <= high[axis]) || !std::isfinite(low[axis]) || !std::isfinite(high[axis])) {
      return false;
    }
  }
  return true;
}

/// The rectangle of cells [u0, u1] x [v0, v1] that a box covers.
struct CellRange {
  std::uint32_t u0, u1, v0, v1;
  /// Cells in it: at most the grid's, which are fewer than 2^22.
  constexpr std::uint32_t size() const { return (u1 - u0 + 1) * (v1 - v0 + 1); }
};

/// The grid of SweepMode::Cells over the two axes other than the sweep axis (u and v).
struct CellGrid {
  int axis_u = 1;
  int axis_v = 2;
  float origin_u = 0;
  float origin_v = 0;
  float inverse_cell_u = 1;  // cells per unit length
  float inverse_cell_v = 1;
  std::uint32_t cells_u = 1;
  std::uint32_t cells_v = 1;

  // constexpr so kernels call them too (--expt-relaxed-constexpr): one grid, host and device.
  constexpr std::uint32_t cells() const { return cells_u * cells_v; }
  constexpr std::uint32_t cell_u(float u) const {
    return index(u, origin_u, inverse_cell_u, cells_u);
  }
  constexpr std::uint32_t cell_v(float v) const {
    return index(v, origin_v, inverse_cell_v, cells_v);
  }
  constexpr std::uint32_t cell_id(std::uint32_t u, std::uint32_t v) const {
    return u * cells_v + v;
  }
  /// The cells a box with these bounds on u and v covers.
  constexpr CellRange cells_of(float min_u, float max_u, float min_v, float max_v) const {
    return {cell_u(min_u), cell_u(max_u), cell_v(min_v), cell_v(max_v)};
  }
  /// Bits of a cell id (cells() - 1 fits).
  constexpr int cell_bits() const { return std::bit_width(cells() - 1); }

  static constexpr std::uint32_t index(float coordinate, float origin, float inverse,
                                       std::uint32_t cells) {
    const float position = (coordinate - origin) * inverse;
    if (!(position > 0.0f)) return 0;  // below the grid, or NaN
    const auto last = static_cast<float>(cells - 1);
    return position >= last ? cells - 1 : static_cast<std::uint32_t>(position);
  }
};

/// A listing's place: its cell in the low 30 bits (cells are fewer than 2^22), bit 30 set
/// when the cell is the first the box covers on u, bit 31 when it is the first on v.
inline constexpr std::uint32_t kCellBits = 0x3FFFFFFFu;
RSW_HOST_DEVICE constexpr std::uint32_t place_of(std::uint32_t cell, bool first_u, bool first_v) {
  return cell | (first_u ? 1u << 30 : 0u) | (first_v ? 1u << 31 : 0u);
}
/// Whether the cell where two overlapping boxes' listings (of these places) meet is their
/// pair's home, the cell holding the larger of the two minimum corners: since cell_u is
/// monotone, that is where one of the two starts on u, and likewise on v. Reporting a pair
/// only there reports it once.
RSW_HOST_DEVICE constexpr bool is_home_cell(std::uint32_t place_a, std::uint32_t place_b) {
  return ((place_a | place_b) >> 30) == 3u;
}

/// Sums over the valid boxes of a frame, and where the invalid ones are. Bounds are kept as
/// ordered keys so that the GPU can merge them with integer atomics.
struct BoxSummary {
  std::uint32_t low_key[3];   ///< ordered_key of the smallest min per axis
  std::uint32_t high_key[3];  ///< ordered_key of the largest max per axis
  double extent_sum[3];       ///< sum of (max - min)
  double centre_sum[3];       ///< sum of (min + max) / 2
  double centre_square_sum[3];
  unsigned long long valid;
  unsigned long long invalid;
  std::uint32_t first_invalid;  ///< kNoBox when every box is valid
  std::uint32_t world_low;      ///< the lowest world id of a valid box (kAllWorlds aside)
  std::uint32_t world_high;     ///< the highest

  static constexpr std::uint32_t kNoBox = 0xFFFFFFFFu;

  /// The identity of the merge: no boxes seen.
  RSW_HOST_DEVICE static BoxSummary empty() {
    BoxSummary summary{};
    for (int axis = 0; axis < 3; ++axis) {
      summary.low_key[axis] = 0xFFFFFFFFu;
      summary.high_key[axis] = 0;
    }
    summary.first_invalid = kNoBox;
    summary.world_low = 0xFFFFFFFFu;
    summary.world_high = 0;
    return summary;
  }

  /// Counts the world of a valid box (ids past kMaxWorld, kAllWorlds among them, count none).
  RSW_HOST_DEVICE void add_world(std::uint32_t world) {
    if (world > kMaxWorld) return;
    world_low = world < world_low ? world : world_low;
    world_high = world > world_high ? world : world_high;
  }

  /// Counts one valid box.
  RSW_HOST_DEVICE void add(const float (&low)[3], const float (&high)[3]) {
    for (int axis = 0; axis < 3; ++axis) {
      const std::uint32_t low_bits = sort::ordered_key(low[axis]);
      const std::uint32_t high_bits = sort::ordered_key(high[axis]);
      low_key[axis] = low_bits < low_key[axis] ? low_bits : low_key[axis];
      high_key[axis] = high_bits > high_key[axis] ? high_bits : high_key[axis];
      const double centre = 0.5 * (double{low[axis]} + double{high[axis]});
      extent_sum[axis] += double{high[axis]} - double{low[axis]};
      centre_sum[axis] += centre;
      centre_square_sum[axis] += centre * centre;
    }
    ++valid;
  }

  /// Adds another summary's boxes to this one.
  RSW_HOST_DEVICE void merge(const BoxSummary& other) {
    for (int axis = 0; axis < 3; ++axis) {
      low_key[axis] = other.low_key[axis] < low_key[axis] ? other.low_key[axis] : low_key[axis];
      high_key[axis] =
          other.high_key[axis] > high_key[axis] ? other.high_key[axis] : high_key[axis];
      extent_sum[axis] += other.extent_sum[axis];
      centre_sum[axis] += other.centre_sum[axis];
      centre_square_sum[axis] += other.centre_square_sum[axis];
    }
    valid += other.valid;
    invalid += other.invalid;
    first_invalid = other.first_invalid < first_invalid ? other.first_invalid : first_invalid;
    world_low = other.world_low < world_low ? other.world_low : world_low;
    world_high = other.world_high > world_high ? other.world_high : world_high;
  }
};

/// How a frame whose boxes carry world ids keeps the worlds apart: each world has cells of
/// its own. A listing's cell is slot << shift | its grid cell, where a world's slot is its id
/// less the frame's lowest, and the boxes of every world (kAllWorlds) take the slot after the
/// highest, `shared`. A run of a sweep then never holds two worlds; the shared slot's boxes
/// are swept among themselves and met by the other worlds' boxes in a pass of their own. Off
/// (no world ids), a listing's cell is its grid cell.
struct WorldCells {
  bool on = false;
  std::uint32_t first = 0;              ///< the lowest world id of the frame
  std::uint32_t shared = 0;             ///< the slot of kAllWorlds boxes
  int shift = 0;                        ///< bits of a grid cell id
  std::uint32_t grid_mask = kCellBits;  ///< a cell's grid cell bits

  /// Bits of a slot: slots 0..shared (kMaxWorld + 1 slots take 25, which leaves the grid 5).
  constexpr int slot_bits() const { return static_cast<int>(std::bit_width(shared)); }
  /// Bits of a listing's cell: the slot's above the grid cell's.
  constexpr int cell_bits() const { return shift + slot_bits(); }
  /// The slot of a box of `world` (an id out of range, which fails the frame, takes the shared).
  constexpr std::uint32_t slot(std::uint32_t world) const {
    return world >= first && world <= kMaxWorld ? world - first : shared;
  }
  /// The cell of a listing in grid cell `grid_cell` of a box of `world`.
  constexpr std::uint32_t cell(std::uint32_t grid_cell, std::uint32_t world) const {
    return on ? slot(world) << shift | grid_cell : grid_cell;
  }
  /// The cell of the shared slot in grid cell `grid_cell`.
  constexpr std::uint32_t shared_cell(std::uint32_t grid_cell) const {
    return shared << shift | grid_cell;
  }
  /// The grid cell of a listing's cell.
  constexpr std::uint32_t grid_cell(std::uint32_t cell) const { return cell & grid_mask; }
  /// Whether a listing's cell is in the shared slot.
  constexpr bool is_shared(std::uint32_t cell) const { return on && cell >> shift == shared; }
};

/// How the GPU's frame for small worlds keys a box (one 32-bit key, one sort for every world):
/// its world's slot (WorldCells::slot) in the high bits, and in the `bits` below them its
/// minimum on the sweep axis in steps over the frame's range (clamped at both ends). Steps
/// are monotone, so boxes in key order are in minimum order inside each world, boxes in one
/// step aside; a box's run (the boxes after it whose step is at most the step of its own
/// maximum) holds every box of its world that overlaps it on the axis, and a few more.
struct WorldKeys {
  int bits = 31;
  float origin = 0;
  float inverse_step = 1;  ///< steps per unit length

  constexpr std::uint32_t step(float coordinate) const {
    return CellGrid::index(coordinate, origin, inverse_step, 1u << bits);
  }
  constexpr std::uint32_t key(std::uint32_t slot, float minimum) const {
    return slot << bits | step(minimum);
  }
  constexpr std::uint32_t slot(std::uint32_t key) const { return key >> bits; }
};

/// The sweep axis and grid of one frame.
struct FramePlan {
  int axis = 0;   ///< 0 = x, 1 = y, 2 = z
  CellGrid grid;  ///< one cell (the whole sweep in one list) in SweepMode::AxisSweep
  WorldCells worlds;
  WorldKeys world_keys;  ///< with worlds
};

/// At most this many cells along a grid axis.
inline constexpr std::uint32_t kMaxCellsPerAxis = 2048;
static_assert(std::uint64_t{kMaxCellsPerAxis} * kMaxCellsPerAxis <= kCellBits, "cells fit");
/// Bits enough for every cell id of a frame of `boxes` boxes, before it is planned: plan_grid
/// makes at most kMaxCellsPerAxis^2 cells, and no more than the valid boxes.
constexpr int max_cell_bits(std::uint64_t boxes) {
  const std::uint64_t most = std::uint64_t{kMaxCellsPerAxis} * kMaxCellsPerAxis;
  const std::uint64_t cells = boxes < most ? boxes : most;
  return cells > 1 ? static_cast<int>(std::bit_width(cells - 1)) : 0;
}
/// Cell size in mean box extents: larger cells list fewer boxes twice, smaller ones sweep
/// shorter lists.
inline constexpr double kMeanSizesPerCell = 2.0;

/// The axis a request names: 0, 1, 2 for x, y, z; -1 for SweepAxis::LargestVariance, which
/// leaves it to the frame.
RSW_HOST_DEVICE constexpr int fixed_axis(SweepAxis axis) {
  switch (axis) {
    case SweepAxis::X: return 0;
    case SweepAxis::Y: return 1;
    case SweepAxis::Z: return 2;
    case SweepAxis::LargestVariance: break;
  }
  return -1;
}

/// The requested axis, or the one along which box centres vary most (sums in double: plenty
/// for choosing an axis).
RSW_HOST_DEVICE inline int plan_axis(const BoxSummary& summary, SweepAxis axis) {
  if (const int fixed = fixed_axis(axis); fixed >= 0) return fixed;
  if (summary.valid == 0) return 0;
  const auto count = static_cast<double>(summary.valid);
  int best = 0;
  double best_variance = -1;
  for (int a = 0; a < 3; ++a) {
    const double mean = summary.centre_sum[a] / count;
    const double variance = summary.centre_square_sum[a] / count - mean * mean;
    if (variance > best_variance) {
      best = a;
      best_variance = variance;
    }
  }
  return best;
}

/// The grid for the frame: about kMeanSizesPerCell mean box sizes per cell, at most
/// kMaxCellsPerAxis along an axis, and no more cells than valid boxes (a box over
/// everything is then listed at most n times) nor than `most_cells`.
RSW_HOST_DEVICE inline CellGrid plan_grid(const BoxSummary& summary, int sweep_axis,
                                          double most_cells = double{kCellBits}) {
  CellGrid grid;
  grid.axis_u = (sweep_axis + 1) % 3;
  grid.axis_v = (sweep_axis + 2) % 3;
  if (summary.valid == 0) return grid;
  const int axes[2] = {grid.axis_u, grid.axis_v};
  double low[2];
  double range[2];
  double cells[2];
  for (int k = 0; k < 2; ++k) {
    low[k] = sort::float_from_key(summary.low_key[axes[k]]);
    range[k] = double{sort::float_from_key(summary.high_key[axes[k]])} - low[k];
    const double mean_extent = summary.extent_sum[axes[k]] / static_cast<double>(summary.valid);
    const double by_size = kMeanSizesPerCell * mean_extent;
    const double by_limit = range[k] / kMaxCellsPerAxis;
    const double cell = by_size > by_limit ? by_size : by_limit;
    cells[k] = 1.0;
    if (cell > 0) cells[k] = fmin(fmax(floor(range[k] / cell), 1.0), double{kMaxCellsPerAxis});
  }
  const double boxes = static_cast<double>(summary.valid);
  const double limit = boxes < most_cells ? boxes : most_cells;
  if (cells[0] * cells[1] > limit) {
    const double shrink = sqrt(limit / (cells[0] * cells[1]));
    cells[0] = fmax(1.0, floor(cells[0] * shrink));
    cells[1] = fmax(1.0, floor(cells[1] * shrink));
    // A side that shrank below one cell leaves the other the whole limit.
    if (cells[0] * cells[1] > limit) {
      if (cells[0] == 1.0) {
        cells[1] = fmax(1.0, floor(limit));
      } else {
        cells[0] = fmax(1.0, floor(limit / cells[1]));
      }
    }
  }
  grid.origin_u = static_cast<float>(low[0]);
  grid.origin_v = static_cast<float>(low[1]);
  grid.cells_u = static_cast<std::uint32_t>(cells[0]);
  grid.cells_v = static_cast<std::uint32_t>(cells[1]);
  grid.inverse_cell_u = static_cast<float>(cells[0] / fmax(range[0], 1e-30));
  grid.inverse_cell_v = static_cast<float>(cells[1] / fmax(range[1], 1e-30));
  return grid;
}

/// Axis and grid (a single cell in SweepMode::AxisSweep), and with `worlds` (the boxes carry
/// world ids) the worlds' cells: the slots' bits and the grid's together fit kCellBits.
RSW_HOST_DEVICE inline FramePlan plan_frame(const BoxSummary& summary, SweepAxis axis,
                                            SweepMode mode, bool worlds = false) {
  FramePlan plan;
  plan.axis = plan_axis(summary, axis);
  double most_cells = double{kCellBits};
  if (worlds) {
    plan.worlds.on = true;
    if (summary.world_low <= summary.world_high) {
      plan.worlds.first = summary.world_low;
      plan.worlds.shared = summary.world_high - summary.world_low + 1;
    }
    most_cells = static_cast<double>(1u << (30 - plan.worlds.slot_bits()));
  }
  if (mode == SweepMode::Cells) {
    plan.grid = plan_grid(summary, plan.axis, most_cells);
  } else {
    plan.grid.axis_u = (plan.axis + 1) % 3;
    plan.grid.axis_v = (plan.axis + 2) % 3;
  }
  if (worlds) {
    plan.worlds.shift = plan.grid.cell_bits();
    plan.worlds.grid_mask = (1u << plan.worlds.shift) - 1u;
    // Slots 0..shared in the high bits (none in the top bit when there is one slot).
    const int slot_bits = plan.worlds.slot_bits();
    WorldKeys& keys = plan.world_keys;
    keys.bits = slot_bits > 1 ? 32 - slot_bits : 31;
    if (summary.valid > 0) {
      const double low = sort::float_from_key(summary.low_key[plan.axis]);
      const double high = sort::float_from_key(summary.high_key[plan.axis]);
      keys.origin = static_cast<float>(low);
      keys.inverse_step =
          static_cast<float>(static_cast<double>((1u << keys.bits) - 1u) / fmax(high - low, 1e-30));
    }
  }
  return plan;
}

/// The GPU's frame for worlds whose boxes come in runs (each world's boxes together in the
/// user's order; kAllWorlds boxes anywhere): a block a run sorts the run's boxes with the
/// shared ones in shared memory and sweeps them. Boxes a block holds at most: its run's stretch
/// of the user's order and the shared boxes (36 KiB of shared memory at 72 bytes a box).
inline constexpr std::uint32_t kRunRoom = 512;

/// Threads of a block of the world-runs frame for `room` boxes: a warp up to 32 boxes, twice
/// as many for each doubling, up to 256 (a thread then sorts and sweeps two boxes).
constexpr std::uint32_t run_block_threads(std::uint32_t room) {
  std::uint32_t threads = 32;
  while (threads < room && threads < 256)
    threads *= 2;
  return threads;
}

/// The world-runs frame's sweep axis: the requested one, or the one along which the worlds'
/// boxes spread most (`spread`: per axis, the sum over sampled worlds of their box centres'
/// squared deviations from the world's mean); `last` when nothing was sampled.
constexpr int plan_run_axis(const float (&spread)[3], SweepAxis requested, int last) {
  if (const int fixed = fixed_axis(requested); fixed >= 0) return fixed;
  if (!(spread[0] > 0.0f) && !(spread[1] > 0.0f) && !(spread[2] > 0.0f)) return last;
  int best = 0;
  for (int axis = 1; axis < 3; ++axis) {
    if (spread[axis] > spread[best]) best = axis;
  }
  return best;
}

}  // namespace rsw::physics::detail
