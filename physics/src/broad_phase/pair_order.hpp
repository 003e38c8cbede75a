// Pairs in (a, b) order on the host, for BroadPhaseOptions::sorted_pairs.
#pragma once

#include <vector>

#include "rsw/physics/aabb.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::physics::detail {

/// Sorts pairs by (a, b) (a stable LSD radix sort on b, then a).
void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter);

}  // namespace rsw::physics::detail
