#include <cuda_runtime.h>

#include "../nbody_gpu.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr unsigned int kThreads = 256;

unsigned int blocks_for(std::size_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

__global__ void kick_drift_bodies(BodyField field, float h, float dt) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) kick_drift(field, i, h, dt);
}

__global__ void write_sprites(BodyField field, float display_radius, render::SphereInstance* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) out[i] = body_sprite(field, i, display_radius);
}

}  // namespace

void kick_drift_on_gpu(const BodyField& field, float h, float dt, StreamHandle stream) {
  if (field.count == 0) return;
  kick_drift_bodies<<<blocks_for(field.count), kThreads, 0, stream>>>(field, h, dt);
  RSW_CUDA_CHECK_LAUNCH("launching kick_drift_bodies");
}

void write_sprites_on_gpu(const BodyField& field, float display_radius, render::SphereInstance* out,
                          StreamHandle stream) {
  if (field.count == 0) return;
  write_sprites<<<blocks_for(field.count), kThreads, 0, stream>>>(field, display_radius, out);
  RSW_CUDA_CHECK_LAUNCH("launching write_sprites");
}

}  // namespace rsw::scenes::detail
