// The n-body scene's per-body rules, compiled for the CPU loop and the GPU kernels alike.
#pragma once

#include <cstdint>

#include "rsw/render/renderer.hpp"
#include "scene_math.hpp"

namespace rsw::scenes::detail {

/// The bodies' state as arrays of n floats (host or device memory alike).
struct BodyField {
  Motion motion;
  std::uint32_t first_of_second;  // bodies from here on belong to the second galaxy
};

/// Body i as a sprite: blue-white for the first galaxy, amber for the second, brighter when
/// fast; the two cores white.
RSW_HOST_DEVICE inline render::SphereInstance body_sprite(const BodyField& field, std::uint32_t i,
                                                          float display_radius) {
  render::SphereInstance sprite;
  float speed_squared = 0.0f;
  for (int axis = 0; axis < 3; ++axis) {
    sprite.centre[axis] = field.motion.position[axis][i];
    speed_squared += field.motion.velocity[axis][i] * field.motion.velocity[axis][i];
  }
  const bool core = i == 0 || i == field.first_of_second;
  sprite.radius = core ? 4.0f * display_radius : display_radius;
  const float glow = 0.45f + 0.55f * (speed_squared / (speed_squared + 0.5f));
  const bool second = i >= field.first_of_second;
  const float base[3] = {second ? 1.0f : 0.55f, second ? 0.7f : 0.7f, second ? 0.35f : 1.0f};
  for (int channel = 0; channel < 3; ++channel)
    sprite.colour[channel] = core ? 1.0f : base[channel] * glow;
  return sprite;
}

}  // namespace rsw::scenes::detail
