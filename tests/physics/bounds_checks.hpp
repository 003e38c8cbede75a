// Random spheres and point sets of awkward sizes for the bounds tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "rsw/physics/bounds.hpp"

namespace rsw::test {

struct Spheres {
  std::vector<float> x, y, z, radius;
  physics::SphereArrays view() const { return {x, y, z, radius}; }
};

inline Spheres make_spheres(std::size_t count, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> position(-100.0f, 100.0f);
  std::uniform_real_distribution<float> size(0.0f, 3.0f);
  Spheres spheres;
  for (std::size_t i = 0; i < count; ++i) {
    spheres.x.push_back(position(generator));
    spheres.y.push_back(position(generator));
    spheres.z.push_back(position(generator));
    spheres.radius.push_back(i % 17 == 0 ? 0.0f : size(generator));
  }
  return spheres;
}

/// Objects of `sizes[k]` points each, around random centres.
struct PointSets {
  std::vector<float> x, y, z;
  std::vector<std::uint32_t> first{0};
  physics::PointSetArrays view() const { return {x, y, z, first}; }
};

inline PointSets make_point_sets(const std::vector<std::uint32_t>& sizes, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> position(-100.0f, 100.0f);
  std::normal_distribution<float> spread(0.0f, 2.0f);
  PointSets sets;
  for (const std::uint32_t size : sizes) {
    const float centre[3] = {position(generator), position(generator), position(generator)};
    for (std::uint32_t p = 0; p < size; ++p) {
      sets.x.push_back(centre[0] + spread(generator));
      sets.y.push_back(centre[1] + spread(generator));
      sets.z.push_back(centre[2] + spread(generator));
    }
    sets.first.push_back(static_cast<std::uint32_t>(sets.x.size()));
  }
  return sets;
}

/// Sizes 0, 1, 31, 32, 33, 1000 and random ones, `objects` in all.
inline std::vector<std::uint32_t> awkward_object_sizes(std::size_t objects, std::uint32_t seed) {
  const std::uint32_t fixed[] = {0, 1, 31, 32, 33, 1000};
  std::mt19937 generator(seed);
  std::vector<std::uint32_t> sizes;
  for (std::size_t k = 0; k < objects; ++k)
    sizes.push_back(k < std::size(fixed) ? fixed[k] : static_cast<std::uint32_t>(generator() % 70));
  std::ranges::shuffle(sizes, generator);
  return sizes;
}

}  // namespace rsw::test
