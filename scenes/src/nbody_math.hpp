// The n-body scene's per-body rules, compiled for the CPU loop and the GPU kernels alike.
#pragma once

#include <cstdint>

#include "boxes_math.hpp"  // RSW_SCENE_HOST_DEVICE, multiply(), add()
#include "rsw/render/renderer.hpp"

namespace rsw::scenes::detail {

/// The bodies' state as arrays of n floats (host or device memory alike).
struct BodyField {
  float* position[3];
  float* velocity[3];
  float* acceleration[3];
  const float* mass;
  const float* radius;
  std::uint32_t count;
  std::uint32_t first_of_second;  // bodies from here on belong to the second galaxy
};

/// v += a * h, then (when dt > 0) x += v * dt: the leapfrog's kick and drift for body i.
RSW_SCENE_HOST_DEVICE inline void kick_drift(const BodyField& field, std::uint32_t i, float h,
                                             float dt) {
  for (int axis = 0; axis < 3; ++axis) {
    const float velocity = add(field.velocity[axis][i], multiply(field.acceleration[axis][i], h));
    field.velocity[axis][i] = velocity;
    if (dt > 0.0f) field.position[axis][i] = add(field.position[axis][i], multiply(velocity, dt));
  }
}

/// Body i as a sprite: blue-white for the first galaxy, amber for the second, brighter when
/// fast; the two cores white.
RSW_SCENE_HOST_DEVICE inline render::SphereInstance body_sprite(const BodyField& field,
                                                                std::uint32_t i,
                                                                float display_radius) {
  render::SphereInstance sprite;
  float speed_squared = 0.0f;
  for (int axis = 0; axis < 3; ++axis) {
    sprite.centre[axis] = field.position[axis][i];
    speed_squared += field.velocity[axis][i] * field.velocity[axis][i];
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
