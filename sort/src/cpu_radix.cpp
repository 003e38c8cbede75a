#include "cpu_radix.hpp"

#include <algorithm>
#include <array>
#include <thread>

namespace rsw::sort::detail {
namespace {

constexpr int kDigitBits = 8;
constexpr int kBuckets = 1 << kDigitBits;
// Below this many keys per thread, extra threads cost more than they save (measured on the
// 2-core development machine and the 16-core GPU host; see docs/PERFORMANCE.md).
constexpr std::size_t kMinKeysPerThread = 1 << 18;
constexpr int kMaxPasses = 4;

using Histogram = std::array<std::size_t, kBuckets>;

struct Pass {
  int shift;
  std::uint32_t mask;  // digit mask after shifting: 0xFF, or fewer bits for the last pass
};

std::vector<Pass> passes_for(int begin_bit, int end_bit) {
  std::vector<Pass> passes;
  for (int shift = begin_bit; shift < end_bit; shift += kDigitBits) {
    const int bits = std::min(kDigitBits, end_bit - shift);
    passes.push_back({shift, (1u << bits) - 1});
  }
  return passes;
}

// Runs fn(thread_index) on `threads` threads (the caller is thread 0) and waits for all.
template <class Function>
void run_on_threads(int threads, const Function& fn) {
  std::vector<std::jthread> workers;
  workers.reserve(static_cast<std::size_t>(threads - 1));
  for (int index = 1; index < threads; ++index) workers.emplace_back(fn, index);
  fn(0);
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

// Maps a digit so that ascending bucket order gives the requested order.
struct DigitOf {
  Pass pass;
  bool descending;
  std::uint32_t operator()(std::uint32_t key) const noexcept {
    const std::uint32_t digit = (key >> pass.shift) & pass.mask;
    return descending ? pass.mask - digit : digit;
  }
};

// One read: every pass's histogram, and whether the keys are already in order.
bool count_and_check_order(std::span<const std::uint32_t> keys, const std::vector<Pass>& passes,
                           std::uint32_t order_mask, int begin_bit, bool descending,
                           std::array<Histogram, kMaxPasses>& histograms) {
  for (auto& histogram : histograms) histogram.fill(0);
  bool ordered = true;
  std::uint32_t previous = descending ? 0xFFFFFFFFu : 0u;
  for (const std::uint32_t key : keys) {
    const std::uint32_t masked = (key >> begin_bit) & order_mask;
    ordered &= descending ? masked <= previous : masked >= previous;
    previous = masked;
    for (std::size_t pass = 0; pass < passes.size(); ++pass) {
      ++histograms[pass][DigitOf{passes[pass], descending}(key)];
    }
  }
  return ordered;
}

}  // namespace

CpuRadixSorter::CpuRadixSorter(int threads)
    : max_threads_(threads > 0 ? threads
                               : std::clamp(static_cast<int>(std::thread::hardware_concurrency()),
                                            1, 16)) {}

int CpuRadixSorter::threads_for(std::size_t count) const noexcept {
  const std::size_t useful = std::max<std::size_t>(1, count / kMinKeysPerThread);
  return static_cast<int>(std::min<std::size_t>(useful, static_cast<std::size_t>(max_threads_)));
}

std::size_t CpuRadixSorter::temp_bytes() const noexcept {
  return (alternate_keys_.capacity() + alternate_values_.capacity()) * sizeof(std::uint32_t);
}

CpuRadixResult CpuRadixSorter::sort(std::span<std::uint32_t> keys,
                                    std::span<std::uint32_t> values, int begin_bit,
                                    int end_bit, Order order) {
  const std::vector<Pass> passes = passes_for(begin_bit, end_bit);
  CpuRadixResult result{.passes_total = static_cast<int>(passes.size())};
  const std::size_t count = keys.size();
  const bool descending = order == Order::Descending;
  const bool with_values = !values.empty();
  const int bits = end_bit - begin_bit;
  const std::uint32_t order_mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;

  std::array<Histogram, kMaxPasses> totals{};
  if (count <= 1 || passes.empty() ||
      count_and_check_order(keys, passes, order_mask, begin_bit, descending, totals)) {
    result.early_exit = true;
    return result;
  }

  alternate_keys_.resize(count);
  if (with_values) alternate_values_.resize(count);
  std::span<std::uint32_t> source_keys = keys;
  std::span<std::uint32_t> target_keys = alternate_keys_;
  std::span<std::uint32_t> source_values = values;
  std::span<std::uint32_t> target_values =
      with_values ? std::span<std::uint32_t>(alternate_values_) : std::span<std::uint32_t>();

  const int threads = threads_for(count);
  std::vector<Histogram> chunk_counts(static_cast<std::size_t>(threads));
  for (std::size_t pass_index = 0; pass_index < passes.size(); ++pass_index) {
    const DigitOf digit_of{passes[pass_index], descending};
    const Histogram& total = totals[pass_index];
    if (std::ranges::find(total, count) != total.end()) continue;  // one digit for all keys

    // Per-chunk counts (the upfront totals are of the whole array, not of this order's
    // chunks), then offsets: bucket-major, chunk order inside a bucket, so the pass is stable.
    if (threads > 1) {
      run_on_threads(threads, [&](int thread) {
        Histogram& counts = chunk_counts[static_cast<std::size_t>(thread)];
        counts.fill(0);
        const Chunk chunk = chunk_of(count, threads, thread);
        for (std::size_t i = chunk.begin; i < chunk.end; ++i) ++counts[digit_of(source_keys[i])];
      });
    } else {
      chunk_counts[0] = total;
    }
    std::size_t running = 0;
    for (int bucket = 0; bucket < kBuckets; ++bucket) {
      for (Histogram& counts : chunk_counts) {
        const std::size_t bucket_count = counts[static_cast<std::size_t>(bucket)];
        counts[static_cast<std::size_t>(bucket)] = running;
        running += bucket_count;
      }
    }

    run_on_threads(threads, [&](int thread) {
      Histogram& offsets = chunk_counts[static_cast<std::size_t>(thread)];
      const Chunk chunk = chunk_of(count, threads, thread);
      for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
        const std::size_t position = offsets[digit_of(source_keys[i])]++;
        target_keys[position] = source_keys[i];
        if (with_values) target_values[position] = source_values[i];
      }
    });
    std::swap(source_keys, target_keys);
    std::swap(source_values, target_values);
    ++result.passes_run;
  }

  if (source_keys.data() != keys.data()) {
    std::ranges::copy(source_keys, keys.begin());
    if (with_values) std::ranges::copy(source_values, values.begin());
  }
  return result;
}

}  // namespace rsw::sort::detail
