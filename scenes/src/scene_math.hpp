// What the scenes' per-body rules share, compiled for the CPU loops and the GPU kernels alike:
// rounding that the GPU reproduces bit for bit, and the bodies' motion.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rsw/engine/host_device.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::scenes::detail {

// a * b and a + b rounded each, never fused into one multiply-add: the GPU then computes
// what the CPU does, bit for bit, and both backends run the same scene.
RSW_HOST_DEVICE inline float multiply(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
RSW_HOST_DEVICE inline float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// Positions, velocities and accelerations of `count` bodies, n floats per coordinate (host or
/// device memory alike).
struct Motion {
  float* position[3];
  float* velocity[3];
  float* acceleration[3];
  std::uint32_t count;
};

/// v += a * h, then (when dt > 0) x += v * dt for body i: a leapfrog's kick and drift, or with
/// h = dt a semi-implicit Euler step.
RSW_HOST_DEVICE inline void kick_drift(const Motion& motion, std::uint32_t i, float h, float dt) {
  for (int axis = 0; axis < 3; ++axis) {
    const float velocity = add(motion.velocity[axis][i], multiply(motion.acceleration[axis][i], h));
    motion.velocity[axis][i] = velocity;
    if (dt > 0.0f) {
      motion.position[axis][i] = add(motion.position[axis][i], multiply(velocity, dt));
    }
  }
}

/// kick_drift() for every body on the GPU, queued on `stream` (cuda/scene_kernels.cu).
void kick_drift_on_gpu(const Motion& motion, float h, float dt, StreamHandle stream);
/// A highlight: instance `index` drawn in `colour` (linear RGB) instead of its own.
struct Paint {
  std::uint32_t index;
  float colour[3];
};

/// Paints `count` paints into the instance records at `records` (device memory: `instances`
/// records of `stride` bytes, each with its colour's three floats `colour_offset` bytes in),
/// queued on `stream`; paints of indices past the instances are left out
/// (cuda/scene_kernels.cu).
void paint_instances_on_gpu(void* records, std::size_t stride, std::size_t colour_offset,
                            std::uint32_t instances, const Paint* paints, std::size_t count,
                            StreamHandle stream);

/// kick_drift() for every body on the CPU.
inline void kick_drift_on_cpu(const Motion& motion, float h, float dt) {
  for (std::uint32_t i = 0; i < motion.count; ++i)
    kick_drift(motion, i, h, dt);
}

}  // namespace rsw::scenes::detail
