// Random bodies for the dynamics tests, as owned arrays with SphereBodies views.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "rsw/physics/dynamics.hpp"

namespace rsw::physics::testing {

/// Owned body arrays: x, y, z, vx, vy, vz, mass, radius.
struct BodySet {
  std::array<std::vector<float>, 8> arrays;

  std::size_t size() const { return arrays[0].size(); }
  SphereBodies view() const {
    return {arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], arrays[5], arrays[6], arrays[7]};
  }
};

/// `count` bodies in a cube of side `side`, speeds up to 0.1, masses 0.5 .. 1.5, radii
/// `radius`.
inline BodySet random_bodies(std::size_t count, float side, float radius, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  BodySet set;
  for (auto& array : set.arrays)
    array.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      set.arrays[axis][i] = side * unit(generator);
      set.arrays[3 + axis][i] = 0.2f * unit(generator) - 0.1f;
    }
    set.arrays[6][i] = 0.5f + unit(generator);
    set.arrays[7][i] = radius;
  }
  return set;
}

/// Every pair of spheres whose boxes overlap, (a, b) with a < b, by brute force.
inline std::vector<Pair> overlapping_pairs(const BodySet& set) {
  std::vector<Pair> pairs;
  const auto& [x, y, z, vx, vy, vz, mass, radius] = set.arrays;
  for (std::uint32_t a = 0; a < set.size(); ++a) {
    for (std::uint32_t b = a + 1; b < set.size(); ++b) {
      const float reach = radius[a] + radius[b];
      if (std::abs(x[a] - x[b]) <= reach && std::abs(y[a] - y[b]) <= reach &&
          std::abs(z[a] - z[b]) <= reach) {
        pairs.push_back({a, b});
      }
    }
  }
  return pairs;
}

}  // namespace rsw::physics::testing
