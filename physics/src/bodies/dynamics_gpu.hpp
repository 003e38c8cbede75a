// The GPU side of dynamics.hpp (cuda/dynamics_kernels.cu); a build without CUDA throws
// rsw::Error (DeviceUnavailable) from each (cpu_only/no_cuda_dynamics.cpp).
#pragma once

#include "rsw/physics/dynamics.hpp"

namespace rsw::physics::detail {

void launch_gravity(const DeviceSphereBodies& bodies, DeviceAccelerations out,
                    const GravityOptions& options, StreamHandle stream);
/// `sums` holds 3 * bodies fixed-point entries; zeroed here, then the pairs, then the sums
/// added to `out`.
void launch_contacts(const DeviceSphereBodies& bodies, DeviceSpan<const Pair> pairs,
                     DeviceAccelerations out, const ContactOptions& options, long long* sums,
                     StreamHandle stream);

/// Fixed-point units per unit of force on the GPU: 2^24.
inline constexpr float kForceScale = 16777216.0f;

}  // namespace rsw::physics::detail
