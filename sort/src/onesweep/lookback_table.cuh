// The circular look-back table of the Onesweep passes (decoupled look-back, Merrill &
// Garland 2016, through a table of constant size), and the counters with which the tiles of a
// pass free its slots and the passes wait for one another.
#pragma once

#include <cuda/atomic>

#include "problem.cuh"

namespace rsw::sort::detail::onesweep {

// kTableTiles slots of kBins 64-bit entries {count: 32, flag: 2, tag: 30}. Tile t of a pass
// owns slot (sequence_base + t) mod kTableTiles and tags its entries with
// (sequence_base + t) mod 2^30. Sequence numbers are dense (only passes that run take them)
// and slots cycle, so a slot's stale entry carries the tag of exactly kTableTiles sequence
// numbers earlier: a reader that wants a tag never accepts a stale entry, from this pass, an
// earlier pass or an earlier sort, and the table is never cleared. A tile reads at most
// kLookbackLimit predecessors (at the last it waits for an inclusive prefix), so the slot of
// tile t - kTableTiles is free once tiles up to t - kTableTiles + kLookbackLimit have finished
// their look-back: the pass's tail says how far that is.
inline constexpr int kTagBits = 30;
inline constexpr std::uint32_t kTagMask = (1u << kTagBits) - 1u;
static_assert((std::uint64_t{kTagMask} + 1) % kTableTiles == 0, "slots and tags wrap together");
static_assert(kLookbackLimit < kTableTiles, "a tile must not wait on its own slot");
static_assert((kTailGroups - 1) * kTailGroupTiles >= kTableTiles - kLookbackLimit - 1,
              "a group counter is reused only after the tail passed its previous group");

inline constexpr std::uint64_t kFlagAggregate = 1;  // count = the tile's own digit count
inline constexpr std::uint64_t kFlagInclusive = 2;  // count = all tiles up to this one

__device__ __forceinline__ std::uint64_t make_entry(std::uint32_t count, std::uint64_t flag,
                                                    std::uint32_t sequence) {
  return count | (flag << 32) | (std::uint64_t{sequence & kTagMask} << 34);
}

__device__ __forceinline__ std::uint64_t* table_slot(std::uint64_t* table, std::uint32_t sequence) {
  return table + std::size_t{sequence % kTableTiles} * kBins;
}

// The table's loads and stores: relaxed, device-scope, and written in PTX so that they name the
// global space. cuda::atomic_ref emits generic ones for a pointer whose space the compiler
// cannot see, and a generic access holds back the warp's later shared-memory accesses, which
// it might alias.
__device__ __forceinline__ void publish(std::uint64_t* entry, std::uint64_t value) {
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(__cvta_generic_to_global(entry)),
               "l"(value));
}

__device__ __forceinline__ std::uint64_t load_entry(const std::uint64_t* entry) {
  std::uint64_t value;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];"
               : "=l"(value)
               : "l"(__cvta_generic_to_global(entry)));
  return value;
}

