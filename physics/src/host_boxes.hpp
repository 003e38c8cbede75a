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

/// Sorts pairs by (a, b) (a stable LSD radix sort on b, then a).
void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter);

/// Every overlapping pair by testing all of them: O(n^2), the oracle of the tests.
void brute_force_pairs(const HostBoxes& boxes, std::vector<Pair>& pairs);

}  // namespace rsw::physics::detail
