// The CPU paths' fork-join: `items` split into contiguous parts, one thread each. Each part
// does what a single thread would do for its range, so results never depend on the count of
// threads when parts write disjoint outputs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace rsw::physics::detail {

/// Calls part(first, last) over [0, items) on up to `threads` threads (0: one per hardware
/// thread), each range at least `grain` items long; the calling thread takes the first part.
template <class Part>
void for_each_part(std::size_t items, std::size_t grain, Part&& part, int threads = 0) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t wanted = threads > 0 ? static_cast<std::size_t>(threads) : hardware;
  const std::size_t parts =
      std::clamp<std::size_t>(wanted, 1, std::max<std::size_t>(items / std::max<std::size_t>(grain, 1), 1));
  if (parts == 1) return part(std::size_t{0}, items);
  std::vector<std::jthread> pool;
  for (std::size_t k = 1; k < parts; ++k)
    pool.emplace_back([&part, k, parts, items] { part(items * k / parts, items * (k + 1) / parts); });
  part(std::size_t{0}, items / parts);
}

}  // namespace rsw::physics::detail
