// copy_small_by_kernel: a few bytes moved by one warp of a kernel rather than by a copy.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"

namespace rsw::detail {
namespace {

template <class Word>
__global__ void copy_words(Word* target, const Word* source, std::size_t count) {
  for (std::size_t i = threadIdx.x; i < count; i += blockDim.x)
    target[i] = source[i];
}

}  // namespace

void copy_small_by_kernel(void* target, const void* source, std::size_t bytes,
                          StreamHandle stream) {
  if (bytes == 0) return;
  const bool words = bytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(target) % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(source) % 4 == 0;
  if (words) {
    copy_words<<<1, 32, 0, stream>>>(static_cast<std::uint32_t*>(target),
                                     static_cast<const std::uint32_t*>(source), bytes / 4);
  } else {
    copy_words<<<1, 32, 0, stream>>>(static_cast<unsigned char*>(target),
                                     static_cast<const unsigned char*>(source), bytes);
  }
  RSW_CUDA_CHECK_LAUNCH("copying " + std::to_string(bytes) + " bytes by a kernel");
}

}  // namespace rsw::detail
