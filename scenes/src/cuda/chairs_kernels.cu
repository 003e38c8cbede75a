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

__global__ void pack_boxes(physics::DeviceAabbArrays bounds, physics::Aabb* out,
                           std::size_t count) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < count) {
    out[i] = {{bounds.min_x.data[i], bounds.min_y.data[i], bounds.min_z.data[i]},
              {bounds.max_x.data[i], bounds.max_y.data[i], bounds.max_z.data[i]}};
  }
}

__global__ void fade(float* flash, std::uint32_t count, float step) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) flash[i] = fmaxf(flash[i] - step, 0.0f);
}

__global__ void flash_found(float* flash, std::uint32_t count, const physics::ProxyPair* found,
                            std::size_t pairs) {
  const std::size_t k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (k < pairs) flash_pair(flash, count, found[k]);
}

}  // namespace

void pack_chair_boxes_on_gpu(const physics::DeviceAabbArrays& bounds, physics::Aabb* out,
                             std::size_t count, StreamHandle stream) {
  if (count == 0) return;
  pack_boxes<<<blocks_for(count), kThreads, 0, stream>>>(bounds, out, count);
  RSW_CUDA_CHECK_LAUNCH("launching pack_boxes");
}

void flash_chairs_on_gpu(float* flash, std::uint32_t count, float step,
                         DeviceSpan<const physics::ProxyPair> found, StreamHandle stream) {
  if (count > 0) {
    fade<<<blocks_for(count), kThreads, 0, stream>>>(flash, count, step);
    RSW_CUDA_CHECK_LAUNCH("launching fade");
  }
  if (found.size > 0) {
    flash_found<<<blocks_for(found.size), kThreads, 0, stream>>>(flash, count, found.data,
                                                                 found.size);
    RSW_CUDA_CHECK_LAUNCH("launching flash_found");
  }
}

void write_chair_instances_on_gpu(const ChairField& field, render::BoxInstance* out,
                                  StreamHandle stream) {
  if (field.count == 0) return;
  write_chair_instances<<<blocks_for(field.count), kThreads, 0, stream>>>(field, out);
  RSW_CUDA_CHECK_LAUNCH("launching write_chair_instances");
}

}  // namespace rsw::scenes::detail
