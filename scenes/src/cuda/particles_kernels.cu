#include <cuda_runtime.h>

#include "../particles_gpu.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr unsigned int kThreads = 256;

unsigned int blocks_for(std::size_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

__global__ void settle(ParticleField field, Landscape land) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) settle_on_landscape(field, land, i);
}

__global__ void advance(ParticleField field, float dt) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) advance_particle(field, i, dt);
}

__global__ void write_sprites(ParticleField field, render::SphereInstance* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) out[i] = particle_sprite(field, i);
}

}  // namespace

void settle_on_gpu(const ParticleField& field, const Landscape& land, StreamHandle stream) {
  if (field.count == 0) return;
  settle<<<blocks_for(field.count), kThreads, 0, stream>>>(field, land);
  RSW_CUDA_CHECK_LAUNCH("launching settle");
}

void advance_on_gpu(const ParticleField& field, float dt, StreamHandle stream) {
  if (field.count == 0) return;
  advance<<<blocks_for(field.count), kThreads, 0, stream>>>(field, dt);
  RSW_CUDA_CHECK_LAUNCH("launching advance");
}

void write_particle_sprites_on_gpu(const ParticleField& field, render::SphereInstance* out,
                                   StreamHandle stream) {
  if (field.count == 0) return;
  write_sprites<<<blocks_for(field.count), kThreads, 0, stream>>>(field, out);
  RSW_CUDA_CHECK_LAUNCH("launching write_sprites");
}

}  // namespace rsw::scenes::detail
