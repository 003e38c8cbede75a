// Host memory as the libraries use it: allocation failures as rsw::Error(OutOfMemory) that say
// what was being allocated and how much, like device ones; and the process's memory use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/error.hpp"

namespace rsw {

/// The error for a host allocation that failed: rsw::Error(OutOfMemory), "allocating
/// 1.50 GiB of host memory for <what> failed".
RSW_API Error host_allocation_error(std::string_view what, std::size_t bytes);

/// The error for a host allocation of unknown size that failed while `doing` something
/// ("BroadPhase::update of 100000 boxes"): rsw::Error(OutOfMemory).
RSW_API Error host_out_of_memory(std::string_view doing);

/// `vector.resize(count)`, but a failed allocation (or a size past the vector's reach) throws
/// host_allocation_error(what, bytes) instead of std::bad_alloc or std::length_error.
///
/// A vector that outgrows its storage gets half as much again as it had where that is more
/// than `count` and can be had, so that a size creeping upward (the pairs of a scene that
/// tightens, frame after frame) reallocates a few times rather than at every new largest
/// frame, leaving a hole in the heap each time. std::vector grows from its size, not its
/// storage, and would give exactly `count` after a smaller frame.
template <class T, class Allocator>
void resize_host(std::vector<T, Allocator>& vector, std::size_t count, std::string_view what) {
  const auto error = [&] {
    const std::size_t most = SIZE_MAX / sizeof(T);
    return host_allocation_error(what, count > most ? SIZE_MAX : count * sizeof(T));
  };
  const std::size_t had = vector.capacity();
  if (count > had && had > 0 && had / 2 < vector.max_size() - had && had + had / 2 > count) {
    try {
      vector.reserve(had + had / 2);
    } catch (const std::bad_alloc&) {  // exactly `count` may still fit
    } catch (const std::length_error&) {
    }
  }
  try {
    vector.resize(count);
  } catch (const std::bad_alloc&) {
    throw error();
  } catch (const std::length_error&) {
    throw error();
  }
}

/// Runs `work` and returns what it returns; a std::bad_alloc it throws becomes
/// host_out_of_memory(doing), so that a library call never lets one through.
template <class Work>
decltype(auto) with_bad_alloc_as_error(std::string_view doing, Work&& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    throw host_out_of_memory(doing);
  }
}

/// Runs `work`, which allocates about `bytes` of host memory for `what`, and returns what it
/// returns; a std::bad_alloc it throws becomes host_allocation_error(what, bytes).
template <class Work>
decltype(auto) with_host_allocation(std::string_view what, std::size_t bytes, Work&& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    throw host_allocation_error(what, bytes);
  }
}

/// The process's memory at one moment, for soak tests and the stats file.
struct MemoryUsage {
  std::size_t host_resident_bytes = 0;  ///< resident set size (RSS) of this process
  std::size_t device_used_bytes = 0;    ///< total - free of the current CUDA device, 0 without one
  std::size_t device_total_bytes = 0;   ///< the current CUDA device's memory, 0 without one
};

/// Measures MemoryUsage now (reads /proc/self/statm; cudaMemGetInfo when a device is usable).
RSW_API MemoryUsage memory_usage();

}  // namespace rsw
