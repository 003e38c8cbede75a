// The interface the GPU sorts implement for rsw::sort::Sorter, so that sorter.cpp (host code)
// needs no CUDA header, and a CPU-only build can say plainly that there is no GPU sort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "rsw/engine/stream.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::sort::detail {

/// One GPU sort: keys (and values, or nullptr) in device memory, sorted in place.
struct GpuSortRequest {
  std::uint32_t* keys = nullptr;
  std::uint32_t* values = nullptr;
  std::size_t count = 0;  // with device_count: the room, at most this many are sorted
  const std::uint64_t* device_count = nullptr;  // SortOptions::device_count (Onesweep only)
  int begin_bit = 0;
  int end_bit = 32;
  bool descending = false;
  bool nearly_sorted = false;  // SortOptions::nearly_sorted
  StreamHandle stream = nullptr;
};

class GpuSorter {
 public:
  virtual ~GpuSorter() = default;
  /// Queues the sort on request.stream; returns without waiting.
  virtual void sort(const GpuSortRequest& request) = 0;
  /// Waits for the last sort's stream and reports what it did.
  virtual SortStats read_stats() = 0;
  /// Device bytes held for temp storage.
  virtual std::size_t temp_bytes() const noexcept = 0;
  /// The part of temp_bytes() besides the alternate key and value buffers.
  virtual std::size_t scratch_bytes() const noexcept = 0;
};

/// The four-way sort of Ha, Krüger & Silva 2009. Throws rsw::Error(DeviceUnavailable) when
/// there is no usable CUDA device or the build has no GPU code.
std::unique_ptr<GpuSorter> make_four_way_sorter();
/// The 8-bit Onesweep sort with a circular look-back table. Throws like make_four_way_sorter.
std::unique_ptr<GpuSorter> make_onesweep_sorter();

/// The largest n the GPU sorts take (their indices are 32-bit).
inline constexpr std::size_t kMaxGpuSortCount = 0x7FFFFFFFu;

}  // namespace rsw::sort::detail
