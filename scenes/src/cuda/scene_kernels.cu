#include <cuda_runtime.h>

#include "../scene_math.hpp"
#include "launch.cuh"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::scenes::detail {
namespace {

__global__ void kick_drift_bodies(Motion motion, float h, float dt) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < motion.count) kick_drift(motion, i, h, dt);
}

// Thread k: paint k, when its instance exists (records are 4-byte aligned).
__global__ void paint_instances(char* records, std::size_t stride, std::size_t colour_offset,
                                std::uint32_t instances, const Paint* paints, std::size_t count) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  const Paint paint = paints[k];
  if (paint.index >= instances) return;
  auto* colour = reinterpret_cast<float*>(records + paint.index * stride + colour_offset);
  for (int channel = 0; channel < 3; ++channel)
    colour[channel] = paint.colour[channel];
}

}  // namespace

void paint_instances_on_gpu(void* records, std::size_t stride, std::size_t colour_offset,
                            std::uint32_t instances, const Paint* paints, std::size_t count,
                            StreamHandle stream) {
  if (count == 0) return;
  paint_instances<<<blocks_for(count), kThreads, 0, stream>>>(
      static_cast<char*>(records), stride, colour_offset, instances, paints, count);
  RSW_CUDA_CHECK_LAUNCH("launching paint_instances");
}

void kick_drift_on_gpu(const Motion& motion, float h, float dt, StreamHandle stream) {
  if (motion.count == 0) return;
  kick_drift_bodies<<<blocks_for(motion.count), kThreads, 0, stream>>>(motion, h, dt);
  RSW_CUDA_CHECK_LAUNCH("launching kick_drift_bodies");
}

}  // namespace rsw::scenes::detail
