// Ranking a warp's keys by digit (the warp multi-split of Ashkiani et al.), counting a warp's
// digits, and placing the warps' counts after one another in a block.
#pragma once

#include <cuda/atomic>

#include "problem.cuh"

namespace rsw::sort::detail::onesweep {

// A warp's keys are warp-striped: item k of lane l is the warp's (k * 32 + l)-th key, so
// ranking items in order k = 0, 1, ... and lanes in order keeps the sort stable. For each
// item the lanes with the same digit ("peers") are found by the multi-split of Ashkiani et
// al.: one ballot per digit bit (cheaper on Hopper than __match_any_sync). The highest peer
// bumps the warp's counter for that digit in shared memory by their number, and each lane's
// rank is the counter's old value plus the peers below it. The bump is an atomicAdd, or in
// the passes a plain read and write (one leader per digit, and the warp's counters are its
// own), which is cheaper than the atomic.

/// The lanes whose digit agrees with this lane's on bit kBit, ANDed into `peers`: a ballot,
/// inverted where this lane's bit is 0. Written in PTX so that each bit costs a ballot, a
/// predicated not and an and (ptxas moves the digit's bits to predicates in one R2P); plain C++
/// compiled to twice that (measured in the SASS).
template <int kBit>
__device__ __forceinline__ void keep_peers_agreeing_on_bit(unsigned& peers, std::uint32_t digit) {
  asm("{\n\t"
      ".reg .pred set;\n\t"
      ".reg .u32 lanes;\n\t"
      "and.b32 lanes, %1, %2;\n\t"
      "setp.ne.u32 set, lanes, 0;\n\t"
      "vote.sync.ballot.b32 lanes, set, 0xffffffff;\n\t"
      "@!set not.b32 lanes, lanes;\n\t"
      "and.b32 %0, %0, lanes;\n\t"
      "}"
      : "+r"(peers)
      : "r"(digit), "n"(1u << kBit));
}

template <int... kBits>
__device__ __forceinline__ void keep_peers(unsigned& peers, std::uint32_t digit,
                                           std::integer_sequence<int, kBits...>) {
  (keep_peers_agreeing_on_bit<kBits>(peers, digit), ...);
}

/// Ranks `keys` (item k valid when `first + k * 32 < count`; all of them when kFullTile)
/// within the warp: ranks[k] = counts[digit] + the warp's earlier keys of the same digit;
/// counts[digit] grows by the warp's keys of that digit (kPlainBump: without an atomic). Each
/// valid key is also written to exchange[rank] at once (unless !kKeysToExchange: on_ranked
/// places it), so the keys need not stay in registers.
template <int kItems, bool kFullTile, bool kPlainBump = false, bool kKeysToExchange = true,
          class OnRanked>
__device__ __forceinline__ void rank_in_warp(const std::uint32_t (&keys)[kItems],
                                             std::uint32_t first, std::uint32_t count,
                                             const DigitOf& digit_of, std::uint32_t* counts,
                                             std::uint32_t (&ranks)[kItems],
                                             std::uint32_t* exchange, OnRanked&& on_ranked) {
  const unsigned lane = threadIdx.x % kWarpThreads;
  const unsigned lanes_below = (1u << lane) - 1u;
  const bool full = kFullTile || first - lane + kItems * kWarpThreads <= count;  // warp-uniform
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const bool valid = full || first + item * kWarpThreads < count;
    const std::uint32_t digit = digit_of(keys[item]);
    unsigned peers = full ? 0xFFFFFFFFu : __ballot_sync(0xFFFFFFFFu, valid);
    keep_peers(peers, digit, std::make_integer_sequence<int, kRadixBits>{});
    const int leader = 31 - __clz(peers | (1u << lane));  // invalid lanes lead themselves
    std::uint32_t before = 0;
    if (valid && leader == static_cast<int>(lane)) {
      if constexpr (kPlainBump) {
        before = counts[digit];
        counts[digit] = before + __popc(peers);
      } else {
        before = atomicAdd(&counts[digit], __popc(peers));
      }
    }
    ranks[item] = __shfl_sync(0xFFFFFFFFu, before, leader) + __popc(peers & lanes_below);
    if (valid) {
      if constexpr (kKeysToExchange) exchange[ranks[item]] = keys[item];
      on_ranked(item, ranks[item]);
    }
    if constexpr (kPlainBump) __syncwarp();  // the next item's leaders read these counters
  }
}

/// Counts the warp's valid keys into counts[digit] (the "early counts" that let a tile publish
/// its digit counts before it ranks). Its digits are computed apart from rank_in_warp's: merged,
/// they stayed in registers from the count to the ranking, and the pass kernels spilled keys to
/// local memory every tile, whose writes reached L2 and DRAM. Apart, keys-only spills nothing
/// and key-value tiles only reload four loop constants, and the registers freed let keys-only
/// tiles grow to 384 x 24.
template <int kItems, bool kFullTile>
__device__ __forceinline__ void count_in_warp(const std::uint32_t (&keys)[kItems],
                                              std::uint32_t first, std::uint32_t count,
                                              const DigitOf& digit_of, std::uint32_t* counts) {
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    if (kFullTile || first + item * kWarpThreads < count) {
      atomicAdd(&counts[digit_of.apart(keys[item])], 1u);
    }
  }
}

/// After rank_in_warp in every warp (and a barrier): thread d < kBins turns the warps'
/// counts of digit d into each warp's first position for d within the tile, and returns the
/// tile's count of d (`tile_count`) and where d starts in the sorted tile (`digit_start`).
template <int kThreads, class Scan>
__device__ __forceinline__ void place_warps(std::uint32_t (*warp_counts)[kBins],
                                            typename Scan::TempStorage& scan_storage,
                                            std::uint32_t& tile_count, std::uint32_t& digit_start) {
  constexpr int kWarps = kThreads / kWarpThreads;
  const int digit = threadIdx.x;
  tile_count = 0;
  if (digit < kBins) {
#pragma unroll
    for (int warp = 0; warp < kWarps; ++warp)
      tile_count += warp_counts[warp][digit];
  }
  Scan(scan_storage).ExclusiveSum(tile_count, digit_start);
  if (digit < kBins) {
    std::uint32_t running = digit_start;
#pragma unroll
    for (int warp = 0; warp < kWarps; ++warp) {
      const std::uint32_t here = warp_counts[warp][digit];
      warp_counts[warp][digit] = running;
      running += here;
    }
  }
}

}  // namespace rsw::sort::detail::onesweep
