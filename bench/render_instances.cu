#include <cuda_runtime.h>

#include "render_instances.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::bench {
namespace {

__global__ void write(render::BoxInstance* out, std::size_t count, int frame) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < count) out[i] = bench_instance(i, count, frame);
}

}  // namespace

void write_instances_on_device(render::BoxInstance* out, std::size_t count, int frame,
                               StreamHandle stream) {
  if (count == 0) return;
  write<<<static_cast<unsigned int>((count + 255) / 256), 256, 0, stream>>>(out, count, frame);
  RSW_CUDA_CHECK_LAUNCH("launching the render bench's instance writer");
}

}  // namespace rsw::bench
