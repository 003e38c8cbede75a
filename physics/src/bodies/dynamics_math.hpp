// The per-pair rules of dynamics.hpp, compiled for the CPU loops and the GPU kernels alike.
#pragma once

#include <cmath>

#include "rsw/engine/host_device.hpp"

namespace rsw::physics::detail {

/// Adds body j's softened pull on a body at (x, y, z) to (ax, ay, az), without G.
RSW_HOST_DEVICE inline void add_pull(float x, float y, float z, float xj, float yj, float zj,
                                     float mj, float softening_squared, float& ax, float& ay,
                                     float& az) {
  const float dx = xj - x;
  const float dy = yj - y;
  const float dz = zj - z;
  const float r2 = dx * dx + dy * dy + dz * dz + softening_squared;
  if (!(r2 > 0.0f)) return;  // the body itself (or one on top of it) without softening
  const float inverse = 1.0f / sqrtf(r2);
  const float s = mj * inverse * inverse * inverse;
  ax += dx * s;
  ay += dy * s;
  az += dz * s;
}

/// The contact force on body b of the pair (a, b), along the centre line from a to b; zero
/// when the spheres do not overlap. Coincident centres push along +x.
RSW_HOST_DEVICE inline void contact_force(const float (&pa)[3], const float (&pb)[3],
                                          const float (&va)[3], const float (&vb)[3], float ra,
                                          float rb, float stiffness, float damping,
                                          float (&force)[3]) {
  const float d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
  const float distance = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const float overlap = ra + rb - distance;
  force[0] = force[1] = force[2] = 0.0f;
  if (!(overlap > 0.0f)) return;
  float normal[3] = {1.0f, 0.0f, 0.0f};
  if (distance > 0.0f) {
    for (int axis = 0; axis < 3; ++axis)
      normal[axis] = d[axis] / distance;
  }
  const float separating =
      (vb[0] - va[0]) * normal[0] + (vb[1] - va[1]) * normal[1] + (vb[2] - va[2]) * normal[2];
  const float push = stiffness * overlap - damping * separating;
  if (!(push > 0.0f)) return;
  for (int axis = 0; axis < 3; ++axis)
    force[axis] = push * normal[axis];
}

}  // namespace rsw::physics::detail
