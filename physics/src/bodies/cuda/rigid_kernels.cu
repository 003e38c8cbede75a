// Rigid bodies on the GPU: a thread per body places its spheres (and finds their box, or their
// ground contacts), a thread per broad-phase pair tests the two bodies' spheres against each
// other, and a thread per body steps it. Contact forces and torques are summed per body in
// 64-bit fixed point: integer atomics commute, so every run gives the same bits.
#include <cuda_runtime.h>

#include "../rigid_gpu.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::physics::detail {
namespace {

constexpr unsigned int kThreads = 256;

unsigned int blocks_for(std::size_t items) {
  return static_cast<unsigned int>((items + kThreads - 1) / kThreads);
}

__device__ void add_fixed(unsigned long long* sum, float value) {
  if (value == 0.0f) return;
  // Two's complement: adding the unsigned image of a negative number subtracts it.
  atomicAdd(sum, static_cast<unsigned long long>(llrintf(value * kLoadScale)));
}

// Body i's box: its spheres placed in the world, one at a time.
__global__ void rigid_bounds(BodyArrays bodies, const ShapeRecord* shapes,
                             const SphereRecord* table, float* low_x, float* low_y, float* low_z,
                             float* high_x, float* high_y, float* high_z) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= bodies.count) return;
  float low[3];
  float high[3];
  body_bounds(bodies, i, shapes[shape_of(bodies, i)], table, low, high);
  low_x[i] = low[0];
  low_y[i] = low[1];
  low_z[i] = low[2];
  high_x[i] = high[0];
  high_y[i] = high[1];
  high_z[i] = high[2];
}

// Body i's spheres placed in the world (kept for pair_contacts), and their ground contacts as
// the body's first force and torque sums.
__global__ void place_and_ground(BodyArrays bodies, const ShapeRecord* shapes,
                                 const SphereRecord* table, std::uint32_t max_spheres,
                                 SphereRecord* placed, RigidOptions options, long long* loads) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= bodies.count) return;
  const ShapeRecord shape = shapes[shape_of(bodies, i)];
  SphereRecord* mine = placed + std::size_t{i} * max_spheres;
  place_spheres(bodies, i, shape, table, mine);
  float force[3] = {0.0f, 0.0f, 0.0f};
  float torque[3] = {0.0f, 0.0f, 0.0f};
  if (options.ground) ground_loads(mine, shape.count, motion_of(bodies, i), options, force, torque);
  // This thread owns the body's sums until the pairs run: plain stores, no atomics.
  for (int axis = 0; axis < 3; ++axis) {
    loads[6 * std::size_t{i} + axis] = llrintf(force[axis] * kLoadScale);
    loads[6 * std::size_t{i} + 3 + axis] = llrintf(torque[axis] * kLoadScale);
  }
}

// Pair k's sphere contacts, added to both bodies' sums. A pair naming a body past the count
// (a stale list) is skipped.
__global__ void pair_contacts(BodyArrays bodies, const ShapeRecord* shapes,
                              std::uint32_t max_spheres, const SphereRecord* placed,
                              DeviceSpan<const Pair> pairs, RigidOptions options,
                              unsigned long long* loads) {
  const std::size_t k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (k >= pairs.size) return;
  const std::uint32_t a = pairs.data[k].a;
  const std::uint32_t b = pairs.data[k].b;
  if (a >= bodies.count || b >= bodies.count) return;
  float force_b[3] = {0.0f, 0.0f, 0.0f};
  float torque_a[3] = {0.0f, 0.0f, 0.0f};
  float torque_b[3] = {0.0f, 0.0f, 0.0f};
  pair_loads(placed + std::size_t{a} * max_spheres, shapes[shape_of(bodies, a)],
             placed + std::size_t{b} * max_spheres, shapes[shape_of(bodies, b)],
             motion_of(bodies, a), motion_of(bodies, b), options, force_b, torque_a, torque_b);
  for (int axis = 0; axis < 3; ++axis) {
    add_fixed(&loads[6 * std::size_t{b} + axis], force_b[axis]);
    add_fixed(&loads[6 * std::size_t{a} + axis], -force_b[axis]);
    add_fixed(&loads[6 * std::size_t{b} + 3 + axis], torque_b[axis]);
    add_fixed(&loads[6 * std::size_t{a} + 3 + axis], torque_a[axis]);
  }
}

// Body i stepped under gravity and its sums (none when `loads` is null).
__global__ void integrate_bodies(BodyArrays bodies, const ShapeRecord* shapes,
                                 const long long* loads, float dt, RigidOptions options) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= bodies.count) return;
  float load[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  if (loads != nullptr) {
    for (int k = 0; k < 6; ++k)
      load[k] = static_cast<float>(loads[6 * std::size_t{i} + k]) / kLoadScale;
  }
  integrate_body(bodies, i, shapes[shape_of(bodies, i)], load, dt, options);
}

}  // namespace

void launch_rigid_bounds(const BodyArrays& bodies, const ShapeRecord* shapes,
                         const SphereRecord* table, DeviceSpan<float> low[3],
                         DeviceSpan<float> high[3], StreamHandle stream) {
  if (bodies.count == 0) return;
  rigid_bounds<<<blocks_for(bodies.count), kThreads, 0, stream>>>(
      bodies, shapes, table, low[0].data, low[1].data, low[2].data, high[0].data, high[1].data,
      high[2].data);
  RSW_CUDA_CHECK_LAUNCH("launching rigid_bounds");
}

void launch_rigid_collide(const BodyArrays& bodies, const ShapeRecord* shapes,
                          const SphereRecord* table, std::uint32_t max_spheres,
                          SphereRecord* placed, DeviceSpan<const Pair> pairs,
                          const RigidOptions& options, long long* loads, StreamHandle stream) {
  if (bodies.count == 0) return;
  place_and_ground<<<blocks_for(bodies.count), kThreads, 0, stream>>>(
      bodies, shapes, table, max_spheres, placed, options, loads);
  RSW_CUDA_CHECK_LAUNCH("launching place_and_ground");
  if (pairs.size == 0) return;
  pair_contacts<<<blocks_for(pairs.size), kThreads, 0, stream>>>(
      bodies, shapes, max_spheres, placed, pairs, options,
      reinterpret_cast<unsigned long long*>(loads));
  RSW_CUDA_CHECK_LAUNCH("launching pair_contacts");
}

void launch_rigid_integrate(const BodyArrays& bodies, const ShapeRecord* shapes,
                            const long long* loads, float dt, const RigidOptions& options,
                            StreamHandle stream) {
  if (bodies.count == 0) return;
  integrate_bodies<<<blocks_for(bodies.count), kThreads, 0, stream>>>(bodies, shapes, loads, dt,
                                                                      options);
  RSW_CUDA_CHECK_LAUNCH("launching integrate_bodies");
}

}  // namespace rsw::physics::detail
