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

}  // namespace

void kick_drift_on_gpu(const Motion& motion, float h, float dt, StreamHandle stream) {
  if (motion.count == 0) return;
  kick_drift_bodies<<<blocks_for(motion.count), kThreads, 0, stream>>>(motion, h, dt);
  RSW_CUDA_CHECK_LAUNCH("launching kick_drift_bodies");
}

}  // namespace rsw::scenes::detail
