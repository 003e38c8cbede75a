// CUB's DeviceRadixSort and Thrust's sort, the baselines our GPU sorts are measured against.
// Built only with CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "rsw/engine/stream.hpp"

namespace rsw::bench {

/// A library sort of device keys (and values), timed by the caller.
class BaselineSort {
 public:
  virtual ~BaselineSort() = default;
  /// Sorts keys[0, count) (with values, or nullptr) on `stream`; the result may end in an
  /// internal buffer: the benchmark only times it and checks it.
  virtual void sort(std::uint32_t* keys, std::uint32_t* values, std::size_t count,
                    StreamHandle stream) = 0;
  /// Whether the last sort's output is in order (waits for the stream).
  virtual bool last_output_sorted(StreamHandle stream) = 0;
  /// Device bytes held besides the input (temp storage and alternate buffers).
  virtual std::size_t temp_bytes() const = 0;
};

/// cub::DeviceRadixSort with a DoubleBuffer (its fastest mode); temp storage sized once.
std::unique_ptr<BaselineSort> make_cub_sort(std::size_t max_count, bool with_values);
/// thrust::sort / thrust::sort_by_key on the stream (Thrust allocates its temp storage itself).
std::unique_ptr<BaselineSort> make_thrust_sort();

}  // namespace rsw::bench
