#include <cuda_runtime.h>

#include "../particles_gpu.hpp"
#include "launch.cuh"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::scenes::detail {
namespace {

__global__ void settle(ParticleField field, Landscape land) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.motion.count) settle_on_landscape(field, land, i);
}

__global__ void write_sprites(ParticleField field, render::SphereInstance* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.motion.count) out[i] = particle_sprite(field, i);
}

}  // namespace

void settle_on_gpu(const ParticleField& field, const Landscape& land, StreamHandle stream) {
  if (field.motion.count == 0) return;
  settle<<<blocks_for(field.motion.count), kThreads, 0, stream>>>(field, land);
  RSW_CUDA_CHECK_LAUNCH("launching settle");
}

void write_particle_sprites_on_gpu(const ParticleField& field, render::SphereInstance* out,
                                   StreamHandle stream) {
  if (field.motion.count == 0) return;
  write_sprites<<<blocks_for(field.motion.count), kThreads, 0, stream>>>(field, out);
  RSW_CUDA_CHECK_LAUNCH("launching write_sprites");
}

}  // namespace rsw::scenes::detail
