#include "cpu_radix.hpp"

#include <algorithm>
#include <array>
#include <thread>

#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"

namespace rsw::sort::detail {
namespace {

constexpr int kDigitBits = 8;
constexpr int kBuckets = 1 << kDigitBits;
// Below this many keys per thread, extra threads cost more than they save (measured on the
// 2-core development machine and the 16-core GPU host; see docs/PERFORMANCE.md).
constexpr std::size_t kMinKeysPerThread = 1 << 18;
constexpr int kMaxPasses = 4;

using Histogram = std::array<std::size_t, kBuckets>;

// The digit mask of each pass over [begin_bit, end_bit): 0xFF, or fewer bits for the last.
// Pass p reads bits begin_bit + 8 p upwards.
std::vector<std::uint32_t> digit_masks_for(int begin_bit, int end_bit) {
  std::vector<std::uint32_t> masks;
  for (int shift = begin_bit; shift < end_bit; shift += kDigitBits) {
    const int bits = std::min(kDigitBits, end_bit - shift);
    masks.push_back((1u << bits) - 1);
  }
  return masks;
}

struct Chunk {
  std::size_t begin;
  std::size_t end;
};

Chunk chunk_of(std::size_t count, int threads, int index) {
  const std::size_t size = count / static_cast<std::size_t>(threads);
  const std::size_t begin = size * static_cast<std::size_t>(index);
  return {begin, index == threads - 1 ? count : begin + size};
}

// The digit of pass `pass` (8 bits from bit begin_bit + 8 * pass, cut at end_bit), flipped
// for a descending sort so that ascending bucket order gives the requested order.
template <bool kDescending>
struct DigitOf {
  int begin_bit;
  std::uint32_t order_mask;  // the bits [begin_bit, end_bit), after the shift
  int pass_shift;            // 8 * pass
  std::uint32_t digit_mask;  // 0xFF, or fewer bits for the last pass

  std::uint32_t operator()(std::uint32_t key) const noexcept {
    const std::uint32_t digit = (((key >> begin_bit) & order_mask) >> pass_shift) & digit_mask;
    return kDescending ? digit_mask - digit : digit;
  }
};

// One read: the histograms of all (up to four) passes, and whether the keys are in order.
// Digits are counted unflipped; a descending sort reverses each histogram afterwards.
template <bool kDescending>
bool count_and_check_order(std::span<const std::uint32_t> keys, int begin_bit,
                           std::uint32_t order_mask,
                           std::array<Histogram, kMaxPasses>& histograms) {
  for (auto& histogram : histograms)
    histogram.fill(0);
  bool ordered = true;
  std::uint32_t previous = kDescending ? 0xFFFFFFFFu : 0u;
  for (const std::uint32_t key : keys) {
    const std::uint32_t masked = (key >> begin_bit) & order_mask;
    ordered &= kDescending ? masked <= previous : masked >= previous;
    previous = masked;
    ++histograms[0][masked & 0xFFu];
    ++histograms[1][(masked >> 8) & 0xFFu];
    ++histograms[2][(masked >> 16) & 0xFFu];
    ++histograms[3][masked >> 24];
  }
  return ordered;
}

struct PassBuffers {
  std::span<const std::uint32_t> source_keys;
  std::span<const std::uint32_t> source_values;
  std::span<std::uint32_t> target_keys;
  std::span<std::uint32_t> target_values;
};

// Counts the digits of keys[chunk] in this pass (the upfront totals are of the whole array,
// not of the current order's chunks).
template <bool kDescending>
void count_chunk(const PassBuffers& buffers, Chunk chunk, DigitOf<kDescending> digit_of,
                 Histogram& counts) {
  counts.fill(0);
  for (std::size_t i = chunk.begin; i < chunk.end; ++i)
    ++counts[digit_of(buffers.source_keys[i])];
}

// Moves keys[chunk] (and values) to their offsets, which it advances.
template <bool kDescending, bool kWithValues>
void scatter_chunk(const PassBuffers& buffers, Chunk chunk, DigitOf<kDescending> digit_of,
                   Histogram& offsets) {
  for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
    const std::uint32_t key = buffers.source_keys[i];
    const std::size_t position = offsets[digit_of(key)]++;
    buffers.target_keys[position] = key;
    if constexpr (kWithValues) buffers.target_values[position] = buffers.source_values[i];
  }
}

// Offsets bucket-major, chunk order inside a bucket: the pass is stable.
void counts_to_offsets(std::vector<Histogram>& chunk_counts) {
  std::size_t running = 0;
  for (std::size_t bucket = 0; bucket < kBuckets; ++bucket) {
    for (Histogram& counts : chunk_counts) {
      const std::size_t bucket_count = counts[bucket];
      counts[bucket] = running;
      running += bucket_count;
    }
  }
}

template <bool kDescending, bool kWithValues>
int run_passes(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
               std::span<std::uint32_t> alternate_keys, std::span<std::uint32_t> alternate_values,
               const std::vector<std::uint32_t>& passes, int begin_bit, std::uint32_t order_mask,
               const std::array<Histogram, kMaxPasses>& totals, int threads) {
  const std::size_t count = keys.size();
  std::span<std::uint32_t> source_keys = keys;
  std::span<std::uint32_t> target_keys = alternate_keys;
  std::span<std::uint32_t> source_values = values;
  std::span<std::uint32_t> target_values = alternate_values;
  std::vector<Histogram> chunk_counts(static_cast<std::size_t>(threads));
  int passes_run = 0;
  for (std::size_t pass = 0; pass < passes.size(); ++pass) {
    const Histogram& total = totals[pass];
    if (std::ranges::find(total, count) != total.end()) continue;  // one digit for all keys
    const DigitOf<kDescending> digit_of{begin_bit, order_mask, static_cast<int>(8 * pass),
                                        passes[pass]};
    const PassBuffers buffers{source_keys, source_values, target_keys, target_values};
    if (threads == 1) {
      chunk_counts[0] = total;
      if constexpr (kDescending)
        std::ranges::reverse(chunk_counts[0].begin(), chunk_counts[0].begin() + passes[pass] + 1);
      counts_to_offsets(chunk_counts);
      scatter_chunk<kDescending, kWithValues>(buffers, {0, count}, digit_of, chunk_counts[0]);
    } else {
      run_on_threads(threads, [&](int thread) {
        count_chunk(buffers, chunk_of(count, threads, thread), digit_of,
                    chunk_counts[static_cast<std::size_t>(thread)]);
      });
      counts_to_offsets(chunk_counts);
      run_on_threads(threads, [&](int thread) {
        scatter_chunk<kDescending, kWithValues>(buffers, chunk_of(count, threads, thread), digit_of,
                                                chunk_counts[static_cast<std::size_t>(thread)]);
      });
    }
    std::swap(source_keys, target_keys);
    std::swap(source_values, target_values);
    ++passes_run;
  }
  if (source_keys.data() != keys.data()) {
    std::ranges::copy(source_keys, keys.begin());
    if constexpr (kWithValues) std::ranges::copy(source_values, values.begin());
  }
  return passes_run;
}

}  // namespace

