// The chairs scene's drawing rule, compiled for the CPU loop and the GPU kernel alike: each
// chair body as an instance of the renderer's chair mesh.
#pragma once

#include <cstdint>

#include "rsw/physics/broad_phase.hpp"
#include "rsw/physics/world.hpp"
#include "rsw/render/renderer.hpp"
#include "scene_math.hpp"

namespace rsw::scenes::detail {

/// The chairs' state (arrays of n floats, host or device memory) and what drawing needs.
struct ChairField {
  const float* position[3];     // centres of mass
  const float* orientation[4];  // quaternions (x, y, z, w)
  const float* velocity[3];
  std::uint32_t count;
  float size[3];       // the mesh's scale: the chair's extent on its own axes
  float origin[3];     // the centre of mass in the scaled mesh's frame (the mesh's centre at 0)
  const float* flash;  // per chair, 1 as it begins touching another, fading to 0; or nullptr
  // Drawn in tiles (the worlds scene): chairs [k * per_tile, (k + 1) * per_tile) in tile k of
  // a grid tile_columns wide, centred on the origin, tiles tile_pitch apart on x and z.
  // per_tile 0: every chair where it is.
  std::uint32_t per_tile;
  std::uint32_t tile_columns;
  float tile_pitch;
};

/// Where tile k of a grid `columns` wide, centred on the origin, lies on x and z.
RSW_HOST_DEVICE inline void tile_offset(std::uint32_t tile, std::uint32_t columns, float pitch,
                                        float (&offset)[2]) {
  const float middle = 0.5f * static_cast<float>(columns - 1);
  offset[0] = pitch * (static_cast<float>(tile % columns) - middle);
  offset[1] = pitch * (static_cast<float>(tile / columns) - middle);
}

/// Chair i as an instance of Shape::Chair: its mesh's centre is the centre of mass less the
/// turned origin. Coloured from a palette of paints by index, lighter while it moves fast.
RSW_HOST_DEVICE inline render::BoxInstance chair_instance(const ChairField& field,
                                                          std::uint32_t i) {
  render::BoxInstance instance;
  const float x = field.orientation[0][i];
  const float y = field.orientation[1][i];
  const float z = field.orientation[2][i];
  const float w = field.orientation[3][i];
  const float o[3] = {field.origin[0], field.origin[1], field.origin[2]};
  // The quaternion's rotation of o: o + 2w (u x o) + 2 u x (u x o), u = (x, y, z).
  const float t[3] = {2.0f * (y * o[2] - z * o[1]), 2.0f * (z * o[0] - x * o[2]),
                      2.0f * (x * o[1] - y * o[0])};
  const float turned[3] = {o[0] + w * t[0] + (y * t[2] - z * t[1]),
                           o[1] + w * t[1] + (z * t[0] - x * t[2]),
                           o[2] + w * t[2] + (x * t[1] - y * t[0])};
  float speed_squared = 0.0f;
  for (int axis = 0; axis < 3; ++axis) {
    instance.centre[axis] = field.position[axis][i] - turned[axis];
    instance.size[axis] = field.size[axis];
    speed_squared += field.velocity[axis][i] * field.velocity[axis][i];
  }
  if (field.per_tile > 0) {
    float offset[2];
    tile_offset(i / field.per_tile, field.tile_columns, field.tile_pitch, offset);
    instance.centre[0] += offset[0];
    instance.centre[2] += offset[1];
  }
  instance.orientation[0] = x;
  instance.orientation[1] = y;
  instance.orientation[2] = z;
  instance.orientation[3] = w;
  constexpr float kPaints[6][3] = {{0.62f, 0.40f, 0.22f}, {0.78f, 0.22f, 0.18f},
                                   {0.20f, 0.42f, 0.70f}, {0.85f, 0.68f, 0.25f},
                                   {0.30f, 0.55f, 0.32f}, {0.85f, 0.85f, 0.80f}};
  std::uint32_t hash = i * 0x9E3779B1u;  // mixed, so that neighbours in the grid differ
  hash ^= hash >> 15;
  hash *= 0x85EBCA77u;
  hash ^= hash >> 13;
  const float* paint = kPaints[hash % 6];
  const float fast = speed_squared / (speed_squared + 25.0f);
  constexpr float kFlash[3] = {1.0f, 0.93f, 0.55f};  // a warm white
  const float flash = field.flash != nullptr ? field.flash[i] : 0.0f;
  for (int channel = 0; channel < 3; ++channel) {
    const float colour = paint[channel] + (1.0f - paint[channel]) * 0.6f * fast;
    instance.colour[channel] = colour + (kFlash[channel] - colour) * 0.8f * flash;
  }
  return instance;
}

/// Starts the flash of the chairs of a pair that began touching, when both are chairs (proxy
/// indices below `count`: the chairs' proxies were made first, in chair order).
RSW_HOST_DEVICE inline void flash_pair(float* flash, std::uint32_t count,
                                       const physics::ProxyPair& pair) {
  if (pair.a.index < count && pair.b.index < count) {
    flash[pair.a.index] = 1.0f;
    flash[pair.b.index] = 1.0f;
  }
}

/// The chairs' bounds (six arrays of `count`) as Aabb records for the World, on the GPU.
void pack_chair_boxes_on_gpu(const physics::DeviceAabbArrays& bounds, physics::Aabb* out,
                             std::size_t count, StreamHandle stream);
/// Fades every flash by `fade`, then flashes the chairs of the `found` pairs, on the GPU.
void flash_chairs_on_gpu(float* flash, std::uint32_t count, float fade,
                         DeviceSpan<const physics::ProxyPair> found, StreamHandle stream);

/// chair_instance() of every chair into `out` (the renderer's mapped instance buffer), on the
/// GPU (cuda/chairs_kernels.cu).
void write_chair_instances_on_gpu(const ChairField& field, render::BoxInstance* out,
                                  StreamHandle stream);

}  // namespace rsw::scenes::detail
