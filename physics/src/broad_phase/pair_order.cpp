#include "pair_order.hpp"

#include <numeric>

#include "rsw/engine/memory.hpp"

namespace rsw::physics::detail {

void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter) {
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> order;
  resize_host(keys, pairs.size(), "the keys of the pairs' sort");
  resize_host(order, pairs.size(), "the order of the pairs' sort");
  std::iota(order.begin(), order.end(), 0u);
  const sort::SortOptions on_cpu{.algorithm = sort::Algorithm::Cpu};
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = pairs[order[i]].b;
  sorter.sort_pairs(keys, order, on_cpu);
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = pairs[order[i]].a;
  sorter.sort_pairs(keys, order, on_cpu);
  std::vector<Pair> sorted;
  resize_host(sorted, pairs.size(), "the sorted pairs");
  for (std::size_t i = 0; i < pairs.size(); ++i)
    sorted[i] = pairs[order[i]];
  pairs.swap(sorted);
}

}  // namespace rsw::physics::detail
