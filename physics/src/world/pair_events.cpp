#include "pair_events.hpp"

#include <algorithm>
#include <iterator>

namespace rsw::physics::detail {

void find_pair_events(std::span<const Pair> previous, std::span<const Pair> current,
                      std::vector<Pair>& found, std::vector<Pair>& lost) {
  found.clear();
  lost.clear();
  std::ranges::set_difference(current, previous, std::back_inserter(found));
  std::ranges::set_difference(previous, current, std::back_inserter(lost));
}

}  // namespace rsw::physics::detail
