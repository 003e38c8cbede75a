// The chairs scene's GPU step: each chair's instance written into the renderer's mapped buffer.
#include <cuda_runtime.h>

#include "../chairs_math.hpp"
#include "launch.cuh"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::scenes::detail {
namespace {

__global__ void write_chair_instances(ChairField field, render::BoxInstance* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) out[i] = chair_instance(field, i);
}

}  // namespace

void write_chair_instances_on_gpu(const ChairField& field, render::BoxInstance* out,
                                  StreamHandle stream) {
  if (field.count == 0) return;
  write_chair_instances<<<blocks_for(field.count), kThreads, 0, stream>>>(field, out);
  RSW_CUDA_CHECK_LAUNCH("launching write_chair_instances");
}

}  // namespace rsw::scenes::detail
