// Device helpers of the GPU sorts: L2 prefetch, asynchronous copies into shared memory, a load
// kept in L1, and the waits of programmatic dependent launch, each named for what it does
// rather than for the instruction it issues.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace rsw::sort::detail {

/// Starts moving `bytes` from global `source` into L2, rounded out to 16-byte blocks (a hint:
/// nothing waits for it).
__device__ __forceinline__ void prefetch_to_l2(const void* source, std::uint32_t bytes) {
#if __CUDA_ARCH__ >= 900
  const auto begin = reinterpret_cast<std::uintptr_t>(source);
  const std::uintptr_t start = begin & ~std::uintptr_t{15};
  const std::uintptr_t end = (begin + bytes + 15) & ~std::uintptr_t{15};
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(start),
               "r"(static_cast<std::uint32_t>(end - start))
               : "memory");
#endif
}

/// Starts copying the word at global `from` to shared `to` (4 or 8 bytes, both aligned to
/// them: a value, or a whole record), without a register on the way (Ampere's asynchronous
/// copy); wait_for_shared_copies waits for this thread's copies.
template <class Word>
__device__ __forceinline__ void copy_to_shared_async(Word* to, const std::uint32_t* from) {
  static_assert(sizeof(Word) == 4 || sizeof(Word) == 8, "a 4-byte value or an 8-byte record");
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(
                   static_cast<std::uint32_t>(__cvta_generic_to_shared(to))),
               "l"(__cvta_generic_to_global(from)), "n"(sizeof(Word))
               : "memory");
#else
  *to = *reinterpret_cast<const Word*>(from);
#endif
}

/// Loads the word at global `from`, its line kept in L1 before others (evict_last). A pass
/// that reads records loads each key so: the record's copy into shared memory then finds the
/// line in L1 more often.
__device__ __forceinline__ std::uint32_t load_kept_in_l1(const std::uint32_t* from) {
  std::uint32_t value;
  asm volatile("ld.global.L1::evict_last.u32 %0, [%1];"
               : "=r"(value)
               : "l"(__cvta_generic_to_global(from)));
  return value;
}

__device__ __forceinline__ void wait_for_shared_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/// The sort's graph launches each kernel while the one before it ends (a programmatic
/// dependency, Hopper): its launch and its blocks' start overlap that kernel's last blocks.
/// A kernel waits here before it reads what the kernel before it wrote (at once when it was
/// launched without the dependency, on a stream). CUDA's functions, kept to sm_90 and later.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

/// Lets the graph's next kernel launch (it waits for this one before it reads anything).
__device__ __forceinline__ void let_next_kernel_launch() {
#if __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

}  // namespace rsw::sort::detail
