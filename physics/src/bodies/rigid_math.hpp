// The per-body and per-contact rules of rigid_bodies.hpp, compiled for the CPU loops and the
// GPU kernels alike: rotations, the contact law, and the step of one body.
#pragma once

#include <cmath>
#include <cstdint>

#include "rsw/engine/host_device.hpp"
#include "rsw/physics/rigid_bodies.hpp"

namespace rsw::physics::detail {

/// A shape as the loops read it: mass properties and its spheres' place in the sphere table.
struct ShapeRecord {
  float inverse_mass;
  float inertia[6];          // body axes: xx, yy, zz, xy, xz, yz
  float inverse_inertia[6];  // the same layout
  std::uint32_t first;       // spheres [first, first + count) of the sphere table
  std::uint32_t count;
  float reach;  // the largest |centre| + radius of its spheres
};

/// A sphere in the sphere table (body frame) or placed in the world.
struct alignas(16) SphereRecord {
  float x, y, z, radius;
};

/// The bodies' arrays as raw pointers (host or device memory alike).
struct BodyArrays {
  float *x, *y, *z;
  float *qx, *qy, *qz, *qw;
  float *vx, *vy, *vz;
  float *wx, *wy, *wz;
  const std::uint32_t* shape;  // null: every body is shape 0
  std::uint32_t count;
  std::uint32_t shapes;  // shapes in the table; an index past it reads as shape 0
};

/// A body's position, velocity and angular velocity.
struct BodyMotion {
  float position[3];
  float velocity[3];
  float spin[3];
};

RSW_HOST_DEVICE inline std::uint32_t shape_of(const BodyArrays& bodies, std::uint32_t i) {
  if (bodies.shape == nullptr) return 0;
  const std::uint32_t shape = bodies.shape[i];
  return shape < bodies.shapes ? shape : 0;
}

RSW_HOST_DEVICE inline BodyMotion motion_of(const BodyArrays& bodies, std::uint32_t i) {
  return {{bodies.x[i], bodies.y[i], bodies.z[i]},
          {bodies.vx[i], bodies.vy[i], bodies.vz[i]},
          {bodies.wx[i], bodies.wy[i], bodies.wz[i]}};
}

RSW_HOST_DEVICE inline void cross(const float (&a)[3], const float (&b)[3], float (&out)[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

RSW_HOST_DEVICE inline float dot(const float (&a)[3], const float (&b)[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// The rotation matrix (row-major) of the unit quaternion (x, y, z, w).
RSW_HOST_DEVICE inline void rotation_matrix(float x, float y, float z, float w, float (&r)[9]) {
  r[0] = 1.0f - 2.0f * (y * y + z * z);
  r[1] = 2.0f * (x * y - z * w);
  r[2] = 2.0f * (x * z + y * w);
  r[3] = 2.0f * (x * y + z * w);
  r[4] = 1.0f - 2.0f * (x * x + z * z);
  r[5] = 2.0f * (y * z - x * w);
  r[6] = 2.0f * (x * z - y * w);
  r[7] = 2.0f * (y * z + x * w);
  r[8] = 1.0f - 2.0f * (x * x + y * y);
}

RSW_HOST_DEVICE inline void rotate(const float (&r)[9], const float (&v)[3], float (&out)[3]) {
  for (int row = 0; row < 3; ++row)
    out[row] = r[3 * row] * v[0] + r[3 * row + 1] * v[1] + r[3 * row + 2] * v[2];
}

/// R S R^T v for the symmetric body-axes tensor S (xx, yy, zz, xy, xz, yz): the world tensor
/// applied to a world vector, as R (S (R^T v)).
RSW_HOST_DEVICE inline void apply_world_tensor(const float (&r)[9], const float (&s)[6],
                                               const float (&v)[3], float (&out)[3]) {
  float body[3];
  for (int column = 0; column < 3; ++column)
    body[column] = r[column] * v[0] + r[3 + column] * v[1] + r[6 + column] * v[2];
  const float turned[3] = {s[0] * body[0] + s[3] * body[1] + s[4] * body[2],
                           s[3] * body[0] + s[1] * body[1] + s[5] * body[2],
                           s[4] * body[0] + s[5] * body[1] + s[2] * body[2]};
  rotate(r, turned, out);
}

/// Velocity of the body's material at world point p.
RSW_HOST_DEVICE inline void point_velocity(const BodyMotion& body, const float (&p)[3],
                                           float (&out)[3]) {
  const float arm[3] = {p[0] - body.position[0], p[1] - body.position[1], p[2] - body.position[2]};
  float turn[3];
  cross(body.spin, arm, turn);
  for (int axis = 0; axis < 3; ++axis)
    out[axis] = body.velocity[axis] + turn[axis];
}

/// The force on the second body of a contact `overlap` deep along unit normal n (from the
/// first body to the second), the second's material moving at `relative` to the first's at
/// the contact: the spring-dashpot push and the capped friction. False when they do not push.
RSW_HOST_DEVICE inline bool contact_force(float overlap, const float (&n)[3],
                                          const float (&relative)[3], const RigidOptions& options,
                                          float (&force)[3]) {
  const float normal_speed = dot(relative, n);
  const float push = options.stiffness * overlap - options.damping * normal_speed;
  if (!(push > 0.0f)) return false;
  float slide[3];
  for (int axis = 0; axis < 3; ++axis)
    slide[axis] = relative[axis] - normal_speed * n[axis];
  const float slide_speed = sqrtf(dot(slide, slide));
  float rub = 0.0f;  // friction per unit of sliding velocity
  if (slide_speed > 0.0f) {
    const float cap = options.friction * push;
    const float viscous = options.tangential_damping * slide_speed;
    rub = (viscous < cap ? viscous : cap) / slide_speed;
  }
  for (int axis = 0; axis < 3; ++axis)
    force[axis] = push * n[axis] - rub * slide[axis];
  return true;
}

/// Adds force `f` at world point p to a body at `position`: the torque (p - x) x f, scaled
/// by `sign`.
RSW_HOST_DEVICE inline void add_torque(const float (&position)[3], const float (&p)[3],
                                       const float (&f)[3], float sign, float (&torque)[3]) {
  const float arm[3] = {p[0] - position[0], p[1] - position[1], p[2] - position[2]};
  float turn[3];
  cross(arm, f, turn);
  for (int axis = 0; axis < 3; ++axis)
    torque[axis] += sign * turn[axis];
}

/// Where body i is: its rotation matrix and centre of mass.
struct BodyPose {
  float r[9];
  float position[3];
};

RSW_HOST_DEVICE inline BodyPose pose_of(const BodyArrays& bodies, std::uint32_t i) {
  BodyPose pose;
  rotation_matrix(bodies.qx[i], bodies.qy[i], bodies.qz[i], bodies.qw[i], pose.r);
  pose.position[0] = bodies.x[i];
  pose.position[1] = bodies.y[i];
  pose.position[2] = bodies.z[i];
  return pose;
}

/// A sphere of the body's frame placed in the world.
RSW_HOST_DEVICE inline SphereRecord place(const BodyPose& pose, const SphereRecord& local) {
  const float offset[3] = {local.x, local.y, local.z};
  float turned[3];
  rotate(pose.r, offset, turned);
  return {pose.position[0] + turned[0], pose.position[1] + turned[1], pose.position[2] + turned[2],
          local.radius};
}

/// Body i's spheres placed in the world (its shape's count of them, into `out`).
RSW_HOST_DEVICE inline void place_spheres(const BodyArrays& bodies, std::uint32_t i,
                                          const ShapeRecord& shape, const SphereRecord* table,
                                          SphereRecord* out) {
  const BodyPose pose = pose_of(bodies, i);
  for (std::uint32_t k = 0; k < shape.count; ++k)
    out[k] = place(pose, table[shape.first + k]);
}

/// The box around body i's spheres placed in the world.
RSW_HOST_DEVICE inline void body_bounds(const BodyArrays& bodies, std::uint32_t i,
                                        const ShapeRecord& shape, const SphereRecord* table,
                                        float (&low)[3], float (&high)[3]) {
  const BodyPose pose = pose_of(bodies, i);
  for (int axis = 0; axis < 3; ++axis) {
    low[axis] = INFINITY;
    high[axis] = -INFINITY;
  }
  for (std::uint32_t k = 0; k < shape.count; ++k) {
    const SphereRecord sphere = place(pose, table[shape.first + k]);
    const float centre[3] = {sphere.x, sphere.y, sphere.z};
    for (int axis = 0; axis < 3; ++axis) {
      // Written so that a NaN reaches the box (fminf and fmaxf would drop it).
      const float below = centre[axis] - sphere.radius;
      const float above = centre[axis] + sphere.radius;
      low[axis] = below < low[axis] || below != below ? below : low[axis];
      high[axis] = above > high[axis] || above != above ? above : high[axis];
    }
  }
}

/// The contacts of a body's placed spheres with the ground plane: adds their force and torque.
RSW_HOST_DEVICE inline void ground_loads(const SphereRecord* spheres, std::uint32_t count,
                                         const BodyMotion& body, const RigidOptions& options,
                                         float (&force)[3], float (&torque)[3]) {
  const float up[3] = {0.0f, 1.0f, 0.0f};
  for (std::uint32_t k = 0; k < count; ++k) {
    const SphereRecord s = spheres[k];
    const float overlap = s.radius - (s.y - options.ground_height);
    if (!(overlap > 0.0f)) continue;
    const float p[3] = {s.x, s.y - s.radius + 0.5f * overlap, s.z};  // the middle of the overlap
    float relative[3];
    point_velocity(body, p, relative);
    float f[3];
    if (!contact_force(overlap, up, relative, options, f)) continue;
    for (int axis = 0; axis < 3; ++axis)
      force[axis] += f[axis];
    add_torque(body.position, p, f, 1.0f, torque);
  }
}

/// Bit k set for each of `count` placed spheres that reach into the ball of radius `reach`
/// about `centre` (the other body's spheres all lie in that ball).
RSW_HOST_DEVICE inline std::uint64_t spheres_near(const SphereRecord* spheres, std::uint32_t count,
                                                  const float (&centre)[3], float reach) {
  std::uint64_t near = 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    const float d[3] = {spheres[k].x - centre[0], spheres[k].y - centre[1],
                        spheres[k].z - centre[2]};
    const float limit = reach + spheres[k].radius;
    if (dot(d, d) <= limit * limit) near |= std::uint64_t{1} << k;
  }
  return near;
}

/// Index of the lowest set bit of a non-zero mask.
RSW_HOST_DEVICE inline std::uint32_t lowest_bit(std::uint64_t mask) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffsll(static_cast<long long>(mask)) - 1);
#else
  return static_cast<std::uint32_t>(__builtin_ctzll(mask));
#endif
}

/// The contacts between the placed spheres of bodies a and b (shapes `shape_a`, `shape_b`):
/// adds the force on b (a gets its opposite) and both torques. Only spheres that reach the
/// other body's bounding ball are tested against each other.
RSW_HOST_DEVICE inline void pair_loads(const SphereRecord* spheres_a, const ShapeRecord& shape_a,
                                       const SphereRecord* spheres_b, const ShapeRecord& shape_b,
                                       const BodyMotion& a, const BodyMotion& b,
                                       const RigidOptions& options, float (&force_b)[3],
                                       float (&torque_a)[3], float (&torque_b)[3]) {
  const std::uint64_t near_b = spheres_near(spheres_b, shape_b.count, a.position, shape_a.reach);
  if (near_b == 0) return;
  for (std::uint64_t near_a = spheres_near(spheres_a, shape_a.count, b.position, shape_b.reach);
       near_a != 0; near_a &= near_a - 1) {
    const SphereRecord sa = spheres_a[lowest_bit(near_a)];
    for (std::uint64_t others = near_b; others != 0; others &= others - 1) {
      const SphereRecord sb = spheres_b[lowest_bit(others)];
      const float d[3] = {sb.x - sa.x, sb.y - sa.y, sb.z - sa.z};
      const float reach = sa.radius + sb.radius;
      const float distance_squared = dot(d, d);
      if (!(distance_squared < reach * reach)) continue;
      const float distance = sqrtf(distance_squared);
      const float overlap = reach - distance;
      float n[3] = {0.0f, 1.0f, 0.0f};  // coincident centres push b up
      if (distance > 0.0f) {
        for (int axis = 0; axis < 3; ++axis)
          n[axis] = d[axis] / distance;
      }
      const float along = sa.radius - 0.5f * overlap;
      const float p[3] = {sa.x + along * n[0], sa.y + along * n[1], sa.z + along * n[2]};
      float velocity_a[3];
      float velocity_b[3];
      point_velocity(a, p, velocity_a);
      point_velocity(b, p, velocity_b);
      const float relative[3] = {velocity_b[0] - velocity_a[0], velocity_b[1] - velocity_a[1],
                                 velocity_b[2] - velocity_a[2]};
      float f[3];
      if (!contact_force(overlap, n, relative, options, f)) continue;
      for (int axis = 0; axis < 3; ++axis)
        force_b[axis] += f[axis];
      add_torque(b.position, p, f, 1.0f, torque_b);
      add_torque(a.position, p, f, -1.0f, torque_a);
    }
  }
}

/// One step of dt for body i under gravity and its contact load (force, then torque):
/// v += dt (g + F / m), x += dt v; the angular momentum L = I_world w gains dt * torque, the
/// orientation turns by the angular velocity L gives, and the new angular velocity is L under
/// the new orientation. Damping scales the velocities last.
RSW_HOST_DEVICE inline void integrate_body(const BodyArrays& bodies, std::uint32_t i,
                                           const ShapeRecord& shape, const float (&load)[6],
                                           float dt, const RigidOptions& options) {
  float* position[3] = {bodies.x, bodies.y, bodies.z};
  float* velocity[3] = {bodies.vx, bodies.vy, bodies.vz};
  float* spin[3] = {bodies.wx, bodies.wy, bodies.wz};
  const float keep_linear = fmaxf(0.0f, 1.0f - options.linear_damping * dt);
  const float keep_angular = fmaxf(0.0f, 1.0f - options.angular_damping * dt);
  for (int axis = 0; axis < 3; ++axis) {
    const float v =
        velocity[axis][i] + dt * (options.gravity[axis] + load[axis] * shape.inverse_mass);
    position[axis][i] += dt * v;
    velocity[axis][i] = v * keep_linear;
  }
  float q[4] = {bodies.qx[i], bodies.qy[i], bodies.qz[i], bodies.qw[i]};
  float r[9];
  rotation_matrix(q[0], q[1], q[2], q[3], r);
  const float w[3] = {spin[0][i], spin[1][i], spin[2][i]};
  float momentum[3];
  apply_world_tensor(r, shape.inertia, w, momentum);
  for (int axis = 0; axis < 3; ++axis)
    momentum[axis] += dt * load[3 + axis];
  float turn[3];
  apply_world_tensor(r, shape.inverse_inertia, momentum, turn);
  // q += dt/2 (turn, 0) q, then back to unit length.
  const float h = 0.5f * dt;
  const float dq[4] = {h * (turn[0] * q[3] + turn[1] * q[2] - turn[2] * q[1]),
                       h * (turn[1] * q[3] + turn[2] * q[0] - turn[0] * q[2]),
                       h * (turn[2] * q[3] + turn[0] * q[1] - turn[1] * q[0]),
                       -h * (turn[0] * q[0] + turn[1] * q[1] + turn[2] * q[2])};
  float length_squared = 0.0f;
  for (int k = 0; k < 4; ++k) {
    q[k] += dq[k];
    length_squared += q[k] * q[k];
  }
  const float scale = 1.0f / sqrtf(length_squared);
  for (float& component : q)
    component *= scale;
  bodies.qx[i] = q[0];
  bodies.qy[i] = q[1];
  bodies.qz[i] = q[2];
  bodies.qw[i] = q[3];
  rotation_matrix(q[0], q[1], q[2], q[3], r);
  float spun[3];
  apply_world_tensor(r, shape.inverse_inertia, momentum, spun);
  for (int axis = 0; axis < 3; ++axis)
    spin[axis][i] = spun[axis] * keep_angular;
}

}  // namespace rsw::physics::detail
