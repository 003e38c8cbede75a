#include <cuda_runtime.h>

#include "rsw/engine/cuda_check.hpp"
#include "test_instances.hpp"

namespace rsw::render::testing {
namespace {

__host__ __device__ BoxInstance instance(std::size_t i) {
  BoxInstance box;
  if (i < 2) {
    box.centre[0] = i == 0 ? -2.0f : 2.0f;
    box.size[0] = box.size[1] = box.size[2] = 1.5f;
    box.colour[0] = i == 0 ? 1.0f : 0.0f;
    box.colour[1] = 0.0f;
    box.colour[2] = i == 0 ? 0.0f : 1.0f;
    return box;
  }
  box.centre[0] = -3.0f + 6.0f * static_cast<float>(i % 100) / 99.0f;
  box.centre[1] = -3.0f + 6.0f * static_cast<float>(i / 100 % 100) / 99.0f;
  box.size[0] = box.size[1] = box.size[2] = 0.02f;
  box.colour[0] = box.colour[1] = 1.0f;
  box.colour[2] = 0.0f;
  return box;
}

__host__ __device__ SphereInstance sphere(std::size_t i) {
  SphereInstance sprite;
  sprite.centre[0] = -3.0f + 6.0f * static_cast<float>(i % 100) / 99.0f;
  sprite.centre[1] = -3.0f + 6.0f * static_cast<float>(i / 100 % 100) / 99.0f;
  sprite.centre[2] = -static_cast<float>(i % 7);
  sprite.radius = i == 0 ? 1.0f : 0.03f;
  sprite.colour[0] = static_cast<float>(i % 3) / 2.0f;
  sprite.colour[1] = 1.0f;
  sprite.colour[2] = 0.5f;
  return sprite;
}

__global__ void write(BoxInstance* out, std::size_t count) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < count) out[i] = instance(i);
}

__global__ void write(SphereInstance* out, std::size_t count) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < count) out[i] = sphere(i);
}

}  // namespace

std::vector<BoxInstance> host_instances(std::size_t count) {
  std::vector<BoxInstance> boxes(count);
  for (std::size_t i = 0; i < count; ++i)
    boxes[i] = instance(i);
  return boxes;
}

void write_instances(BoxInstance* out, std::size_t count, StreamHandle stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned int>((count + 255) / 256);
  write<<<blocks, 256, 0, stream>>>(out, count);
  RSW_CUDA_CHECK_LAUNCH("launching the test instance writer");
}

std::vector<SphereInstance> host_spheres(std::size_t count) {
  std::vector<SphereInstance> spheres(count);
  for (std::size_t i = 0; i < count; ++i)
    spheres[i] = sphere(i);
  return spheres;
}

void write_spheres(SphereInstance* out, std::size_t count, StreamHandle stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned int>((count + 255) / 256);
  write<<<blocks, 256, 0, stream>>>(out, count);
  RSW_CUDA_CHECK_LAUNCH("launching the test sphere writer");
}

}  // namespace rsw::render::testing
