// rsw::sort::Sorter: radix sorts of 32-bit keys, alone or with 32-bit values (key-index
// sorting), on host or device memory, on the CPU or the GPU.
//
//   rsw::sort::Sorter sorter;
//   sorter.sort_pairs(keys, object_indices, {.algorithm = Algorithm::Onesweep});
//   rsw::sort::SortStats stats = sorter.last_stats();   // passes run / skipped, time
//
// Sorts are stable and in place: the sorted keys end in the caller's buffer. The sorter owns
// its temp storage and grows it on demand and keeps it, so repeated sorts of up to the same
// size allocate nothing: the alternate room for n keys and n values a GPU sort moves the data
// through (for Onesweep one buffer of 2n words for key-value sorts; none for n <= 4096), plus
// scratch that does not grow with n for Onesweep (its 2 MiB look-back table and histograms) and
// a few bytes per tile for FourWay.
// A sorter is not thread-safe; use one per thread or stream, and order its sorts (one stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::sort {

/// Which sort runs.
enum class Algorithm {
  Auto,      ///< Onesweep when a CUDA device is usable, else Cpu
  Cpu,       ///< LSD radix, 8-bit digits, on the host (multi-threaded for large n)
  FourWay,   ///< the GPU four-way radix sort of Ha, Krüger & Silva 2009 (2 bits per pass)
  Onesweep,  ///< the GPU 8-bit Onesweep sort with a constant-size circular look-back table
};

/// "auto", "cpu", "fourway" or "onesweep".
RSW_API std::string_view to_string(Algorithm algorithm) noexcept;
/// Parses "auto", "cpu", "fourway" or "onesweep"; throws rsw::Error(InvalidArgument) otherwise.
RSW_API Algorithm parse_algorithm(std::string_view name);

enum class Order { Ascending, Descending };

/// How one sort call runs.
struct SortOptions {
  Algorithm algorithm = Algorithm::Auto;  ///< Auto: Onesweep when a CUDA device is usable
  int begin_bit = 0;  ///< least significant key bit that takes part in the order
  int end_bit = 32;   ///< one past the most significant; 16 for keys known to be < 65536
  Order order = Order::Ascending;  ///< Descending: largest key first; stable either way
  /// The keys are close to their sorted order, as in a frame loop that sorts keys laid out in
  /// last frame's sorted order. Onesweep then first sorts tiles of 4096 keys in place and
  /// merges the runs where tiles meet, so that keys less than 2048 places from where they
  /// belong need no global pass (the order check finds them sorted); keys further off cost the
  /// passes as usual. Other algorithms ignore the hint. The result is the same either way.
  bool nearly_sorted = false;
  StreamHandle stream = nullptr;  ///< GPU sorts run on this stream (nullptr: default stream)
  /// Device sorts only: the number of keys to sort is the 64-bit word here in device memory,
  /// as work queued before the sort on `stream` leaves it, and the spans are room for the keys:
  /// at most their size are sorted, and those past the count are left as they are. Onesweep
  /// reads the count on the device, so the host need not wait for the work that counts the
  /// keys; FourWay and Cpu read it back first (a wait). SortStats::count is the keys sorted.
  const std::uint64_t* device_count = nullptr;
};

/// What the last sort did.
struct SortStats {
  Algorithm algorithm = Algorithm::Cpu;  ///< the algorithm that ran (Auto resolved)
  std::size_t count = 0;                 ///< keys sorted
  int passes_total = 0;           ///< digit passes the bit range needs (2-bit or 8-bit digits)
  int passes_run = 0;             ///< passes that moved data
  int passes_skipped = 0;         ///< passes_total - passes_run
  bool early_exit = false;        ///< an order check found the keys sorted before all passes ran
  bool presorted = false;         ///< SortOptions::nearly_sorted: the tile presort ran first
  double milliseconds = 0;        ///< host clock for Cpu; CUDA events around the whole GPU sort
  std::size_t temp_bytes = 0;     ///< temp storage the sorter holds (host and device)
  std::size_t scratch_bytes = 0;  ///< the GPU sort's temp storage besides its alternate buffers
  int block_threads = 0;          ///< GPU tuning that ran (calibrated once per device); 0 for Cpu
  int items_per_thread = 0;       ///< keys per GPU thread in the tuning that ran; 0 for Cpu
};

/// Setup of a Sorter.
struct SorterOptions {
  /// Threads of the CPU sort for large inputs: 0 = one per hardware thread (at most 16).
  int cpu_threads = 0;
};

/// Stable, in-place radix sorts of 32-bit keys, alone or with 32-bit values, on host or
/// device memory, on the CPU or the GPU. Keeps its temp storage between sorts. Not
/// thread-safe: one sorter per thread or stream.
class RSW_API Sorter {
 public:
  /// A sorter that holds no temp storage yet; GPU sorts set theirs up on first use.
  explicit Sorter(SorterOptions options = {});
  ~Sorter();
  /// Moves take over the temp storage and the last stats; a moved-from sorter may only be
  /// assigned to or destroyed.
  ///@{
  Sorter(Sorter&&) noexcept;
  Sorter& operator=(Sorter&&) noexcept;
  ///@}
  Sorter(const Sorter&) = delete;
  Sorter& operator=(const Sorter&) = delete;

  /// Sorts host keys in place. A GPU algorithm copies them to the device and back.
  void sort_keys(std::span<std::uint32_t> keys, const SortOptions& options = {});
  /// Sorts host keys in place and applies the same permutation to `values` (same length).
  void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
                  const SortOptions& options = {});
  /// Sorts device keys in place, asynchronously on options.stream for GPU algorithms (Cpu
  /// copies to the host and back, and waits).
  void sort_keys(DeviceSpan<std::uint32_t> keys, const SortOptions& options = {});
  /// Sorts device keys and values in place.
  void sort_pairs(DeviceSpan<std::uint32_t> keys, DeviceSpan<std::uint32_t> values,
                  const SortOptions& options = {});

  /// Statistics of the last sort; for a GPU sort this waits for its stream.
  SortStats last_stats();
  /// Bytes of temp storage held now (host and device).
  std::size_t temp_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::sort
