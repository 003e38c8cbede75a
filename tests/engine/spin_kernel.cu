#include "spin_kernel.hpp"

#include <cstdint>

#include "rsw/engine/cuda_check.hpp"

namespace rsw::test {
namespace {

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t nanoseconds;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanoseconds));
  return nanoseconds;
}

__global__ void spin_kernel(std::uint64_t nanoseconds) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < nanoseconds) {
  }
}

}  // namespace

void spin_on_gpu(double milliseconds, StreamHandle stream) {
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(milliseconds * 1e6));
  RSW_CUDA_CHECK_LAUNCH("launching the spin kernel");
}

}  // namespace rsw::test
