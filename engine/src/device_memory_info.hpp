// The current CUDA device's free and total memory, for memory_usage(); defined next to the
// CUDA runtime (cuda/device_memory.cpp) or, without CUDA, as "no device" (cpu_only/no_cuda.cpp).
#pragma once

#include <cstddef>

namespace rsw::detail {

struct DeviceMemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};

/// cudaMemGetInfo of the current device; zeros when no device is usable.
DeviceMemoryInfo current_device_memory() noexcept;

}  // namespace rsw::detail
