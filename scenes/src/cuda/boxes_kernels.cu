#include <cuda_runtime.h>

#include "../boxes_gpu.hpp"
#include "launch.cuh"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"

namespace rsw::scenes::detail {
namespace {

__global__ void move_boxes(BoxField field, float dt) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) move_box(field, i, dt);
}

__global__ void count_touches(std::uint32_t* touches, const physics::Pair* pairs,
                              std::size_t count) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;
  atomicAdd(&touches[pairs[i].a], 1u);
  atomicAdd(&touches[pairs[i].b], 1u);
}

__global__ void write_instances(BoxField field, render::BoxInstance* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < field.count) out[i] = box_instance(field, i);
}

}  // namespace

void move_boxes_on_gpu(const BoxField& field, float dt, StreamHandle stream) {
  if (field.count == 0) return;
  move_boxes<<<blocks_for(field.count), kThreads, 0, stream>>>(field, dt);
  RSW_CUDA_CHECK_LAUNCH("launching move_boxes");
}

void count_touches_on_gpu(const BoxField& field, const physics::Pair* pairs, std::size_t count,
                          StreamHandle stream) {
  rsw::detail::fill_bytes_zero(field.touches, std::size_t{field.count} * sizeof(std::uint32_t),
                               stream);
  if (count == 0) return;
  count_touches<<<blocks_for(count), kThreads, 0, stream>>>(field.touches, pairs, count);
  RSW_CUDA_CHECK_LAUNCH("launching count_touches");
}

void write_instances_on_gpu(const BoxField& field, render::BoxInstance* out, StreamHandle stream) {
  if (field.count == 0) return;
  write_instances<<<blocks_for(field.count), kThreads, 0, stream>>>(field, out);
  RSW_CUDA_CHECK_LAUNCH("launching write_instances");
}

}  // namespace rsw::scenes::detail
