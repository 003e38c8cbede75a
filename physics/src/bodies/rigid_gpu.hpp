// The GPU side of rigid_bodies.hpp (cuda/rigid_kernels.cu); a build without CUDA throws
// rsw::Error (DeviceUnavailable) from each launch (cpu_only/no_cuda_rigid.cpp).
#pragma once

#include <memory>
#include <vector>

#include "rigid_math.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/physics/rigid_bodies.hpp"

namespace rsw::physics {
namespace detail {

/// A world's shapes on the device, the bodies' placed spheres and their contact sums.
struct RigidDevice {
  DeviceBuffer<ShapeRecord> shapes;
  DeviceBuffer<SphereRecord> table;   // every shape's spheres, body frame
  DeviceBuffer<SphereRecord> placed;  // max_spheres per body, world
  DeviceBuffer<long long> loads;      // fixed-point force and torque, 6 per body
  std::size_t loaded = 0;             // bodies `loads` holds (0: none to apply)
};

}  // namespace detail

/// What a RigidWorld keeps besides its shapes.
struct RigidWorld::State {
  std::vector<detail::ShapeRecord> records;
  std::vector<detail::SphereRecord> table;  // every shape's spheres, body frame
  std::uint32_t max_spheres = 0;            // of any shape
  std::vector<detail::SphereRecord> placed;  // the host's, max_spheres per body
  std::vector<float> loads;  // the host's force then torque, 6 per body; empty: none to apply
  std::vector<float> pair_terms;  // the host's loads of each pair: force on b, torques on a, b
  std::unique_ptr<detail::RigidDevice> device;  // made on the first GPU call
  int threads = 0;                              // of the CPU paths (0: hardware threads)

  /// The device side, the shapes uploaded on first use.
  detail::RigidDevice& on_device(StreamHandle stream);
};

namespace detail {

/// Fixed-point units per unit of force or torque: 2^24.
inline constexpr float kLoadScale = 16777216.0f;

void launch_rigid_bounds(const BodyArrays& bodies, const ShapeRecord* shapes,
                         const SphereRecord* table, DeviceSpan<float> low[3],
                         DeviceSpan<float> high[3], StreamHandle stream);
/// Zeroes `loads` (6 per body), places every body's spheres, and sums the ground's and the
/// pairs' contacts into `loads`.
void launch_rigid_collide(const BodyArrays& bodies, const ShapeRecord* shapes,
                          const SphereRecord* table, std::uint32_t max_spheres,
                          SphereRecord* placed, DeviceSpan<const Pair> pairs,
                          const RigidOptions& options, long long* loads, StreamHandle stream);
/// integrate_body() for every body; `loads` may be null (no contacts).
void launch_rigid_integrate(const BodyArrays& bodies, const ShapeRecord* shapes,
                            const long long* loads, float dt, const RigidOptions& options,
                            StreamHandle stream);

}  // namespace detail
}  // namespace rsw::physics
