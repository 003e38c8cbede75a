// The whole Onesweep sort in one block, for n up to one tile: keys held in registers between
// passes, ranked as a pass ranks them. The presort of nearly sorted input sorts its tiles so.
#pragma once

#include "histograms.cuh"
#include "pass_agent.cuh"
#include "problem.cuh"
#include "warp_rank.cuh"

namespace rsw::sort::detail::onesweep {

inline constexpr int kSingleTileThreads = 256;
inline constexpr int kSingleTileItems = 16;
inline constexpr std::uint32_t kSingleTileKeys = kSingleTileThreads * kSingleTileItems;

template <bool kWithValues>
using SingleTileShape = PassShape<kSingleTileThreads, kSingleTileItems, kWithValues>;

/// What sort_tile did.
struct TileSortResult {
  std::uint32_t passes_run;
  bool unsorted;  // the order check found two keys out of order
};

/// Sorts problem.count <= kSingleTileKeys keys (and values) in place with one block: keys held
/// in registers between passes, the same ranking as a pass; a sorted tile or a pass whose digit
/// is the same for every key costs no data movement.
template <bool kWithValues>
__device__ __forceinline__ TileSortResult
sort_tile(const Problem& problem, typename SingleTileShape<kWithValues>::Shared& shared) {
  using Shape = SingleTileShape<kWithValues>;
  constexpr int kItems = kSingleTileItems;
  std::uint32_t* value_exchange = shared.value_exchange;
  const int warp = threadIdx.x / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::uint32_t first = warp * kWarpThreads * kItems + lane;

  std::uint32_t keys[kItems];
  std::uint32_t values[kWithValues ? kItems : 1];
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t index = first + item * kWarpThreads;
    keys[item] = index < problem.count ? problem.keys[index] : 0u;
    if constexpr (kWithValues) values[item] = index < problem.count ? problem.values[index] : 0u;
  }

  // Order check: neighbours through shared memory.
#pragma unroll
  for (int item = 0; item < kItems; ++item)
    shared.exchange[first + item * kWarpThreads] = keys[item];
  __syncthreads();
  const OrderKey order_key(problem);
  bool disorder = false;
  for (std::uint32_t i = threadIdx.x; i + 1 < problem.count; i += kSingleTileThreads)
    disorder |= order_key(shared.exchange[i]) > order_key(shared.exchange[i + 1]);
  const bool unsorted = __syncthreads_or(disorder) != 0;

  std::uint32_t passes_run = 0;
  std::uint32_t* counts = shared.warp_counts[warp];
  for (int pass = 0; unsorted && pass < problem.num_passes; ++pass) {
    const DigitOf digit_of = DigitOf::for_pass(problem, pass);
    Shape::clear_warp_counts(shared);
    __syncthreads();
    count_in_warp<kItems, false>(keys, first, problem.count, digit_of, counts);
    __syncthreads();
    std::uint32_t tile_count;
    std::uint32_t digit_start;
    place_warps<kSingleTileThreads, typename Shape::Scan>(shared.warp_counts, shared.scan,
                                                          tile_count, digit_start);
    if (__syncthreads_or(threadIdx.x < kBins && tile_count == problem.count)) continue;
    std::uint32_t ranks[kItems];
    rank_in_warp<kItems, false>(keys, first, problem.count, digit_of, counts, ranks,
                                shared.exchange, [](int, std::uint32_t) {});
    if constexpr (kWithValues) {
#pragma unroll
      for (int item = 0; item < kItems; ++item) {
        if (first + item * kWarpThreads < problem.count) value_exchange[ranks[item]] = values[item];
      }
    }
    __syncthreads();
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      keys[item] = shared.exchange[first + item * kWarpThreads];
      if constexpr (kWithValues) values[item] = value_exchange[first + item * kWarpThreads];
    }
    __syncthreads();
    ++passes_run;
  }

  if (passes_run > 0) {
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const std::uint32_t index = first + item * kWarpThreads;
      if (index < problem.count) {
        problem.keys[index] = keys[item];
        if constexpr (kWithValues) problem.values[index] = values[item];
      }
    }
  }
  return {passes_run, unsorted};
}

}  // namespace rsw::sort::detail::onesweep
