// The difference of two sorted pair sets on the device: each thread takes kItemsPerThread
// consecutive pairs of one set, finds where the first would stand in the other set by one
// binary search, and walks both forward together (a merge), marking the pairs the other set
// lacks; CUB's select then gathers the marked pairs in order. The same kernel, with the sets
// swapped, gives the lost pairs.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_select.cuh>

#include "../pair_events.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::physics::detail {
namespace {

constexpr int kThreads = 256;
/// Pairs a thread compares in one walk: enough that the search is a small part of its work.
constexpr std::uint32_t kItemsPerThread = 8;

__device__ __forceinline__ bool pair_less(const Pair& x, const Pair& y) {
  return x.a < y.a || (x.a == y.a && x.b < y.b);
}

/// absent[i] = 1 when items[i] is not in `other` (both sorted by (a, b), without repeats).
__global__ void __launch_bounds__(kThreads)
    mark_absent(const Pair* items, std::size_t count, const Pair* other, std::size_t other_count,
                std::uint8_t* absent) {
  const std::size_t first =
      (std::size_t{blockIdx.x} * kThreads + threadIdx.x) * std::size_t{kItemsPerThread};
  if (first >= count) return;
  const std::size_t last = std::min(count, first + kItemsPerThread);
  // The first place in `other` not before items[first].
  std::size_t low = 0;
  std::size_t high = other_count;
  const Pair start = items[first];
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (pair_less(other[middle], start)) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  std::size_t place = low;
  for (std::size_t i = first; i < last; ++i) {
    const Pair item = items[i];
    while (place < other_count && pair_less(other[place], item))
      ++place;
    const bool present =
        place < other_count && other[place].a == item.a && other[place].b == item.b;
    absent[i] = present ? 0 : 1;
  }
}

unsigned int blocks_for(std::size_t count) {
  const std::size_t per_block = std::size_t{kThreads} * kItemsPerThread;
  return static_cast<unsigned int>((count + per_block - 1) / per_block);
}

class CudaPairEvents final : public DevicePairEvents {
 public:
  CudaPairEvents() { resolve_backend(Backend::Cuda); }

  void find(DeviceSpan<const Pair> previous, DeviceSpan<const Pair> current,
            StreamHandle stream) override {
    stream_ = stream;
    const std::size_t most = std::max(previous.size, current.size);
    found_.resize_discarding(std::max(found_.size(), current.size));
    lost_.resize_discarding(std::max(lost_.size(), previous.size));
    absent_.resize_discarding(std::max(absent_.size(), most));
    std::size_t temp_bytes = 0;
    RSW_CUDA_CHECK(
        cub::DeviceSelect::Flagged(nullptr, temp_bytes, current.data, absent_.data(), found_.data(),
                                   counts_.data(), static_cast<std::int64_t>(most), stream),
        "sizing the selection of pair events");
    temp_.resize_discarding(std::max(temp_.size(), temp_bytes));
    select_absent(current, previous, found_.data(), counts_.data(), stream);
    select_absent(previous, current, lost_.data(), counts_.data() + 1, stream);
  }

  DevicePairEventView read() override {
    host_counts_.copy_small_from_device(counts_.data(), 2, stream_);
    synchronize(stream_);
    return {.found = {found_.data(), static_cast<std::size_t>(host_counts_[0])},
            .lost = {lost_.data(), static_cast<std::size_t>(host_counts_[1])}};
  }

 private:
  // The pairs of `items` that `other` lacks, in order, into `out`; their number into *count.
  void select_absent(DeviceSpan<const Pair> items, DeviceSpan<const Pair> other, Pair* out,
                     unsigned long long* count, StreamHandle stream) {
    if (items.size == 0) {
      rsw::detail::fill_bytes_zero(count, sizeof(*count), stream);
      return;
    }
    mark_absent<<<blocks_for(items.size), kThreads, 0, stream>>>(items.data, items.size, other.data,
                                                                 other.size, absent_.data());
    RSW_CUDA_CHECK_LAUNCH("launching mark_absent");
    std::size_t temp_bytes = temp_.size();
    RSW_CUDA_CHECK(
        cub::DeviceSelect::Flagged(temp_.data(), temp_bytes, items.data, absent_.data(), out, count,
                                   static_cast<std::int64_t>(items.size), stream),
        "selecting pair events");
  }

  StreamHandle stream_ = nullptr;
  DeviceBuffer<Pair> found_;
  DeviceBuffer<Pair> lost_;
  DeviceBuffer<std::uint8_t> absent_;
  DeviceBuffer<std::uint8_t> temp_;
  DeviceBuffer<unsigned long long> counts_{2};
  PinnedBuffer<unsigned long long> host_counts_{2};
};

}  // namespace

std::unique_ptr<DevicePairEvents> make_device_pair_events() {
  return std::make_unique<CudaPairEvents>();
}

}  // namespace rsw::physics::detail
