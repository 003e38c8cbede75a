// The arithmetic of bounds.hpp, shared by the CPU functions and the kernels so that both give
// the same bits.
#pragma once

#include <cstdint>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/host_device.hpp"

namespace rsw::physics::detail {

/// min and max that let NaN win (a NaN point makes the box invalid rather than vanish), so
/// the result does not depend on the order of the points.
RSW_HOST_DEVICE inline float lower(float low, float value) {
  return value < low || value != value ? value : low;
}
RSW_HOST_DEVICE inline float upper(float high, float value) {
  return value > high || value != value ? value : high;
}
/// -0 becomes +0, so that reductions in any order give the same bits. NaN stays as it is
/// (the GPU's arithmetic would make any NaN its canonical one; the CPU's keeps the payload).
RSW_HOST_DEVICE inline float without_negative_zero(float value) {
  return value != value ? value : value + 0.0f;
}

/// The GPU halves of compute_bounds (sizes checked by the caller).
void launch_sphere_bounds(const float* x, const float* y, const float* z, const float* radius,
                          std::size_t count, float* const (&min)[3], float* const (&max)[3],
                          StreamHandle stream);
void launch_point_set_bounds(const float* x, const float* y, const float* z,
                             const std::uint32_t* first, std::size_t objects, std::size_t points,
                             float* const (&min)[3], float* const (&max)[3], StreamHandle stream);

}  // namespace rsw::physics::detail
