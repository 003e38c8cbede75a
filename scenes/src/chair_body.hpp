// The chair as a rigid body, as the chairs and worlds scenes drop it: its collision spheres
// and mass along the renderer's chair mesh, the law its contacts follow, the substeps that keep
// them stable, and the random pose of a chair let go.
#pragma once

#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "rsw/physics/rigid_bodies.hpp"

namespace rsw::scenes::detail {

inline constexpr int kChairSubsteps = 16;
inline constexpr float kChairSubstep = 1.0f / (60.0f * kChairSubsteps);
// The chair: 0.5 wide and deep, 1 tall, as the renderer's unit chair mesh scaled.
inline constexpr std::array<float, 3> kChairSize = {0.5f, 1.0f, 0.5f};
inline constexpr float kChairMass = 1.0f;

// The solids of the renderer's chair (its unit mesh scaled by kChairSize: seat, four legs,
// back) and spheres along them.
inline physics::RigidShape chair_shape() {
  constexpr float kLeg = 0.06f;
  std::vector<physics::SolidBox> solids = {{{-0.25f, -0.05f, -0.25f}, {0.25f, 0.05f, 0.25f}},
                                           {{-0.25f, 0.05f, -0.25f}, {0.25f, 0.5f, -0.19f}}};
  std::vector<physics::ProxySphere> spheres;
  for (const float x : {-0.25f, 0.25f - kLeg}) {
    for (const float z : {-0.25f, 0.25f - kLeg}) {
      solids.push_back({{x, -0.5f, z}, {x + kLeg, -0.05f, z + kLeg}});
      const float middle[2] = {x + 0.5f * kLeg, z + 0.5f * kLeg};
      spheres.push_back({{middle[0], -0.2f, middle[1]}, 0.055f});
      spheres.push_back({{middle[0], -0.445f, middle[1]}, 0.055f});
    }
  }
  for (const float x : {-0.18f, 0.0f, 0.18f}) {
    for (const float z : {-0.18f, 0.0f, 0.18f})
      spheres.push_back({{x, 0.0f, z}, 0.07f});  // the seat
    for (const float y : {0.21f, 0.41f})
      spheres.push_back({{x, y, -0.22f}, 0.07f});  // the back
  }
  return physics::RigidShape::from_solids(solids, spheres, kChairMass);
}

// Contacts: stiff enough that a chair landing at 15 m/s sinks a few centimetres into what it
// hits; damped so that a bounce loses most of its energy; friction as wood on wood.
inline constexpr physics::RigidOptions kChairContacts{.stiffness = 3e4f,
                                                      .damping = 50.0f,
                                                      .friction = 0.6f,
                                                      .tangential_damping = 200.0f,
                                                      .angular_damping = 0.2f};

// a b for quaternions (x, y, z, w): the turn b, then a.
inline std::array<float, 4> multiply_quaternions(const std::array<float, 4>& a,
                                                 const std::array<float, 4>& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] + a[1] * b[3] + a[2] * b[0] - a[0] * b[2],
          a[3] * b[2] + a[2] * b[3] + a[0] * b[1] - a[1] * b[0],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

// A dropped chair's orientation: a turn about y at random, then a tip of up to 0.3 rad about a
// horizontal axis.
inline std::array<float, 4> dropped_orientation(std::mt19937& generator) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float yaw = 2.0f * std::numbers::pi_v<float> * unit(generator);
  const float tip = 0.3f * unit(generator);
  const float heading = 2.0f * std::numbers::pi_v<float> * unit(generator);
  const std::array<float, 4> turn_y = {0, std::sin(0.5f * yaw), 0, std::cos(0.5f * yaw)};
  const std::array<float, 4> tip_q = {std::cos(heading) * std::sin(0.5f * tip), 0,
                                      std::sin(heading) * std::sin(0.5f * tip),
                                      std::cos(0.5f * tip)};
  return multiply_quaternions(tip_q, turn_y);
}

}  // namespace rsw::scenes::detail
