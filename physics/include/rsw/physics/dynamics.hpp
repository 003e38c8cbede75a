// rsw::physics dynamics for the scenes: softened all-pairs gravity (tiled on the GPU) and
// spring-dashpot contacts between spheres that the broad phase found overlapping, both as
// accelerations, on the CPU and the GPU. Both are deterministic on a given backend: the same
// bodies give the same bits, run after run.
//
//   gravity(bodies, accelerations, {.constant = 1, .softening = 0.02f});   // a = gravity
//   contacts.add(bodies, broad_phase.find_pairs(), accelerations, options); // a += contacts
#pragma once

#include <cstddef>
#include <span>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/aabb.hpp"

namespace rsw::physics {

/// n spheres as arrays of n floats in host memory.
struct SphereBodies {
  /// Centres, velocities, masses (> 0) and radii of body i.
  ///@{
  std::span<const float> x, y, z;
  std::span<const float> vx, vy, vz;
  std::span<const float> mass;
  std::span<const float> radius;
  ///@}
};

/// SphereBodies in device memory.
struct DeviceSphereBodies {
  /// Centres, velocities, masses (> 0) and radii of body i.
  ///@{
  DeviceSpan<const float> x, y, z;
  DeviceSpan<const float> vx, vy, vz;
  DeviceSpan<const float> mass;
  DeviceSpan<const float> radius;
  ///@}
};

/// Accelerations, one per body, in host memory.
struct Accelerations {
  /// Components along x, y and z.
  ///@{
  std::span<float> x, y, z;
  ///@}
};

/// Accelerations in device memory.
struct DeviceAccelerations {
  /// Components along x, y and z.
  ///@{
  DeviceSpan<float> x, y, z;
  ///@}
};

/// Newtonian gravity with Plummer softening.
struct GravityOptions {
  float constant = 1.0f;    ///< G
  float softening = 0.02f;  ///< epsilon: the force of two bodies closer than this levels off
};

/// Spring-dashpot contacts: two spheres overlapping by delta, closing at speed v along their
/// normal, push apart with force max(0, stiffness * delta - damping * v_separating).
struct ContactOptions {
  float stiffness = 1.0f;  ///< force per unit of overlap
  float damping = 0.0f;    ///< force per unit of normal speed
};

/// Writes a_i = G * sum over j != i of m_j (x_j - x_i) / (|x_j - x_i|^2 + epsilon^2)^(3/2)
/// for every body: all pairs, O(n^2), on `threads` threads (0: one per hardware thread).
/// Throws rsw::Error (InvalidArgument) when the arrays' sizes differ.
RSW_API void gravity(const SphereBodies& bodies, Accelerations out, const GravityOptions& options,
                     int threads = 0);
/// The same on the GPU, in tiles of 256 bodies through shared memory, queued on `stream`.
RSW_API void gravity(const DeviceSphereBodies& bodies, DeviceAccelerations out,
                     const GravityOptions& options, StreamHandle stream = nullptr);

/// Adds the accelerations of sphere contacts: for each pair whose spheres overlap, the
/// spring-dashpot force of ContactOptions, divided by each body's mass. The GPU sums each
/// body's forces in 64-bit fixed point (2^-24 units), so the order pairs come in does not
/// change the result. Keeps its GPU scratch between calls; not thread-safe.
class RSW_API SphereContacts {
 public:
  /// In pair order, in float.
  void add(const SphereBodies& bodies, std::span<const Pair> pairs, Accelerations out,
           const ContactOptions& options);
  /// On the GPU, queued on `stream`.
  void add(const DeviceSphereBodies& bodies, DeviceSpan<const Pair> pairs, DeviceAccelerations out,
           const ContactOptions& options, StreamHandle stream = nullptr);

 private:
  DeviceBuffer<long long> sums_;  // three fixed-point force sums per body
};

/// Sum of m v^2 / 2, in double.
RSW_API double kinetic_energy(const SphereBodies& bodies);
/// -G * sum over pairs of m_i m_j / sqrt(r^2 + epsilon^2), in double, O(n^2): the potential
/// whose gradient gravity() follows.
RSW_API double potential_energy(const SphereBodies& bodies, const GravityOptions& options);

}  // namespace rsw::physics