/// The sum of `digit`'s counts over the tiles before `tile`, read back through the table,
/// kWindow predecessors' entries at a time (one memory latency, not kWindow): sums them in
/// order until an inclusive prefix; at an entry that is not there yet, the next window starts
/// from it. The kLookbackLimit-th predecessor is waited on until it has its inclusive prefix
/// (tile 0 publishes one at once). The walk is long in a busy pass (tens of tiles publish only
/// their aggregates while a tile ranks), so fewer round trips shorten it. Wider windows
/// measured slower; so did key-value passes while their values were loaded before the
/// look-back.
template <int kWindow>
__device__ __forceinline__ std::uint32_t look_back(const std::uint64_t* table,
                                                   std::uint32_t sequence_base, std::uint32_t tile,
                                                   int digit) {
  std::uint32_t prefix = 0;
  std::uint32_t back = 1;  // window[k] holds predecessor back + k
  for (;;) {
    std::uint64_t window[kWindow];
#pragma unroll
    for (int k = 0; k < kWindow; ++k) {
      const std::uint32_t at = back + k;  // not past tile 0, nor past the limit: no waits there
      window[k] = 0;
      if (at <= tile && at <= kLookbackLimit) {
        const std::uint64_t* entry =
            table_slot(const_cast<std::uint64_t*>(table), sequence_base + tile - at) + digit;
        window[k] = load_entry(entry);
      }
    }
#pragma unroll
    for (int k = 0; k < kWindow; ++k) {
      const std::uint32_t at = back + k;
      const std::uint64_t value = window[k];
      const std::uint64_t lowest_flag = at < kLookbackLimit ? kFlagAggregate : kFlagInclusive;
      if ((value >> 34) != ((sequence_base + tile - at) & kTagMask) ||
          ((value >> 32) & 3u) < lowest_flag) {
        back = at;  // not there yet (tile 0 and the limit's entry always end the walk first)
        break;
      }
      prefix += static_cast<std::uint32_t>(value);
      if (((value >> 32) & 3u) == kFlagInclusive) return prefix;
      if (k == kWindow - 1) back += kWindow;
    }
  }
}

/// Thread 0 of tile `tile`: waits until the tile's slot is no longer read by anyone.
__device__ __forceinline__ void wait_for_slot(PassControl& pass, std::uint32_t tile) {
  if (tile < kTableTiles) return;  // the slot's last owner is of an earlier pass: done
  const std::uint32_t needed = tile - kTableTiles + kLookbackLimit + 1;
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> tail(pass.tail);
  while (tail.load(cuda::memory_order_acquire) < needed) {
  }
}

/// Thread 0 of a block that leaves `pass` (it took a tile of a later pass, or found no more
/// work): counts its `tiles` of the pass as written. Release: the block's writes, ordered
/// before it by a barrier, are visible to whoever sees the count.
__device__ __forceinline__ void count_written(PassControl& pass, std::uint32_t tiles) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> written(pass.written);
  written.fetch_add(tiles, cuda::memory_order_release);
}

/// Thread 0 of one block: waits until every tile of `pass` is written (the pass's writes are
/// visible to the block after a barrier).
__device__ __forceinline__ void wait_for_pass(PassControl& pass, std::uint32_t num_tiles) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> written(pass.written);
  while (written.load(cuda::memory_order_acquire) < num_tiles) {
    __nanosleep(100);
  }
}

/// Thread 0 of tile `tile`, once the whole block has looked back (a barrier): counts the tile
/// in its tail group and returns the group's count before it, for advance_tail. The group's
/// counter is never reset: each use of it adds its group's size, a multiple of kTailGroupTiles
/// but for the pass's last group. Relaxed, here and in advance_tail: every look-back load of
/// the tile returned its value before the barrier (the tile's bases in shared memory are made
/// of them), so no write to their slots after the tail passes them can reach them. (Release
/// would make this count wait for the tile's table stores, which slows pairs markedly.)
__device__ __forceinline__ std::uint32_t count_in_tail_group(PassControl& pass,
                                                             std::uint32_t tile) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> done(
      pass.group_done[(tile >> kTailBits) % kTailGroups]);
  return done.fetch_add(1, cuda::memory_order_relaxed);
}

/// Thread 0 of tile `tile`, with count_in_tail_group's count: the group's last tile moves the
/// tail past the group once the groups before it have moved it to the group's start.
__device__ __forceinline__ void advance_tail(PassControl& pass, std::uint32_t tile,
                                             std::uint32_t num_tiles, std::uint32_t done_before) {
  const std::uint32_t group_start = tile & ~(kTailGroupTiles - 1);
  const std::uint32_t group_size = min(kTailGroupTiles, num_tiles - group_start);
  if ((done_before + 1) % kTailGroupTiles != group_size % kTailGroupTiles) return;
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> tail(pass.tail);
  while (tail.load(cuda::memory_order_relaxed) != group_start) {
  }
  tail.store(group_start + group_size, cuda::memory_order_relaxed);
}

}  // namespace rsw::sort::detail::onesweep
