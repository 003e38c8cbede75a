// An empty kernel whose attributes tell whether the device can run this build's GPU code:
// cudaFuncGetAttributes fails with cudaErrorNoKernelImageForDevice when the fat binary has no
// SASS for the device and no PTX it can compile.
#include "probe_kernel.hpp"

namespace rsw::detail {
namespace {

__global__ void empty_kernel() {}

}  // namespace

cudaError_t probe_kernel_image(int ordinal) {
  int previous = 0;
  if (const cudaError_t status = cudaGetDevice(&previous); status != cudaSuccess) return status;
  if (const cudaError_t status = cudaSetDevice(ordinal); status != cudaSuccess) return status;
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, empty_kernel);
  cudaSetDevice(previous);
  return status;
}

}  // namespace rsw::detail
