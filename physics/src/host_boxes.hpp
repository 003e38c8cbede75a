// Boxes on the host as the broad phase keeps them: structure-of-arrays with the effective
// filter bits (invalid boxes excluded by a category of 0), plus the helpers every backend
// shares: validation, axis choice, pair ordering.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::physics::detail {

struct HostBoxes {
  std::array<std::vector<float>, 3> min;  // [axis][box]
  std::array<std::vector<float>, 3> max;
  std::vector<std::uint32_t> categories;  // 0 for an excluded box: it pairs with nothing
  std::vector<std::uint32_t> masks;

  std::size_t size() const noexcept { return min[0].size(); }
};

/// Copies boxes and filter bits into `out`, checking them. Returns the number of boxes
/// excluded; with InvalidBoxes::Reject the first invalid box throws rsw::Error naming it.
std::size_t load_boxes(std::span<const Aabb> boxes, FilterArrays filter, InvalidBoxes policy,
                       HostBoxes& out);
std::size_t load_boxes(const AabbArrays& boxes, FilterArrays filter, InvalidBoxes policy,
                       HostBoxes& out);

/// 0, 1 or 2: the requested axis, or the one along which box centres vary most.
int choose_axis(const HostBoxes& boxes, SweepAxis axis);

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

  std::uint32_t cells() const { return cells_u * cells_v; }
  // constexpr so kernels call them too (--expt-relaxed-constexpr): one grid, host and device.
  constexpr std::uint32_t cell_u(float u) const {
    return index(u, origin_u, inverse_cell_u, cells_u);
  }
  constexpr std::uint32_t cell_v(float v) const {
    return index(v, origin_v, inverse_cell_v, cells_v);
  }
  constexpr std::uint32_t cell_id(std::uint32_t u, std::uint32_t v) const {
    return u * cells_v + v;
  }

  static constexpr std::uint32_t index(float coordinate, float origin, float inverse,
                                       std::uint32_t cells) {
    const float position = (coordinate - origin) * inverse;
    if (!(position > 0.0f)) return 0;  // below the grid, or NaN
    const auto last = static_cast<float>(cells - 1);
    return position >= last ? cells - 1 : static_cast<std::uint32_t>(position);
  }
  /// Bits of a cell id (cells() - 1 fits).
  int cell_bits() const;
};

/// The grid for this frame: about two mean box sizes per cell, no more cells than boxes,
/// at most kMaxCellsPerAxis along an axis. Excluded boxes do not count.
CellGrid choose_grid(const HostBoxes& boxes, int sweep_axis);

/// Sorts pairs by (a, b) (a stable LSD radix sort on b, then a).
void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter);

/// Every overlapping pair by testing all of them: O(n^2), the oracle of the tests.
void brute_force_pairs(const HostBoxes& boxes, std::vector<Pair>& pairs);

}  // namespace rsw::physics::detail
