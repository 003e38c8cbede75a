// The CPU radix sort: LSD, 8-bit digits, stable, with the same skipping as the GPU sorts.
// It is the "CPU sort" of the UI and the reference the GPU sorts are tested against (together
// with std::stable_sort).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rsw/sort/sorter.hpp"

namespace rsw::sort::detail {

/// What one CPU sort did.
struct CpuRadixResult {
  int passes_total = 0;
  int passes_run = 0;
  bool early_exit = false;
};

class CpuRadixSorter {
 public:
  /// Threads for large inputs: 0 = one per hardware thread, at most 16.
  explicit CpuRadixSorter(int threads = 0);

  /// Sorts `keys` in place by bits [begin_bit, end_bit), carrying `values` (empty: keys only).
  ///
  /// One read first builds every pass's digit histogram and checks whether the keys are
  /// already in order (then nothing moves). A pass whose digit is the same for all keys (one
  /// bucket holds n) is skipped. Large inputs are split across threads: per pass each thread
  /// counts its chunk, then scatters it to offsets that keep the sort stable.
  CpuRadixResult sort(std::span<std::uint32_t> keys, std::span<std::uint32_t> values, int begin_bit,
                      int end_bit, Order order);

  /// Bytes of the alternate buffers held now.
  std::size_t temp_bytes() const noexcept;

 private:
  int threads_for(std::size_t count) const noexcept;

  int max_threads_;
  std::vector<std::uint32_t> alternate_keys_;
  std::vector<std::uint32_t> alternate_values_;
};

}  // namespace rsw::sort::detail
