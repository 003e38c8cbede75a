// GPU bounds: a thread per sphere; a warp per point set (lanes stride over the object's
// points, then a shuffle reduction), so long and short objects alike read coalesced.
#include <cuda_runtime.h>

#include <cmath>

#include "../bounds_math.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::physics::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / 32;

struct BoundsOut {
  float* min[3];
  float* max[3];
};

/// Thread i: the box of sphere i.
__global__ void sphere_bounds(const float* x, const float* y, const float* z, const float* radius,
                              std::uint32_t count, BoundsOut out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float centre[3] = {x[i], y[i], z[i]};
  const float r = radius[i];
#pragma unroll
  for (int axis = 0; axis < 3; ++axis) {
    out.min[axis][i] = centre[axis] - r;
    out.max[axis][i] = centre[axis] + r;
  }
}

/// Warp k: the box of object k's points [first[k], first[k + 1]).
__global__ void point_set_bounds(const float* x, const float* y, const float* z,
                                 const std::uint32_t* first, std::uint32_t objects,
                                 std::uint32_t points, BoundsOut out) {
  const std::uint32_t object = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  if (object >= objects) return;  // whole warps leave together
  const unsigned int lane = threadIdx.x % 32;
  const std::uint32_t begin = first[object];
  const std::uint32_t end = min(first[object + 1], points);
  const float* coordinates[3] = {x, y, z};
  float low[3] = {INFINITY, INFINITY, INFINITY};
  float high[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::uint32_t point = begin + lane; point < end; point += 32) {
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
      const float value = coordinates[axis][point];
      low[axis] = lower(low[axis], value);
      high[axis] = upper(high[axis], value);
    }
  }
#pragma unroll
  for (int axis = 0; axis < 3; ++axis) {
    for (int offset = 16; offset > 0; offset /= 2) {
      low[axis] = lower(low[axis], __shfl_down_sync(0xFFFFFFFFu, low[axis], offset));
      high[axis] = upper(high[axis], __shfl_down_sync(0xFFFFFFFFu, high[axis], offset));
    }
  }
  if (lane == 0) {
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
      out.min[axis][object] = without_negative_zero(low[axis]);
      out.max[axis][object] = without_negative_zero(high[axis]);
    }
  }
}

BoundsOut bounds_out(float* const (&min)[3], float* const (&max)[3]) {
  return {{min[0], min[1], min[2]}, {max[0], max[1], max[2]}};
}

}  // namespace

void launch_sphere_bounds(const float* x, const float* y, const float* z, const float* radius,
                          std::size_t count, float* const (&min)[3], float* const (&max)[3],
                          StreamHandle stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned int>((count + kThreads - 1) / kThreads);
  sphere_bounds<<<blocks, kThreads, 0, stream>>>(x, y, z, radius, static_cast<std::uint32_t>(count),
                                                 bounds_out(min, max));
  RSW_CUDA_CHECK_LAUNCH("launching sphere_bounds");
}

void launch_point_set_bounds(const float* x, const float* y, const float* z,
                             const std::uint32_t* first, std::size_t objects, std::size_t points,
                             float* const (&min)[3], float* const (&max)[3], StreamHandle stream) {
  if (objects == 0) return;
  const auto blocks = static_cast<unsigned int>((objects + kWarpsPerBlock - 1) / kWarpsPerBlock);
  point_set_bounds<<<blocks, kThreads, 0, stream>>>(
      x, y, z, first, static_cast<std::uint32_t>(objects), static_cast<std::uint32_t>(points),
      bounds_out(min, max));
  RSW_CUDA_CHECK_LAUNCH("launching point_set_bounds");
}

}  // namespace rsw::physics::detail
