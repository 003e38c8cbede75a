// The events between two steps of a world on the host: which pairs began overlapping (found)
// and which ended (lost), as the difference of the two steps' pair sets. Both sets are sorted
// by (a, b) and hold each pair once, so the difference is a merge (std::set_difference). (The
// GPU backend needs no order: it re-tests each pair against the other step's boxes.)
#pragma once

#include <span>
#include <vector>

#include "rsw/physics/aabb.hpp"

namespace rsw::physics::detail {

/// found = current \ previous and lost = previous \ current, each sorted by (a, b). Both
/// inputs must be sorted by (a, b) without repeats.
void find_pair_events(std::span<const Pair> previous, std::span<const Pair> current,
                      std::vector<Pair>& found, std::vector<Pair>& lost);

}  // namespace rsw::physics::detail
