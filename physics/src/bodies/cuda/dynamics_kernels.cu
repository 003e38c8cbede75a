// Tiled all-pairs gravity (each block stages 256 bodies at a time in shared memory; each
// thread sums its body's pulls in body order, so the result is the same every run) and
// sphere contacts summed per body in 64-bit fixed point (integer atomics commute).
#include <cuda_runtime.h>

#include <cmath>

#include "../dynamics_gpu.hpp"
#include "../dynamics_math.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::physics::detail {
namespace {

constexpr int kTile = 256;

__global__ void __launch_bounds__(kTile)
    gravity_tiles(DeviceSphereBodies bodies, DeviceAccelerations out, float constant,
                  float softening_squared) {
  __shared__ float4 tile[kTile];
  const std::size_t count = bodies.x.size;
  const std::size_t i = std::size_t{blockIdx.x} * kTile + threadIdx.x;
  const bool mine = i < count;
  const float x = mine ? bodies.x.data[i] : 0.0f;
  const float y = mine ? bodies.y.data[i] : 0.0f;
  const float z = mine ? bodies.z.data[i] : 0.0f;
  float ax = 0.0f;
  float ay = 0.0f;
  float az = 0.0f;
  for (std::size_t first = 0; first < count; first += kTile) {
    const std::size_t j = first + threadIdx.x;
    tile[threadIdx.x] = j < count ? make_float4(bodies.x.data[j], bodies.y.data[j],
                                                bodies.z.data[j], bodies.mass.data[j])
                                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // massless: no pull
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTile; ++k) {
      const float4 other = tile[k];
      add_pull(x, y, z, other.x, other.y, other.z, other.w, softening_squared, ax, ay, az);
    }
    __syncthreads();
  }
  if (mine) {
    out.x.data[i] = constant * ax;
    out.y.data[i] = constant * ay;
    out.z.data[i] = constant * az;
  }
}

__device__ long long fixed(float value) {
  return llrintf(value * kForceScale);
}

__global__ void contact_forces(DeviceSphereBodies bodies, DeviceSpan<const Pair> pairs,
                               ContactOptions options, unsigned long long* sums) {
  const std::size_t k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (k >= pairs.size) return;
  const std::size_t count = bodies.x.size;
  const std::uint32_t a = pairs.data[k].a;
  const std::uint32_t b = pairs.data[k].b;
  const float pa[3] = {bodies.x.data[a], bodies.y.data[a], bodies.z.data[a]};
  const float pb[3] = {bodies.x.data[b], bodies.y.data[b], bodies.z.data[b]};
  const float va[3] = {bodies.vx.data[a], bodies.vy.data[a], bodies.vz.data[a]};
  const float vb[3] = {bodies.vx.data[b], bodies.vy.data[b], bodies.vz.data[b]};
  float force[3];
  contact_force(pa, pb, va, vb, bodies.radius.data[a], bodies.radius.data[b], options.stiffness,
                options.damping, force);
  for (int axis = 0; axis < 3; ++axis) {
    if (force[axis] == 0.0f) continue;
    const long long units = fixed(force[axis]);
    // Two's complement: adding the unsigned image of a negative number subtracts it.
    atomicAdd(&sums[axis * count + b], static_cast<unsigned long long>(units));
    atomicAdd(&sums[axis * count + a], static_cast<unsigned long long>(-units));
  }
}

__global__ void add_contact_sums(DeviceSphereBodies bodies, const long long* sums,
                                 DeviceAccelerations out) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t count = bodies.x.size;
  if (i >= count) return;
  const float inverse_mass = 1.0f / bodies.mass.data[i];
  float* axes[3] = {out.x.data, out.y.data, out.z.data};
  for (int axis = 0; axis < 3; ++axis) {
    const long long sum = sums[axis * count + i];
    if (sum != 0) axes[axis][i] += static_cast<float>(sum) / kForceScale * inverse_mass;
  }
}

unsigned int blocks_for(std::size_t items, int threads) {
  return static_cast<unsigned int>((items + threads - 1) / threads);
}

}  // namespace

void launch_gravity(const DeviceSphereBodies& bodies, DeviceAccelerations out,
                    const GravityOptions& options, StreamHandle stream) {
  gravity_tiles<<<blocks_for(bodies.x.size, kTile), kTile, 0, stream>>>(
      bodies, out, options.constant, options.softening * options.softening);
  RSW_CUDA_CHECK_LAUNCH("launching gravity_tiles");
}

void launch_contacts(const DeviceSphereBodies& bodies, DeviceSpan<const Pair> pairs,
                     DeviceAccelerations out, const ContactOptions& options, long long* sums,
                     StreamHandle stream) {
  const std::size_t count = bodies.x.size;
  rsw::detail::fill_bytes_zero(sums, 3 * count * sizeof(long long), stream);
  if (pairs.size > 0) {
    contact_forces<<<blocks_for(pairs.size, 256), 256, 0, stream>>>(
        bodies, pairs, options, reinterpret_cast<unsigned long long*>(sums));
    RSW_CUDA_CHECK_LAUNCH("launching contact_forces");
  }
  add_contact_sums<<<blocks_for(count, 256), 256, 0, stream>>>(bodies, sums, out);
  RSW_CUDA_CHECK_LAUNCH("launching add_contact_sums");
}

}  // namespace rsw::physics::detail