CpuRadixSorter::CpuRadixSorter(int threads)
    : max_threads_(threads > 0
                       ? threads
                       : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 16)) {
}

int CpuRadixSorter::threads_for(std::size_t count) const noexcept {
  const std::size_t useful = std::max<std::size_t>(1, count / kMinKeysPerThread);
  return static_cast<int>(std::min<std::size_t>(useful, static_cast<std::size_t>(max_threads_)));
}

std::size_t CpuRadixSorter::temp_bytes() const noexcept {
  return (alternate_keys_.capacity() + alternate_values_.capacity()) * sizeof(std::uint32_t);
}

CpuRadixResult CpuRadixSorter::sort(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
                                    int begin_bit, int end_bit, Order order) {
  const std::vector<std::uint32_t> passes = digit_masks_for(begin_bit, end_bit);
  CpuRadixResult result{.passes_total = static_cast<int>(passes.size())};
  const std::size_t count = keys.size();
  if (count <= 1 || passes.empty()) {
    result.early_exit = true;
    return result;
  }
  const bool descending = order == Order::Descending;
  const bool with_values = !values.empty();
  const int bits = end_bit - begin_bit;
  const std::uint32_t order_mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;

  std::array<Histogram, kMaxPasses> totals{};
  const bool ordered = descending
                           ? count_and_check_order<true>(keys, begin_bit, order_mask, totals)
                           : count_and_check_order<false>(keys, begin_bit, order_mask, totals);
  if (ordered) {
    result.early_exit = true;
    return result;
  }

  resize_host(alternate_keys_, count, "the CPU sort's alternate keys");
  if (with_values) resize_host(alternate_values_, count, "the CPU sort's alternate values");
  const std::span<std::uint32_t> alternate_values =
      with_values ? std::span<std::uint32_t>(alternate_values_) : std::span<std::uint32_t>();
  const int threads = threads_for(count);
  const auto run = [&]<bool kDescending, bool kWithValues>() {
    return run_passes<kDescending, kWithValues>(keys, values, alternate_keys_, alternate_values,
                                                passes, begin_bit, order_mask, totals, threads);
  };
  if (descending) {
    result.passes_run = with_values ? run.template operator()<true, true>()
                                    : run.template operator()<true, false>();
  } else {
    result.passes_run = with_values ? run.template operator()<false, true>()
                                    : run.template operator()<false, false>();
  }
  return result;
}

}  // namespace rsw::sort::detail
