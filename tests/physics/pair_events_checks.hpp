// Pair sets for the tests of a world's events: random sets sorted by (a, b), and the
// oracle, which diffs them through std::set.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "rsw/physics/aabb.hpp"

namespace rsw::test {

/// `count` distinct pairs a < b of indices below `objects`, sorted by (a, b).
inline std::vector<physics::Pair> make_pair_set(std::size_t count, std::uint32_t objects,
                                                std::mt19937& generator) {
  std::uniform_int_distribution<std::uint32_t> index(0, objects - 1);
  std::set<physics::Pair> pairs;
  while (pairs.size() < count) {
    const std::uint32_t x = index(generator);
    const std::uint32_t y = index(generator);
    if (x != y) pairs.insert({std::min(x, y), std::max(x, y)});
  }
  return {pairs.begin(), pairs.end()};
}

/// `set` with each pair kept with probability `keep`, plus `added` new pairs: the next step.
inline std::vector<physics::Pair> next_pair_set(const std::vector<physics::Pair>& set, double keep,
                                                std::size_t added, std::uint32_t objects,
                                                std::mt19937& generator) {
  std::bernoulli_distribution kept(keep);
  std::set<physics::Pair> next;
  for (const physics::Pair& pair : set) {
    if (kept(generator)) next.insert(pair);
  }
  for (const physics::Pair& pair : make_pair_set(added, objects, generator))
    next.insert(pair);
  return {next.begin(), next.end()};
}

/// Two consecutive steps' pair sets: `count` random pairs, then each kept with probability
/// `keep` and a third as many new ones added.
struct ConsecutiveSets {
  std::vector<physics::Pair> previous;
  std::vector<physics::Pair> current;
};

inline ConsecutiveSets consecutive_sets(std::size_t count, double keep, std::mt19937& generator) {
  const auto objects = static_cast<std::uint32_t>(count + 2);
  ConsecutiveSets sets{.previous = make_pair_set(count, objects, generator)};
  sets.current = next_pair_set(sets.previous, keep, count / 3 + 1, objects, generator);
  return sets;
}

/// The oracle: the pairs of `from` that `without` lacks, sorted by (a, b).
inline std::vector<physics::Pair> oracle_difference(const std::vector<physics::Pair>& from,
                                                    const std::vector<physics::Pair>& without) {
  const std::set<physics::Pair> excluded(without.begin(), without.end());
  std::vector<physics::Pair> difference;
  for (const physics::Pair& pair : from) {
    if (!excluded.contains(pair)) difference.push_back(pair);
  }
  return difference;
}

}  // namespace rsw::test
