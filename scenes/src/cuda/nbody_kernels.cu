#include <cuda_runtime.h>

#include "../nbody_gpu.hpp"
#include "launch.cuh"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::scenes::detail {
namespace {

__global__ void write_sprites(BodyField field, float display_radius, render::SphereInstance* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.motion.count) out[i] = body_sprite(field, i, display_radius);
}

}  // namespace

void write_sprites_on_gpu(const BodyField& field, float display_radius, render::SphereInstance* out,
                          StreamHandle stream) {
  if (field.motion.count == 0) return;
  write_sprites<<<blocks_for(field.motion.count), kThreads, 0, stream>>>(field, display_radius,
                                                                         out);
  RSW_CUDA_CHECK_LAUNCH("launching write_sprites");
}

}  // namespace rsw::scenes::detail
