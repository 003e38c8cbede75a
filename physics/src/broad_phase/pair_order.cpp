#include "pair_order.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "rsw/engine/error.hpp"
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

void group_pairs_by_world(std::vector<Pair>& pairs, std::span<const std::uint32_t> box_worlds,
                          std::uint32_t worlds, std::vector<std::uint32_t>& offsets,
                          sort::Sorter& sorter) {
  if (pairs.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(ErrorKind::OutOfMemory,
                std::to_string(pairs.size()) + " pairs: too many to group with 32-bit offsets");
  }
  sort_pairs_lexicographically(pairs, sorter);
  resize_host(offsets, std::size_t{worlds} + 1, "the offsets of the worlds' pairs");
  if (box_worlds.empty()) {  // every pair in world 0
    std::ranges::fill(offsets, 0u);
    if (worlds > 0) offsets[1] = static_cast<std::uint32_t>(pairs.size());
    return;
  }
  // A stable sort by world keeps (a, b) order inside each world.
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> order;
  resize_host(keys, pairs.size(), "the worlds of the pairs");
  resize_host(order, pairs.size(), "the order of the pairs by world");
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = pair_world(box_worlds[pairs[i].a], box_worlds[pairs[i].b], worlds);
  sorter.sort_pairs(keys, order, {.algorithm = sort::Algorithm::Cpu});
  std::vector<Pair> grouped;
  resize_host(grouped, pairs.size(), "the pairs grouped by world");
  for (std::size_t i = 0; i < pairs.size(); ++i)
    grouped[i] = pairs[order[i]];
  pairs.swap(grouped);
  // keys are in order now (sorted with `order`): offsets[w] is the first key >= w.
  std::size_t first = 0;
  for (std::uint32_t w = 0; w <= worlds; ++w) {
    while (first < keys.size() && keys[first] < w)
      ++first;
    offsets[w] = static_cast<std::uint32_t>(first);
  }
}

}  // namespace rsw::physics::detail
