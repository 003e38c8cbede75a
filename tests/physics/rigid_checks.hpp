// Rigid bodies for the tests, as owned arrays with RigidBodies views, and the shapes they use.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "rsw/physics/broad_phase.hpp"
#include "rsw/physics/rigid_bodies.hpp"

namespace rsw::physics::testing {

/// Owned arrays: x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz; optional shape indices.
struct RigidSet {
  std::array<std::vector<float>, 13> arrays;
  std::vector<std::uint32_t> shapes;

  explicit RigidSet(std::size_t count = 0) {
    for (auto& array : arrays)
      array.assign(count, 0.0f);
    arrays[6].assign(count, 1.0f);  // identity orientations
  }
  std::size_t size() const { return arrays[0].size(); }
  RigidBodies view() {
    auto& a = arrays;
    return {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], shapes};
  }
  void place(std::size_t i, std::array<float, 3> position, std::array<float, 4> orientation = {0, 0, 0, 1}) {
    for (int axis = 0; axis < 3; ++axis)
      arrays[axis][i] = position[axis];
    for (int k = 0; k < 4; ++k)
      arrays[3 + k][i] = orientation[k];
  }
  std::array<float, 3> position(std::size_t i) const {
    return {arrays[0][i], arrays[1][i], arrays[2][i]};
  }
};

/// A unit quaternion turning by `angle` about the unit `axis`.
inline std::array<float, 4> turn(std::array<float, 3> axis, float angle) {
  const float s = std::sin(0.5f * angle);
  return {axis[0] * s, axis[1] * s, axis[2] * s, std::cos(0.5f * angle)};
}

/// A box of the given half extents as one solid, with a sphere of radius `radius` inset at
/// each corner (touching the box's faces).
inline RigidShape cornered_box(std::array<float, 3> half, float radius, float mass) {
  const SolidBox solid{{-half[0], -half[1], -half[2]}, {half[0], half[1], half[2]}};
  std::vector<ProxySphere> spheres;
  for (const float sx : {-1.0f, 1.0f})
    for (const float sy : {-1.0f, 1.0f})
      for (const float sz : {-1.0f, 1.0f})
        spheres.push_back({{sx * (half[0] - radius), sy * (half[1] - radius),
                            sz * (half[2] - radius)},
                           radius});
  return RigidShape::from_solids({&solid, 1}, spheres, mass);
}

/// One sphere of radius r and mass m (a solid ball's inertia, 2/5 m r^2).
inline RigidShape ball(float radius, float mass) {
  RigidShape shape;
  shape.spheres = {{{0, 0, 0}, radius}};
  shape.mass = mass;
  const float moment = 0.4f * mass * radius * radius;
  shape.inertia = {moment, moment, moment, 0, 0, 0};
  return shape;
}

/// `count` bodies of `shapes` shapes at random in a cube of side `side` above the ground,
/// randomly turned, moving at up to 1 unit/s and spinning at up to 2 rad/s.
inline RigidSet random_rigid(std::size_t count, float side, std::uint32_t shapes,
                             std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  RigidSet set(count);
  if (shapes > 1) set.shapes.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::array<float, 3> axis{unit(generator) - 0.5f, unit(generator) - 0.5f, unit(generator) - 0.5f};
    const float length = std::hypot(axis[0], axis[1], axis[2]) + 1e-6f;
    for (float& component : axis)
      component /= length;
    set.place(i, {side * unit(generator), 0.2f + side * unit(generator), side * unit(generator)},
              turn(axis, 6.2f * unit(generator)));
    for (int k = 0; k < 3; ++k) {
      set.arrays[7 + k][i] = 2 * unit(generator) - 1;
      set.arrays[10 + k][i] = 4 * unit(generator) - 2;
    }
    if (shapes > 1) set.shapes[i] = static_cast<std::uint32_t>(i % shapes);
  }
  return set;
}

/// Every pair of bodies whose boxes overlap (touching counts): the brute-force oracle.
inline std::vector<Pair> touching_boxes(const AabbStore& boxes) {
  BroadPhase oracle({.brute_force = true});
  oracle.update(boxes.view());
  const PairView pairs = oracle.find_pairs();
  return {pairs.begin(), pairs.end()};
}

}  // namespace rsw::physics::testing
