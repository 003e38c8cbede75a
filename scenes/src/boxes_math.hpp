// The boxes scene's per-box rules, compiled for the CPU loop and the GPU kernels alike, so the
// two backends step the same way: boxes fly at constant velocity inside a cube and bounce off
// its walls; a box's colour says how many boxes it overlaps.
#pragma once

#include <cstdint>

#include "rsw/render/renderer.hpp"
#include "scene_math.hpp"

namespace rsw::scenes::detail {

/// The boxes' state as arrays of n floats per coordinate (host or device memory alike).
struct BoxField {
  float* centre[3];
  float* half[3];  // half extents
  float* velocity[3];
  float* low[3];  // bounds, written by each step for the broad phase
  float* high[3];
  std::uint32_t* touches;  // boxes each box overlaps, counted from the pairs
  std::uint32_t count;
  float extent;  // the cube [0, extent]^3
};

/// Moves box `i` by dt and reflects it off the walls; writes its bounds.
RSW_HOST_DEVICE inline void move_box(const BoxField& field, std::uint32_t i, float dt) {
  for (int axis = 0; axis < 3; ++axis) {
    const float half = field.half[axis][i];
    float centre = add(field.centre[axis][i], multiply(field.velocity[axis][i], dt));
    float velocity = field.velocity[axis][i];
    if (centre - half < 0.0f) {
      centre = add(2.0f * half, -centre);
      velocity = velocity < 0.0f ? -velocity : velocity;
    }
    if (centre + half > field.extent) {
      centre = add(2.0f * add(field.extent, -half), -centre);
      velocity = velocity > 0.0f ? -velocity : velocity;
    }
    field.centre[axis][i] = centre;
    field.velocity[axis][i] = velocity;
    field.low[axis][i] = add(centre, -half);
    field.high[axis][i] = add(centre, half);
  }
}

/// Box `i` to draw: blue-grey alone, then green, yellow, orange and red as it overlaps more.
RSW_HOST_DEVICE inline render::BoxInstance box_instance(const BoxField& field, std::uint32_t i) {
  render::BoxInstance box;
  for (int axis = 0; axis < 3; ++axis) {
    box.centre[axis] = field.centre[axis][i];
    box.size[axis] = 2.0f * field.half[axis][i];
  }
  constexpr float kPalette[5][3] = {{0.35f, 0.42f, 0.55f},
                                    {0.30f, 0.75f, 0.35f},
                                    {0.90f, 0.85f, 0.25f},
                                    {0.95f, 0.55f, 0.15f},
                                    {0.90f, 0.20f, 0.15f}};
  const std::uint32_t touches = field.touches[i];
  const std::uint32_t shade = touches == 0    ? 0
                              : touches <= 2  ? 1
                              : touches <= 5  ? 2
                              : touches <= 10 ? 3
                                              : 4;
  for (int channel = 0; channel < 3; ++channel)
    box.colour[channel] = kPalette[shade][channel];
  return box;
}

}  // namespace rsw::scenes::detail
