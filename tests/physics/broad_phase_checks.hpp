// Broad-phase results compared as sets with the brute-force oracle.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rsw/physics/broad_phase.hpp"
#include "rsw/workloads/box_scenes.hpp"

namespace rsw::test {

using namespace rsw::workloads;  // the shared scenes and keys, unqualified in the tests

inline std::vector<physics::Pair> sorted_copy(physics::PairView pairs) {
  std::vector<physics::Pair> copy(pairs.begin(), pairs.end());
  std::ranges::sort(copy);
  return copy;
}

inline std::vector<physics::Pair> oracle_pairs(const std::vector<physics::Aabb>& boxes,
                                               physics::FilterArrays filter = {}) {
  physics::BroadPhase oracle({.brute_force = true});
  oracle.update(boxes, filter);
  return sorted_copy(oracle.find_pairs());
}

/// Every pair is a < b, appears once, and the set equals the oracle's.
inline ::testing::AssertionResult same_pair_set(const std::vector<physics::Pair>& expected,
                                                physics::PairView actual) {
  for (const physics::Pair& pair : actual) {
    if (pair.a >= pair.b) {
      return ::testing::AssertionFailure()
             << "pair (" << pair.a << ", " << pair.b << ") has a >= b";
    }
  }
  const std::vector<physics::Pair> got = sorted_copy(actual);
  if (std::ranges::adjacent_find(got) != got.end()) {
    return ::testing::AssertionFailure() << "a pair is reported twice";
  }
  if (got == expected) return ::testing::AssertionSuccess();
  std::vector<physics::Pair> missing;
  std::vector<physics::Pair> extra;
  std::ranges::set_difference(expected, got, std::back_inserter(missing));
  std::ranges::set_difference(got, expected, std::back_inserter(extra));
  auto failure = ::testing::AssertionFailure();
  failure << got.size() << " pairs, expected " << expected.size() << "; " << missing.size()
          << " missing, " << extra.size() << " extra";
  if (!missing.empty())
    failure << "; first missing (" << missing[0].a << ", " << missing[0].b << ")";
  if (!extra.empty()) failure << "; first extra (" << extra[0].a << ", " << extra[0].b << ")";
  return failure;
}

}  // namespace rsw::test
