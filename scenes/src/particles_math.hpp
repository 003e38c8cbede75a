// The particles scene's per-particle rules, compiled for the CPU loop and the GPU kernels
// alike: gravity, the landscape (a height field sampled bilinearly) and the walls around it
// push with the same spring-dashpot law as particle contacts; then a semi-implicit Euler step.
#pragma once

#include <cmath>
#include <cstdint>

#include "rsw/render/renderer.hpp"
#include "scene_math.hpp"

namespace rsw::scenes::detail {

/// The landscape: heights on a columns x rows grid over [-half_extent, half_extent]^2 in x-z.
struct Landscape {
  const float* heights;
  int columns;
  int rows;
  float half_extent;
};

/// Particles: arrays of n floats (host or device memory alike).
struct ParticleField {
  Motion motion;
  float radius;
  float mass;
  float stiffness;  // spring-dashpot of every contact: particle, landscape, wall
  float damping;
};

/// Height and slopes (dh/dx, dh/dz) of the landscape at (x, z), bilinear in its grid cell.
RSW_HOST_DEVICE inline float landscape_height(const Landscape& land, float x, float z,
                                              float& slope_x, float& slope_z) {
  const float cell_x = 2.0f * land.half_extent / static_cast<float>(land.columns - 1);
  const float cell_z = 2.0f * land.half_extent / static_cast<float>(land.rows - 1);
  float u = (x + land.half_extent) / cell_x;
  float v = (z + land.half_extent) / cell_z;
  // Clamped to the grid, short of its last sample so that a cell to its +x and +z exists.
  const float last_u = static_cast<float>(land.columns) - 1.001f;
  const float last_v = static_cast<float>(land.rows) - 1.001f;
  u = u < 0.0f ? 0.0f : (u > last_u ? last_u : u);
  v = v < 0.0f ? 0.0f : (v > last_v ? last_v : v);
  const int c = static_cast<int>(u);
  const int r = static_cast<int>(v);
  const float fu = u - static_cast<float>(c);
  const float fv = v - static_cast<float>(r);
  const float* row = land.heights + static_cast<std::size_t>(r) * land.columns;
  const float h00 = row[c];
  const float h10 = row[c + 1];
  const float h01 = row[land.columns + c];
  const float h11 = row[land.columns + c + 1];
  slope_x = ((h10 - h00) * (1.0f - fv) + (h11 - h01) * fv) / cell_x;
  slope_z = ((h01 - h00) * (1.0f - fu) + (h11 - h10) * fu) / cell_z;
  return (h00 * (1.0f - fu) + h10 * fu) * (1.0f - fv) + (h01 * (1.0f - fu) + h11 * fu) * fv;
}

/// Adds the push along unit `normal` of a contact `overlap` deep to `force`.
RSW_HOST_DEVICE inline void push(const ParticleField& field, float overlap,
                                 const float (&normal)[3], const float (&velocity)[3],
                                 float (&force)[3]) {
  if (!(overlap > 0.0f)) return;
  const float approach =
      velocity[0] * normal[0] + velocity[1] * normal[1] + velocity[2] * normal[2];
  const float magnitude = field.stiffness * overlap - field.damping * approach;
  if (!(magnitude > 0.0f)) return;
  for (int axis = 0; axis < 3; ++axis)
    force[axis] += magnitude * normal[axis];
  // Rolling and sliding lose energy too: damp the tangential velocity in contact.
  for (int axis = 0; axis < 3; ++axis)
    force[axis] -= 0.3f * field.damping * (velocity[axis] - approach * normal[axis]);
}

/// Particle i's acceleration from gravity, the landscape and the walls (contacts between
/// particles are added after).
RSW_HOST_DEVICE inline void settle_on_landscape(const ParticleField& field, const Landscape& land,
                                                std::uint32_t i) {
  const float p[3] = {field.motion.position[0][i], field.motion.position[1][i],
                      field.motion.position[2][i]};
  const float v[3] = {field.motion.velocity[0][i], field.motion.velocity[1][i],
                      field.motion.velocity[2][i]};
  float force[3] = {0.0f, -9.81f * field.mass, 0.0f};
  float slope_x = 0.0f;
  float slope_z = 0.0f;
  const float ground = landscape_height(land, p[0], p[2], slope_x, slope_z);
  // The surface's normal is (-dh/dx, 1, -dh/dz) normalised; the depth below it, measured
  // along the normal, is about (ground - y) n_y.
  const float length = sqrtf(slope_x * slope_x + 1.0f + slope_z * slope_z);
  const float normal[3] = {-slope_x / length, 1.0f / length, -slope_z / length};
  push(field, field.radius - (p[1] - ground) * normal[1], normal, v, force);
  const float wall = land.half_extent;
  const float walls[4][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}};
  const float overlaps[4] = {field.radius - (p[0] + wall), field.radius - (wall - p[0]),
                             field.radius - (p[2] + wall), field.radius - (wall - p[2])};
  for (int side = 0; side < 4; ++side)
    push(field, overlaps[side], walls[side], v, force);
  for (int axis = 0; axis < 3; ++axis)
    field.motion.acceleration[axis][i] = force[axis] / field.mass;
}

/// Particle i as a sprite: sand when slow, white-blue when fast.
RSW_HOST_DEVICE inline render::SphereInstance particle_sprite(const ParticleField& field,
                                                              std::uint32_t i) {
  render::SphereInstance sprite;
  float speed_squared = 0.0f;
  for (int axis = 0; axis < 3; ++axis) {
    sprite.centre[axis] = field.motion.position[axis][i];
    speed_squared += field.motion.velocity[axis][i] * field.motion.velocity[axis][i];
  }
  sprite.radius = field.radius;
  const float fast = speed_squared / (speed_squared + 4.0f);
  const float slow[3] = {0.85f, 0.72f, 0.45f};
  const float quick[3] = {0.55f, 0.8f, 1.0f};
  for (int channel = 0; channel < 3; ++channel)
    sprite.colour[channel] = slow[channel] + (quick[channel] - slow[channel]) * fast;
  return sprite;
}

}  // namespace rsw::scenes::detail
