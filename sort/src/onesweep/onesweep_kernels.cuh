// Device code of the 8-bit Onesweep radix sort (Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022), with the look-back status table kept in a
// constant-size circular buffer, so that temp memory does not grow with n.
//
//   count_digits        one read of the keys: the order check and the histograms of every
//                       8-bit digit at once; its last block scans them and plans the passes
//                       (which run, which buffer each reads, where each tile's entries go)
//   recount_digits      only for a sorted input with disorder near its end: the chunks that
//                       count_digits checked but did not count
//   onesweep_passes     every pass that runs, one after another in one persistent kernel: load
//                       a tile, rank it (warp multi-split), decoupled look-back through the
//                       circular table, scatter through shared memory; then the sort's report,
//                       and after an odd number of passes the alternate buffer back to the
//                       caller's
//   sort_single_tile    the whole sort in one block, for small n
//   presort_tiles,      for nearly sorted input: tiles sorted in place, then the runs where
//   presort_merge_halves  tiles meet merged, so that count_digits finds the keys sorted and
//                       no pass runs
//   store_counted_problem  the problem, its count read from the device (SortOptions::
//                       device_count), so the host need not wait for the kernel that counted
//
// Index:
//   [SECTION] Shapes and control blocks
//   [SECTION] Circular look-back table
//   [SECTION] Ranking (warp multi-split)
//   [SECTION] Upfront histograms, order check and plan
//   [SECTION] The passes
//   [SECTION] The single-tile sort
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <cuda/atomic>
#include <utility>

namespace rsw::sort::detail::onesweep {

// [SECTION] Shapes and control blocks
inline constexpr int kRadixBits = 8;
inline constexpr int kBins = 1 << kRadixBits;
inline constexpr int kMaxPasses = 32 / kRadixBits;
inline constexpr int kWarpThreads = 32;

/// The sort's buffers and shape, in device memory, written before a sort when they change
/// (count and num_tiles by store_counted_problem when the count is in device memory).
struct Problem {
  std::uint32_t* keys;    // the caller's keys; the sorted keys end here
  std::uint32_t* values;  // the caller's values, or nullptr
  // The sorter's alternate buffer of n keys, or for a key-value sort 2n words: n records
  // {key, value}, or n keys then n values.
  std::uint32_t* alternate;
  std::uint32_t count;
  std::uint32_t num_tiles;   // tiles of one pass
  std::uint32_t order_mask;  // the bits that take part in the order, after >> begin_bit
  int begin_bit;
  int end_bit;
  int num_passes;
  int descending;
  int records;         // key-value: 1 when the passes move records, 0 arrays (PassBuffers)
  int caller_records;  // records: 1 when the caller's buffers are 8-byte aligned (Records)
};

inline constexpr std::uint32_t kTableTiles = 1024;    // N_table: 1024 x 256 x 8 B = 2 MiB
inline constexpr std::uint32_t kLookbackLimit = 128;  // L: a tile reads at most L predecessors
inline constexpr int kTailBits = 5;  // the tail advances in groups of 2^kTailBits tiles
inline constexpr std::uint32_t kTailGroupTiles = 1u << kTailBits;
inline constexpr std::uint32_t kTailGroups = kTableTiles / kTailGroupTiles;  // counters' ring

// Where a pass reads and writes. Key-value passes of large sorts (Problem::records, chosen by
// the host from 20 Mi keys) move records {key, value} of 8 bytes, not a key array and a value
// array: a scatter then writes 256 runs a tile, not 512, each of whole records. (Smaller sorts
// move arrays: from the caller's to the alternate's first n keys and last n values and back.)
// With records, pass k (of the passes that run) reads what pass k - 1 wrote: pass 0
// the caller's buffers; then the alternate buffer (k odd), as records, and the caller's buffers
// (k even), which hold records between passes when both are 8-byte aligned and the count is
// even (n records fill their 2n words: the first n / 2 in the key buffer, the rest in the
// value buffer). The last pass writes the caller's buffers as they are, or (after an odd
// number of passes) the copy back does. A keys-only pass reads and writes keys.
//
// Why (H200, 2^26 pairs, 384 x 24, every pass's writes changed, the output unsorted): with
// each tile's keys and values written to consecutive places instead of their digits' runs, a
// sort took 22% less time (keys-only: 4%); with records written instead of two arrays, 17%
// less; 32 keys then their 32 values (128-byte halves), 8%. Reading records costs some of it
// back: a key is loaded every 8 bytes, and its value copied from the same record as it is
// ranked. (Loading records 8 bytes at a time was slower: with the values staged in shared
// memory in the tile's order, gathered through a 16-bit slot a key at the scatter, 2^24 5%
// and 2^26 8% slower; staged apart, or held in registers until ranked, also slower.) Records
// where the caller's buffers allow, 384 x 20, ms: 2^24 0.5288 -> 0.5338, 2^26 1.9174 ->
// 1.8181, 2^28 7.4274 -> 6.9090.

/// n records {key, value} of two words each: record i at low + 2 i below `split`, and at
/// high + 2 (i - split) from it.
struct Records {
  std::uint32_t* low;
  std::uint32_t* high;
  std::uint32_t split;

  __device__ __forceinline__ std::uint32_t* at(std::uint32_t i) const {
    return i < split ? low + 2 * std::size_t{i} : high + 2 * (std::size_t{i} - split);
  }
  /// Whether records [begin, end) are not all on one side of the split.
  __device__ __forceinline__ bool straddles(std::uint32_t begin, std::uint32_t end) const {
    return begin < split && split < end;
  }
};

/// What one key-value pass reads and writes: keys and values as arrays, or records. (A
/// keys-only pass reads the caller's keys or the alternate's, PassControl::from_alternate, and
/// writes the other.)
struct PassBuffers {
  std::uint32_t source_records;      // 1: source, else source_keys and source_values
  std::uint32_t target_records;      // 1: target, else target_keys and target_values
  const std::uint32_t* source_keys;  // arrays (source_records false)
  const std::uint32_t* source_values;
  Records source;  // records
  std::uint32_t* target_keys;
  std::uint32_t* target_values;
  Records target;

  /// Pass `order` of `passes_run` (an index of Control::pass_order), planned by count_digits.
  __device__ __forceinline__ static PassBuffers of(const Problem& problem, std::uint32_t order,
                                                   std::uint32_t passes_run) {
    PassBuffers buffers{};
    if (problem.records == 0) {  // arrays: the caller's, then the alternate's keys and values
      std::uint32_t* alternate_values = problem.alternate + problem.count;
      const bool from_caller = order % 2 == 0;
      buffers.source_keys = from_caller ? problem.keys : problem.alternate;
      buffers.source_values = from_caller ? problem.values : alternate_values;
      buffers.target_keys = from_caller ? problem.alternate : problem.keys;
      buffers.target_values = from_caller ? alternate_values : problem.values;
      return buffers;
    }
    const Records alternate{problem.alternate, problem.alternate, 0xFFFFFFFFu};
    const bool caller_records = problem.caller_records != 0 && problem.count % 2 == 0;
    const Records caller{problem.keys, problem.values, problem.count / 2};
    buffers.source_keys = problem.keys;
    buffers.source_values = problem.values;
    buffers.target_keys = problem.keys;
    buffers.target_values = problem.values;
    if (order % 2 == 0) {  // from the caller's buffers to the alternate
      buffers.source_records = order != 0 && caller_records ? 1u : 0u;
      buffers.source = caller;
      buffers.target_records = 1;
      buffers.target = alternate;
    } else {  // from the alternate to the caller's buffers
      buffers.source_records = 1;
      buffers.source = alternate;
      buffers.target_records = order + 1 != passes_run && caller_records ? 1u : 0u;
      buffers.target = caller;
    }
    return buffers;
  }
};

/// A pass's route, planned by count_digits: where its tiles read and write, and how they name
/// their table slots.
struct PassRoute {
  std::uint32_t from_alternate;  // keys-only: 1 reads the alternate buffer, writes the caller's
  PassBuffers buffers;           // key-value: where the pass reads and writes
  std::uint32_t sequence_base;   // sequence number of the pass's tile 0 (names its table slots)
};

/// One pass's state, planned by count_digits and advanced by the pass's tiles.
struct PassControl {
  PassRoute route;
  std::uint32_t tail;     // tiles [0, tail) have looked back: their slots' readers are done
  std::uint32_t written;  // tiles whose keys (and values) are written, added by each block
  std::uint32_t group_done[kTailGroups];  // looked-back tiles per tail group, a ring
};

inline constexpr std::uint32_t kMaxCountBlocks = 1024;  // grid limit of count_digits

/// The sort's state in device memory. Zeroed once when allocated; every sort leaves the
/// histograms and counters zero again for the next.
struct Control {
  std::uint32_t histograms[kMaxPasses][kBins];     // digit counts of the whole input
  std::uint32_t digit_offsets[kMaxPasses][kBins];  // their exclusive scans
  PassControl passes[kMaxPasses];
  std::uint32_t skipped_chunks[kMaxCountBlocks];  // per count_digits block: chunks not counted
  std::uint32_t blocks_skipping;                  // blocks that left chunks uncounted
  std::uint32_t recount;            // 1: recount_digits must count the skipped chunks, then plan
  std::uint32_t count_blocks_done;  // ticket: the last block of count_digits plans
  std::uint32_t unsorted;           // the order check found two keys out of order
  std::uint32_t next_sequence;      // kept across sorts: table tags are never reused early
  std::uint32_t passes_run;
  std::uint32_t count;                   // keys sorted, when the count came from the device
  std::uint32_t early_exit;              // the input was found sorted: nothing moved
  std::uint32_t pass_order[kMaxPasses];  // the passes that run (passes_run of them), in order
  std::uint32_t next_work;  // next tile of onesweep_passes, counted through the passes that run
};

/// The 8-bit digit of `key` in one pass, flipped for a descending sort (mask - d == mask ^ d).
struct DigitOf {
  int shift;
  std::uint32_t mask;  // 0xFF, or fewer bits for a last pass over a partial digit
  std::uint32_t flip;  // mask for a descending sort, else 0

  __device__ __forceinline__ static DigitOf for_pass(const Problem& problem, int pass) {
    const int shift = problem.begin_bit + kRadixBits * pass;
    const int bits = min(kRadixBits, problem.end_bit - shift);
    const std::uint32_t mask = (1u << bits) - 1u;
    return {shift, mask, problem.descending != 0 ? mask : 0u};
  }
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t key) const {
    return ((key >> shift) & mask) ^ flip;
  }
  /// The same digit, computed so that the compiler cannot merge it with another computation
  /// of it (its shift is in PTX).
  __device__ __forceinline__ std::uint32_t apart(std::uint32_t key) const {
    std::uint32_t shifted;
    asm("shr.b32 %0, %1, %2;" : "=r"(shifted) : "r"(key), "r"(shift));
    return (shifted & mask) ^ flip;
  }
};

// [SECTION] Circular look-back table
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
// it might alias. H200, ms: 2^24 keys 0.4167 -> 0.4136, 16-bit keys 0.2269 -> 0.2254, 2^26
// keys 1.4530 -> 1.4401; pairs 0.3-0.5% faster.
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
/// their aggregates while a tile ranks), so fewer round trips shorten it: 2^24 keys 0.481 ->
/// 0.465 ms with kWindow = 4 on an H100 (and a plain bump in rank_in_warp: 0.446 ms). Wider
/// windows measured slower; so did key-value passes while their values were loaded before
/// the look-back.
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

/// Starts moving `bytes` from global `source` into L2, rounded out to 16-byte blocks (a hint:
/// nothing waits for it).
__device__ __forceinline__ void prefetch_to_l2(const void* source, std::uint32_t bytes) {
#if __CUDA_ARCH__ >= 900
  const auto begin = reinterpret_cast<std::uintptr_t>(source);
  const std::uintptr_t start = begin & ~std::uintptr_t{15};
  const std::uintptr_t end = (begin + bytes + 15) & ~std::uintptr_t{15};
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(start),
               "r"(static_cast<std::uint32_t>(end - start))
               : "memory");
#endif
}

/// Starts copying the word at global `from` to shared `to` (4 or 8 bytes, both aligned to
/// them: a value, or a whole record), without a register on the way (Ampere's asynchronous
/// copy); wait_for_shared_copies waits for this thread's copies.
template <class Word>
__device__ __forceinline__ void copy_to_shared_async(Word* to, const std::uint32_t* from) {
  static_assert(sizeof(Word) == 4 || sizeof(Word) == 8, "a 4-byte value or an 8-byte record");
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(
                   static_cast<std::uint32_t>(__cvta_generic_to_shared(to))),
               "l"(__cvta_generic_to_global(from)), "n"(sizeof(Word))
               : "memory");
#else
  *to = *reinterpret_cast<const Word*>(from);
#endif
}

/// Loads the word at global `from`, its line kept in L1 before others (evict_last). A pass
/// that reads records loads each key so: the record's copy into shared memory then finds the
/// line in L1 more often. H200, records forced, three calls, ms: 2^24 0.5014 -> 0.4981, 2^26
/// 1.7200 -> 1.7083.
__device__ __forceinline__ std::uint32_t load_kept_in_l1(const std::uint32_t* from) {
  std::uint32_t value;
  asm volatile("ld.global.L1::evict_last.u32 %0, [%1];"
               : "=r"(value)
               : "l"(__cvta_generic_to_global(from)));
  return value;
}

__device__ __forceinline__ void wait_for_shared_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/// The sort's graph launches each kernel while the one before it ends (a programmatic
/// dependency, Hopper): its launch and its blocks' start overlap that kernel's last blocks.
/// A kernel waits here before it reads what the kernel before it wrote (at once when it was
/// launched without the dependency, on a stream). CUDA's functions, kept to sm_90 and later.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

/// Lets the graph's next kernel launch (it waits for this one before it reads anything).
__device__ __forceinline__ void let_next_kernel_launch() {
#if __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
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
/// of them), so no write to their slots after the tail passes them can reach them. (Release,
/// this count waited for the tile's table stores: pairs 5-12% slower.)
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

// [SECTION] Ranking (warp multi-split)
// A warp's keys are warp-striped: item k of lane l is the warp's (k * 32 + l)-th key, so
// ranking items in order k = 0, 1, ... and lanes in order keeps the sort stable. For each
// item the lanes with the same digit ("peers") are found by the multi-split of Ashkiani et
// al.: one ballot per digit bit (cheaper on Hopper than __match_any_sync, measured: 0.66 vs
// 0.93 ms for 2^24 keys). The highest peer bumps the warp's counter for that digit in shared
// memory by their number, and each lane's rank is the counter's old value plus the peers
// below it. The bump is an atomicAdd, or in the passes a plain read and write (one leader per
// digit, and the warp's counters are its own): 2^24 keys 0.482 -> 0.446 ms with the windowed
// look-back on an H100.

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
/// local memory every tile (384 x 20: 36 B a thread keys-only, 48 B key-value), whose writes
/// reached L2 (a pair pass at 2^26 wrote 23% more L2 sectors than CUB's, and 14% more DRAM
/// bytes than its data). Apart, keys-only spills nothing and key-value tiles only reload four
/// loop constants. H200, 384 x 20, ms: 2^24 pairs 0.5741 -> 0.5599, 2^26 2.0356 -> 1.9863, 2^28
/// 7.8242 -> 7.6818; keys 0.3826 -> 0.3800 (2^26 and 2^28 0.5% slower), but the registers
/// freed let keys-only tiles grow to 384 x 24.
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

// [SECTION] Upfront histograms, order check and plan
// Persistent blocks read the keys once, 16 keys per thread (four 16-byte loads when the keys
// are 16-byte aligned), compare each key with its successor (the order check) and count every
// pass's digit in shared memory. A warp reads 512 consecutive keys: its k-th load takes keys
// [128 k, 128 k + 128) of them, four a lane, so that every load reads 512 consecutive bytes
// (against 16 consecutive keys a lane, whose loads each touched 32 half-used sectors: 2^26
// keys 1.582 -> 1.558 ms, 2^24 0.4466 -> 0.4444 ms on an H100; a sorted input is no faster). A
// block counts only once disorder is known, in its own chunks or, through Control::unsorted, in
// anyone's: a sorted input is only read. Chunks a block read before it knew are counted then (read
// again); if disorder turns up only after some block finished without counting, recount_digits
// counts what was skipped. The last block to finish scans the histograms and plans the passes.
//
// A block's histograms are in shared memory, kColumns counters a digit: lane l of a warp
// counts into column l % kColumns, at ((pass * kBins + digit) * kColumns + column). With one
// column, lanes of random digits meet in a bank about 3.2 times an atomic, and that bounds the
// read (48.6 us for 2^24 keys on an H200, CUB's histogram 48.3 us); with 32 columns they never
// meet (41.2 us), but 128 KiB of counters leave room for one block of 1024 threads a
// multiprocessor, whose start and end cost small inputs more than the conflicts do.
inline constexpr int kCountKeys = 16;  // 64 registers: 16 keys and the checks

/// The shape of the histogram kernels' blocks.
template <int kThreadsOfBlock, int kColumnsOfDigit, int kBlocksOfMultiprocessor>
struct CountShape {
  static constexpr int kThreads = kThreadsOfBlock;  // >= kBins: the planning block's digits
  static constexpr int kColumns = kColumnsOfDigit;
  static constexpr int kBlocksPerMultiprocessor = kBlocksOfMultiprocessor;
  static constexpr std::uint32_t kChunk = kThreads * kCountKeys;  // a block's keys at a time
  static_assert(kThreads >= kBins && kThreads % kWarpThreads == 0);
  static_assert(kWarpThreads % kColumns == 0);

  static constexpr std::size_t shared_bytes(int passes) {
    return static_cast<std::size_t>(passes) * kBins * kColumns * sizeof(std::uint32_t);
  }
};
// A counter a digit for small inputs, a column a lane for large ones (the host's choice).
using CountByDigit = CountShape<256, 1, 4>;
using CountByLane = CountShape<1024, 32, 1>;
inline constexpr std::uint32_t kCountWarpKeys = kWarpThreads * kCountKeys;  // a warp's segment
inline constexpr int kCountVectors = kCountKeys / 4;
inline constexpr std::uint32_t kCountVectorKeys = kWarpThreads * 4;  // keys of one warp load

/// The histogram kernels' chunks of Shape::kChunk keys (the last one may be short).
template <class Shape>
__device__ __forceinline__ std::uint32_t chunks_of(const Problem& problem) {
  return problem.count / Shape::kChunk + (problem.count % Shape::kChunk != 0 ? 1u : 0u);
}

/// Where chunk `index` < chunks_of starts. Block b reads chunks b, b + gridDim.x, ..., which
/// are taken from the input's end towards its start: the keys read last, those at its start,
/// are then still in L2 when the first pass reads them, from the start; and an input just
/// written from start to end (by the kernel that made it, or a copy) is read first where that
/// write left it in L2. H200, 2^24 keys copied into place before each sort, ms: sorted 0.0335
/// -> 0.0292, 16-bit 0.2265 -> 0.2234, uniform 0.4143 -> 0.4123.
template <class Shape>
__device__ __forceinline__ std::uint32_t chunk_start(const Problem& problem, std::uint32_t index) {
  return (chunks_of<Shape>(problem) - 1 - index) * Shape::kChunk;
}

/// Where this thread's key k (k = 4 v + j) of the chunk at `chunk` is.
__device__ __forceinline__ std::uint32_t count_key_index(std::uint32_t chunk, int k) {
  const std::uint32_t warp = threadIdx.x / kWarpThreads;
  const std::uint32_t lane = threadIdx.x % kWarpThreads;
  return chunk + warp * kCountWarpKeys + (k / 4) * kCountVectorKeys + lane * 4 + k % 4;
}

/// The key's bits that take part in the order, flipped for a descending sort, so that
/// ascending order of the results is the sort's order.
struct OrderKey {
  std::uint32_t mask;
  std::uint32_t flip;

  __device__ __forceinline__ explicit OrderKey(const Problem& problem)
      : mask(problem.order_mask << problem.begin_bit),
        flip(problem.descending != 0 ? problem.order_mask << problem.begin_bit : 0u) {}
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t key) const {
    return (key & mask) ^ flip;
  }
};

/// Every pass's digit of a key at once, a byte each: byte p of digits(key) is pass p's digit
/// (DigitOf::for_pass(problem, p)), since the key's bits that take part in the order, flipped
/// for a descending sort and shifted down to bit 0, hold the digits in order, the last one's
/// bits past end_bit zero. The histograms count with it: a shift and a logic op a key, then a
/// byte permute a digit (DigitOf's runtime shift, mask and flip cost about twice that).
struct PassDigits {
  OrderKey order_key;
  int begin_bit;

  __device__ __forceinline__ explicit PassDigits(const Problem& problem)
      : order_key(problem), begin_bit(problem.begin_bit) {}
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t key) const {
    return order_key(key) >> begin_bit;
  }
  __device__ __forceinline__ static std::uint32_t digit(std::uint32_t digits, int pass) {
    return __byte_perm(digits, 0, 0x4440 + pass);  // byte `pass`, zero-extended
  }
  /// base + digit(digits, pass) * stride (stride < 256) in one instruction: a dot product of
  /// the digits' bytes with `stride` in byte `pass` (IDP.4A, where a byte permute and a
  /// shift-add took two). The count of 2^24 keys issues 9.9 M warp instructions instead of
  /// 11.9 M (Nsight Compute, H200); it seems bound by its shared-memory reductions: it took
  /// 1-3% less time, the sort the same.
  __device__ __forceinline__ static std::uint32_t counter(std::uint32_t digits, int pass,
                                                          std::uint32_t stride,
                                                          std::uint32_t base) {
    return __dp4a(digits, stride << (8 * pass), base);
  }
};

/// Adds `count` to column[at]: once for the lanes of the warp here if all of them add to the
/// same counter (a sorted or narrow input, whose lanes would otherwise queue on one address),
/// else one atomic a lane. The lanes' counters differ only in their columns, which the end of
/// the count sums. H200, 2^24 16-bit keys (two of four digits the same in every key): 0.2234
/// -> 0.2195 ms.
__device__ __forceinline__ void add_once_a_digit(std::uint32_t* column, std::uint32_t at,
                                                 int count) {
  const unsigned lanes = __activemask();
  const int leader = __ffs(static_cast<int>(lanes)) - 1;
  if (__all_sync(lanes, at == __shfl_sync(lanes, at, leader))) {
    const std::uint32_t total = __reduce_add_sync(lanes, static_cast<std::uint32_t>(count));
    if (static_cast<int>(threadIdx.x % kWarpThreads) == leader) atomicAdd(&column[at], total);
  } else {
    atomicAdd(&column[at], static_cast<std::uint32_t>(count));
  }
}

/// Adds 1 to the shared-memory counter at byte address `at` (a reduction: nothing comes back).
/// Written in PTX so that the address is the shared-window offset PassDigits::counter made
/// (C++ indexing cost three more instructions a key and pass).
__device__ __forceinline__ void count_at(std::uint32_t at) {
  asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(at));
}

/// Counts this thread's keys (keys[0, valid), valid >= 1) into the histograms of kPasses
/// passes: one atomic per key, or one for all of them when they share the pass's digit
/// (sorted and narrow inputs would otherwise pile up on one counter).
template <class Shape, int kPasses, bool kFull>
__device__ __forceinline__ void count_keys(const PassDigits& pass_digits,
                                           const std::uint32_t (&keys)[kCountKeys], int valid,
                                           std::uint32_t* histograms) {
  constexpr int kColumns = Shape::kColumns;
  constexpr std::uint32_t kDigitBytes = kColumns * sizeof(std::uint32_t);  // a digit's columns
  static_assert(kDigitBytes < 256, "a counter stride fits the byte of PassDigits::counter");
  std::uint32_t digits[kCountKeys];
#pragma unroll
  for (int k = 0; k < kCountKeys; ++k)
    digits[k] = pass_digits(keys[k]);
  std::uint32_t differing = 0;  // the digits' bits in which some key differs from keys[0]
#pragma unroll
  for (int k = 1; k < kCountKeys; ++k) {
    if (kFull || k < valid) differing |= digits[k] ^ digits[0];
  }
  const int column = static_cast<int>(threadIdx.x % kColumns);
  const auto columns = static_cast<std::uint32_t>(__cvta_generic_to_shared(histograms + column));
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    if (PassDigits::digit(differing, pass) == 0) {
      add_once_a_digit(histograms + pass * kBins * kColumns + column,
                       PassDigits::digit(digits[0], pass) * kColumns, valid);
      continue;
    }
    const std::uint32_t pass_columns = columns + pass * kBins * kDigitBytes;
#pragma unroll
    for (int k = 0; k < kCountKeys; ++k) {
      if (kFull || k < valid)
        count_at(PassDigits::counter(digits[k], pass, kDigitBytes, pass_columns));
    }
  }
}

/// What the last block of count_digits plans from, loaded at once (one memory latency, not
/// one a step): whether disorder was found, whether chunks were left uncounted, the next
/// sequence number, and thread t's digit counts: pass (t + r kThreads) / kBins's digit
/// (t + r kThreads) % kBins in counts[r].
template <int kThreads>
struct PlanInput {
  static constexpr int kRounds = (kMaxPasses * kBins + kThreads - 1) / kThreads;
  bool unsorted;
  bool skipping;
  std::uint32_t sequence;
  std::uint32_t counts[kRounds];

  __device__ __forceinline__ static PlanInput load(const Problem& problem, const Control* control) {
    PlanInput input;
    input.unsorted = __ldcg(&control->unsorted) != 0;
    input.skipping = __ldcg(&control->blocks_skipping) != 0;
    input.sequence = __ldcg(&control->next_sequence);
#pragma unroll
    for (int round = 0; round < kRounds; ++round) {
      const int index = threadIdx.x + round * kThreads;
      // Zero where nothing was counted (a sorted input leaves the histograms zero).
      input.counts[round] = index < problem.num_passes * kBins
                                ? __ldcg(&control->histograms[index / kBins][index % kBins])
                                : 0u;
    }
    return input;
  }
};

/// The last block of count_digits: scans every pass's histogram at once (a warp's 32 digits
/// by shuffles, the warps' sums through shared memory: one barrier in all, where a block scan
/// a pass took three or more), decides which passes run (not when the input is sorted, nor
/// when one digit holds every key), which buffers they read and which sequence numbers they
/// take, and resets what the next sort needs zero. Against a block scan a pass, with its inputs
/// loaded one step at a time (H200): the plan of 2^24 pairs took 2.3 us after the last block's
/// ticket instead of 3.6 (globaltimer probes), 2^22 pairs 0.1580-0.1599 -> 0.1554-0.1555 ms,
/// 2^24 keys 0.3495-0.3497 -> 0.3468-0.3475.
template <int kThreads>
__device__ __forceinline__ void plan_passes(const Problem& problem, Control* control,
                                            const PlanInput<kThreads>& input) {
  constexpr int kRounds = PlanInput<kThreads>::kRounds;
  constexpr int kDigitWarps = kBins / kWarpThreads;  // a pass's warps of digits
  __shared__ std::uint32_t warp_sums[kMaxPasses * kDigitWarps];
  __shared__ bool warp_one_digit[kMaxPasses * kDigitWarps];  // a digit of the warp holds all
  // A sorted input runs no pass and needs no offsets (nor the scan: 2^24 sorted keys 0.0301
  // -> 0.0309 ms with it).
  if (input.unsorted) {  // block-uniform
    const unsigned lane = threadIdx.x % kWarpThreads;
    std::uint32_t inclusive[kRounds];
#pragma unroll
    for (int round = 0; round < kRounds; ++round) {
      const int index = threadIdx.x + round * kThreads;
      inclusive[round] = input.counts[round];
#pragma unroll
      for (int step = 1; step < kWarpThreads; step *= 2) {
        const std::uint32_t below = __shfl_up_sync(0xFFFFFFFFu, inclusive[round], step);
        if (lane >= static_cast<unsigned>(step)) inclusive[round] += below;
      }
      const bool one_digit = __any_sync(0xFFFFFFFFu, input.counts[round] == problem.count);
      if (lane == kWarpThreads - 1 && index < kMaxPasses * kBins) {
        warp_sums[index / kWarpThreads] = inclusive[round];
        warp_one_digit[index / kWarpThreads] = one_digit;
      }
    }
    __syncthreads();
#pragma unroll
    for (int round = 0; round < kRounds; ++round) {
      const int index = threadIdx.x + round * kThreads;
      const int pass = index / kBins;
      if (pass >= problem.num_passes) continue;
      std::uint32_t offset = inclusive[round] - input.counts[round];
      for (int warp = pass * kDigitWarps; warp < index / kWarpThreads; ++warp)
        offset += warp_sums[warp];
      control->histograms[pass][index % kBins] = 0;
      control->digit_offsets[pass][index % kBins] = offset;
    }
  }

  // Which passes run, and the state each starts from.
  std::uint32_t sequence = input.sequence;
  std::uint32_t passes_run = 0;
#pragma unroll
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    if (pass >= problem.num_passes) break;
    bool run = input.unsorted;
#pragma unroll
    for (int warp = 0; run && warp < kDigitWarps; ++warp)
      run = !warp_one_digit[pass * kDigitWarps + warp];
    PassControl& pass_control = control->passes[pass];
    if (threadIdx.x < static_cast<int>(kTailGroups)) pass_control.group_done[threadIdx.x] = 0;
    if (threadIdx.x == 0) {
      pass_control.route.from_alternate = passes_run % 2;
      pass_control.route.sequence_base = sequence;
      pass_control.tail = 0;
      pass_control.written = 0;
      if (run) control->pass_order[passes_run] = static_cast<std::uint32_t>(pass);
    }
    if (run) {
      sequence = (sequence + problem.num_tiles) & kTagMask;
      ++passes_run;
    }
  }
  if (threadIdx.x == 0) {
    for (std::uint32_t order = 0; problem.values != nullptr && order < passes_run; ++order) {
      control->passes[control->pass_order[order]].route.buffers =
          PassBuffers::of(problem, order, passes_run);
    }
    control->next_sequence = sequence;
    control->passes_run = passes_run;
    control->early_exit = input.unsorted ? 0u : 1u;
    control->next_work = 0;
    control->unsorted = 0;
    control->count_blocks_done = 0;
    control->blocks_skipping = 0;
    control->recount = 0;
  }
}

/// Loads this thread's keys of the chunk at `chunk` (count_key_index) into `keys`, 0 past the
/// count; returns how many are keys: their indices grow with k, so they are keys[0, valid).
__device__ __forceinline__ int load_count_keys(const Problem& problem, std::uint32_t chunk,
                                               bool aligned, std::uint32_t (&keys)[kCountKeys]) {
  const std::uint32_t segment = chunk + threadIdx.x / kWarpThreads * kCountWarpKeys;
  if (aligned && segment + kCountWarpKeys <= problem.count) {  // warp-uniform
    const uint4* vectors = reinterpret_cast<const uint4*>(problem.keys + segment);
#pragma unroll
    for (int v = 0; v < kCountVectors; ++v) {
      const uint4 vector = vectors[v * kWarpThreads + threadIdx.x % kWarpThreads];
      keys[4 * v] = vector.x;
      keys[4 * v + 1] = vector.y;
      keys[4 * v + 2] = vector.z;
      keys[4 * v + 3] = vector.w;
    }
    return kCountKeys;
  }
  int valid = 0;
#pragma unroll
  for (int k = 0; k < kCountKeys; ++k) {
    const std::uint32_t index = count_key_index(chunk, k);
    keys[k] = index < problem.count ? problem.keys[index] : 0u;
    valid += index < problem.count ? 1 : 0;
  }
  return valid;
}

/// Counts this thread's keys of the chunk at `chunk` into the block's histograms.
template <class Shape, int kPasses>
__device__ __forceinline__ void count_chunk(const Problem& problem, std::uint32_t chunk,
                                            bool aligned, const PassDigits& pass_digits,
                                            std::uint32_t* histograms) {
  if (count_key_index(chunk, 0) >= problem.count) return;
  std::uint32_t keys[kCountKeys];
  const int valid = load_count_keys(problem, chunk, aligned, keys);
  if (valid == kCountKeys) {
    count_keys<Shape, kPasses, true>(pass_digits, keys, valid, histograms);
  } else {
    count_keys<Shape, kPasses, false>(pass_digits, keys, valid, histograms);
  }
}

/// The end of count_digits and recount_digits: the block's counts (if it `counted`) go to the
/// global histograms; the last block to finish plans, unless (count_digits only) skipped chunks
/// must be counted.
template <class Shape, int kPasses>
__device__ __forceinline__ void finish_counting(const Problem& problem, Control* control,
                                                const std::uint32_t* histograms, bool counted,
                                                bool may_need_recount) {
  constexpr int kColumns = Shape::kColumns;
  for (int i = threadIdx.x; counted && i < kPasses * kBins; i += Shape::kThreads) {
    // The columns in an order rotated by the thread, so that a warp's reads meet in no bank.
    const std::uint32_t* columns = histograms + i * kColumns;
    std::uint32_t total = 0;
#pragma unroll
    for (int column = 0; column < kColumns; ++column)
      total += columns[(column + threadIdx.x) % kColumns];
    if (total != 0) atomicAdd(&control->histograms[i / kBins][i % kBins], total);
  }
  // The fence makes this block's counts and flags visible before its ticket.
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&control->count_blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  const auto input = PlanInput<Shape::kThreads>::load(problem, control);
  if (may_need_recount && input.unsorted && input.skipping) {
    if (threadIdx.x == 0) {
      control->count_blocks_done = 0;
      control->recount = 1;  // recount_digits counts the skipped chunks, then plans
    }
    return;
  }
  plan_passes<Shape::kThreads>(problem, control, input);
}

/// A block of the histogram kernels about to count: its shared histograms of kPasses digits
/// cleared, and the block synchronised. (A block that only checks the order never clears them:
/// a sorted input costs no more than its read.)
template <class Shape, int kPasses>
__device__ __forceinline__ void start_counting(std::uint32_t* histograms) {
  for (int i = threadIdx.x; i < kPasses * kBins * Shape::kColumns; i += Shape::kThreads)
    histograms[i] = 0;
  __syncthreads();
}

/// Whether some key of this thread's in the chunk at `chunk` is greater than its successor
/// (the next lane's first key of the same load, lane 0's of the next load, or the key after
/// the warp's segment). Called by whole warps.
__device__ __forceinline__ bool chunk_out_of_order(const Problem& problem, std::uint32_t chunk,
                                                   bool aligned, const OrderKey& order_key) {
  const std::uint32_t segment = chunk + threadIdx.x / kWarpThreads * kCountWarpKeys;
  if (segment >= problem.count) return false;  // warp-uniform
  const unsigned lane = threadIdx.x % kWarpThreads;
  std::uint32_t keys[kCountKeys];
  load_count_keys(problem, chunk, aligned, keys);
  bool disorder = false;
#pragma unroll
  for (int v = 0; v < kCountVectors; ++v) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int k = 4 * v + j;
      std::uint32_t next;
      if (j < 3) {
        next = keys[k + 1];
      } else {
        next = __shfl_down_sync(0xFFFFFFFFu, keys[4 * v], 1);  // lane + 1's first key
        const std::uint32_t next_load =
            v + 1 < kCountVectors ? __shfl_sync(0xFFFFFFFFu, keys[4 * (v + 1)], 0) : 0u;
        if (lane == kWarpThreads - 1) next = next_load;
      }
      const std::uint32_t next_index = count_key_index(chunk, k) + 1;
      if (next_index < problem.count) {
        if (k == kCountKeys - 1 && lane == kWarpThreads - 1) next = problem.keys[next_index];
        disorder |= order_key(keys[k]) > order_key(next);
      }
    }
  }
  return disorder;
}

/// Two phases per block: check its chunks (one, then two at a time) until disorder is known (its
/// own or, through Control::unsorted, anyone's); then count the chunks it checked (read again) and
/// count the rest without checking. A sorted input never leaves the first phase.
template <class Shape, int kPasses>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kBlocksPerMultiprocessor)
    count_digits(const Problem* problem_in, Control* control) {
  let_next_kernel_launch();
  extern __shared__ std::uint32_t histograms[];  // Shape::shared_bytes(kPasses)
  const Problem problem = *problem_in;
  const PassDigits pass_digits(problem);
  const bool aligned = reinterpret_cast<std::uintptr_t>(problem.keys) % sizeof(uint4) == 0;
  const OrderKey order_key(problem);
  const std::uint32_t chunks = chunks_of<Shape>(problem);

  std::uint32_t index = blockIdx.x;  // this block's next chunk (chunk_start)
  std::uint32_t checked = 0;         // this block's leading chunks that were only checked
  bool counting = false;
  for (bool first_round = true; index < chunks; first_round = false) {
    // One chunk first, then two at a time: random keys show disorder in the first chunk,
    // which is then read again to count it (2^24 keys 49.8 -> 46.8 us for one chunk a round
    // throughout; sorted keys, read to the end, 40.0 -> 40.7). `|`, not `||`: both checks
    // run in every lane, since they shuffle within the warp.
    const bool second = !first_round && index + gridDim.x < chunks;  // block-uniform
    const bool disorder =
        chunk_out_of_order(problem, chunk_start<Shape>(problem, index), aligned, order_key) |
        (second && chunk_out_of_order(problem, chunk_start<Shape>(problem, index + gridDim.x),
                                      aligned, order_key));
    const bool known = threadIdx.x == 0 && __ldcg(&control->unsorted) != 0;
    counting = __syncthreads_or(disorder || known) != 0;
    checked += second ? 2 : 1;
    index += (first_round ? 1 : 2) * gridDim.x;
    if (counting) break;
  }
  if (counting) {
    if (threadIdx.x == 0) atomicExch(&control->unsorted, 1u);  // the other blocks count too
    start_counting<Shape, kPasses>(histograms);
    for (std::uint32_t k = 0; k < checked; ++k) {
      count_chunk<Shape, kPasses>(problem, chunk_start<Shape>(problem, blockIdx.x + k * gridDim.x),
                                  aligned, pass_digits, histograms);
    }
    checked = 0;
    for (; index < chunks; index += gridDim.x)
      count_chunk<Shape, kPasses>(problem, chunk_start<Shape>(problem, index), aligned, pass_digits,
                                  histograms);
  }
  if (threadIdx.x == 0) {
    control->skipped_chunks[blockIdx.x] = checked;
    if (checked != 0) atomicAdd(&control->blocks_skipping, 1u);
  }
  __syncthreads();
  finish_counting<Shape, kPasses>(problem, control, histograms, counting, true);
}

/// Only when disorder turned up after some block of count_digits had finished without
/// counting (a sorted input with disorder near its end): counts the chunks each block
/// skipped, then plans. Otherwise it returns at once.
template <class Shape, int kPasses>
__global__ void __launch_bounds__(Shape::kThreads)
    recount_digits(const Problem* problem_in, Control* control) {
  let_next_kernel_launch();
  wait_for_previous_kernel();
  if (control->recount == 0) return;
  extern __shared__ std::uint32_t histograms[];  // Shape::shared_bytes(kPasses)
  const Problem problem = *problem_in;
  const PassDigits pass_digits(problem);
  start_counting<Shape, kPasses>(histograms);
  const bool aligned = reinterpret_cast<std::uintptr_t>(problem.keys) % sizeof(uint4) == 0;
  const std::uint32_t skipped = control->skipped_chunks[blockIdx.x];
  for (std::uint32_t k = 0; k < skipped; ++k) {
    count_chunk<Shape, kPasses>(problem, chunk_start<Shape>(problem, blockIdx.x + k * gridDim.x),
                                aligned, pass_digits, histograms);
  }
  __syncthreads();
  finish_counting<Shape, kPasses>(problem, control, histograms, true, false);
}

// [SECTION] The passes
// One persistent kernel runs every pass that runs, then finishes the sort: its report, and the
// copy back after an odd number of passes.

/// Where Control's word at `offset` (passes_run to early_exit) goes in the sort's report.
__device__ __forceinline__ std::uint32_t& report_word(std::uint32_t* report, std::size_t offset) {
  return report[(offset - offsetof(Control, passes_run)) / sizeof(std::uint32_t)];
}

/// One thread: the sort's report (SortReport's words: Control from passes_run to early_exit),
/// written into page-locked memory by onesweep_passes, so that no kernel of its own
/// copies it (that kernel and the gap before it took 3.3 us in a trace).
__device__ __forceinline__ void write_report(const Control* control, std::uint32_t* report) {
  report_word(report, offsetof(Control, passes_run)) = control->passes_run;
  report_word(report, offsetof(Control, count)) = control->count;
  report_word(report, offsetof(Control, early_exit)) = control->early_exit;
}

/// After an odd number of passes: the sorted keys (and values) from the alternate buffers back
/// to the caller's, this block's share, once the last pass is done. Read from L2: that pass
/// wrote them in this kernel, from other multiprocessors. Not inlined: its code in the passes'
/// kernel would cost their loop registers (with the copy back inlined in every pass's kernel,
/// 2^24 pairs took 0.667 ms against 0.657 on an H100), and it runs at most once a sort.
__device__ __noinline__ void copy_back_share(const Problem* problem_in, Control* control) {
  const Problem& problem = *problem_in;
  if (threadIdx.x == 0) {
    wait_for_pass(control->passes[control->pass_order[control->passes_run - 1]], problem.num_tiles);
  }
  __syncthreads();
  const std::uint32_t stride = gridDim.x * blockDim.x;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < problem.count; i += stride) {
    if (problem.values != nullptr && problem.records != 0) {
      const uint2 record = __ldcg(reinterpret_cast<const uint2*>(problem.alternate) + i);
      problem.keys[i] = record.x;
      problem.values[i] = record.y;
    } else {  // keys, then (key-value arrays) the values n words on
      problem.keys[i] = __ldcg(&problem.alternate[i]);
      if (problem.values != nullptr)
        problem.values[i] = __ldcg(&problem.alternate[problem.count + i]);
    }
  }
}

// A block takes the next tile (so tiles start in index order and a tile's predecessors are
// running or done: the look-back cannot deadlock), loads its keys warp-striped, ranks
// them, publishes its digit counts to the table, looks back for the counts of the tiles before
// it, publishes its inclusive prefix, then writes its keys in digit order into shared memory
// and from there to their places: consecutive threads write consecutive places within a digit.
// A key-value pass then loads the tile's values (in flight while the keys are written), puts
// them in shared memory at their keys' ranks and writes them out the same way.

template <int kThreads, int kItems, bool kWithValues>
struct PassShape {
  static constexpr int kWarps = kThreads / kWarpThreads;
  static constexpr std::uint32_t kTileKeys = kThreads * kItems;
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  static_assert(kThreads >= kBins, "a thread per digit");
  static_assert(kThreads % kWarpThreads == 0);

  struct Shared {
    // Digit counts, then each warp's next positions.
    alignas(16) std::uint32_t warp_counts[kWarps][kBins];
    std::uint32_t exchange[kTileKeys];                          // the tile's keys in digit order
    std::uint32_t value_exchange[kWithValues ? kTileKeys : 1];  // and their values
    typename Scan::TempStorage scan;
    std::uint32_t tile_base[kBins];  // global place of the sorted tile's position 0, per digit
    std::uint32_t tile;
    std::uint32_t order;  // onesweep_passes: the tile's pass, as an index of Control::pass_order
    // onesweep_passes, thread 0: the block's tiles written in that pass. (A register of the
    // kernel's loop, it cost pair passes 1.5-3% in spills.)
    std::uint32_t written;
    // onesweep_passes, thread 0: the block's next work item (PassAgent::kTakeNextAt).
    std::uint32_t next_work;
    // onesweep_passes: the block's copy of its pass's plan (PlanCopy).
    PassRoute route;
    std::uint32_t digit_offsets[kBins];
  };

  /// A pass that reads records: the tile's {key, value} records in digit order, over
  /// exchange and value_exchange, each put by one 8-byte copy where a key's store and its
  /// value's copy took two shared-memory writes (each of them conflicted: ranks are random).
  /// H200, medians of three calls, ms: 2^24 records (forced) 0.5022 -> 0.4991, 2^26 1.7288 ->
  /// 1.7202, 2^28 (two) 6.6175 -> 6.6030.
  __device__ __forceinline__ static uint2* record_exchange(Shared& shared) {
    static_assert(kWithValues, "records hold keys and values");
    static_assert(offsetof(Shared, value_exchange) == offsetof(Shared, exchange) + 4 * kTileKeys &&
                      offsetof(Shared, exchange) % alignof(uint2) == 0,
                  "the records lie over both exchanges");
    return reinterpret_cast<uint2*>(shared.exchange);
  }

  /// Every thread: zeroes warp_counts, 16 bytes a store. (A store a counter, indexed
  /// [i / kBins][i % kBins], took 84 instructions a warp a tile: 5% of a pass's.)
  __device__ __forceinline__ static void clear_warp_counts(Shared& shared) {
    constexpr int kVectors = kWarps * kBins / 4;
    uint4* vectors = reinterpret_cast<uint4*>(&shared.warp_counts[0][0]);
#pragma unroll
    for (int k = 0; k < (kVectors + kThreads - 1) / kThreads; ++k) {
      const int at = k * kThreads + static_cast<int>(threadIdx.x);
      if (kVectors % kThreads == 0 || at < kVectors) vectors[at] = make_uint4(0, 0, 0, 0);
    }
  }
};

/// What the tiles of pass `pass` read of its plan (its PassRoute and digit offsets) on the way
/// to the block's copy in shared memory: loaded into registers, a word a thread, then stored
/// (visible after a barrier). Loaded before the block waits for the pass before it, so that
/// the loads' round trip overlaps the wait. Read from Control at each tile, the route cost
/// every tile an L2 round trip before its key loads, whose addresses depend on it: H200, ms,
/// 2^24 keys 0.3645 -> 0.3570, 2^26 1.2465 -> 1.2154 (2% faster from 2^22 keys up). Pairs
/// gained once their loops kept the route's pointers in registers (PassAgent::run): 2^22
/// 0.1611 -> 0.1591, 2^26 1.8304 -> 1.7581, 2^28 6.9377 -> 6.7313.
struct PlanCopy {
  static constexpr int kRouteWords = sizeof(PassRoute) / sizeof(std::uint32_t);
  static_assert(sizeof(PassRoute) % sizeof(std::uint32_t) == 0);
  static_assert(kRouteWords <= kBins, "a word a thread of the block's first kBins");

  std::uint32_t digit_offset;  // thread d < kBins: digit d's
  std::uint32_t route_word;    // thread k < kRouteWords: the route's word k

  __device__ __forceinline__ static PlanCopy load(const Control* control, int pass) {
    const auto* route = reinterpret_cast<const std::uint32_t*>(&control->passes[pass].route);
    const int k = static_cast<int>(threadIdx.x);
    PlanCopy copy{};
    if (k < kBins) copy.digit_offset = control->digit_offsets[pass][k];
    if (k < kRouteWords) copy.route_word = route[k];
    return copy;
  }
  template <class Shared>
  __device__ __forceinline__ void store(Shared& shared) const {
    const int k = static_cast<int>(threadIdx.x);
    if (k < kBins) shared.digit_offsets[k] = digit_offset;
    if (k < kRouteWords) reinterpret_cast<std::uint32_t*>(&shared.route)[k] = route_word;
  }
};

/// One block's work in one pass: one tile. The tile counts its digits first and publishes
/// them before it ranks, so that its successors' look-backs do not wait for its ranking
/// ("early counts", Adinets & Merrill; measured 0.64 vs 0.70 ms for 2^24 keys). Full tiles
/// (all but the last) run without bounds checks.
template <int kThreads, int kItems, bool kWithValues, bool kRecords>
struct PassAgent {
  using Shape = PassShape<kThreads, kItems, kWithValues>;
  static_assert(kWithValues || !kRecords, "records hold keys and values");

  // Thread 0 takes the block's next work item as it writes its item kTakeNextAt, so that the
  // atomic's round trip overlaps the rest of its writes instead of holding the block at the
  // loop's start. Taken earlier, a tile waits on its block after its place in line is given, and
  // its successors' look-backs wait on it. H200, ms (two rounds' medians, averaged), 2^24 keys
  // / pairs, 2^26 keys: at the loop's start 0.3477 / 0.5088 / 1.2098; here 0.3432 / 0.5028 /
  // 1.1976 (2^26 pairs the same, 2^22 0.6-0.9% slower); halfway 0.3449 / 0.5069 / 1.2007; at
  // the scatter's start 1.1% slower at 2^24 pairs; a tile ahead (at its keys' load) 7.5%.
  static constexpr int kTakeNextAt = kItems - kItems / 4;

  typename Shape::Shared& shared;
  const Problem& problem;
  Control* control;
  std::uint64_t* table;
  int pass;
  std::uint32_t tile;

  /// The tile, with the code for its buffers (block-uniform branches). A full tile (all but the
  /// pass's last) whose source records are on one side of their split runs without checks.
  __device__ __forceinline__ void run() {
    const std::uint32_t tile_start = tile * Shape::kTileKeys;
    const std::uint32_t tile_end = tile_start + Shape::kTileKeys;
    bool full = tile_end <= problem.count;
    if constexpr (kWithValues && !kRecords) {
      full ? run<true, false, false>() : run<false, false, false>();
    } else if constexpr (kWithValues) {
      const PassBuffers& buffers = shared.route.buffers;
      full = full && !(buffers.source_records && buffers.source.straddles(tile_start, tile_end));
      if (!buffers.source_records) {
        full ? run<true, false, true>() : run<false, false, true>();
      } else if (buffers.target_records) {
        full ? run<true, true, true>() : run<false, true, true>();
      } else {
        full ? run<true, true, false>() : run<false, true, false>();
      }
    } else {
      full ? run<true, false, false>() : run<false, false, false>();
    }
  }

  template <bool kFull, bool kSourceRecords, bool kTargetRecords>
  __device__ __forceinline__ void run() {
    PassControl& pass_control = control->passes[pass];
    // Key-value: where the pass reads and writes, read from shared memory into registers where
    // a loop needs it, since a store or an asm with a memory clobber in the loop (which might
    // alias it) would read it again.
    const PassBuffers& buffers = shared.route.buffers;
    const bool from_alternate = shared.route.from_alternate != 0;  // keys-only
    const std::uint32_t* source_keys = from_alternate ? problem.alternate : problem.keys;
    std::uint32_t* target_keys = from_alternate ? problem.keys : problem.alternate;
    const DigitOf digit_of = DigitOf::for_pass(problem, pass);
    const int warp = threadIdx.x / kWarpThreads;
    const std::uint32_t tile_start = tile * Shape::kTileKeys;
    const std::uint32_t first =
        tile_start + warp * kWarpThreads * kItems + threadIdx.x % kWarpThreads;
    const auto valid = [&](int item) {
      return kFull || first + item * kWarpThreads < problem.count;
    };

    // This thread's items from a pointer to its first, so that each load's address is an
    // offset of one 64-bit base (an index `first + item * 32` costs a 64-bit multiply-add and
    // two moves a load, since the 32-bit sum may wrap). With clear_warp_counts, H200, ms: 2^24
    // keys 0.4101 -> 0.3967, 2^26 1.4429 -> 1.3920, 16-bit 0.2182 -> 0.2109; pairs the same.
    // Records: a key every 8 bytes (the load brings the values into the caches as well).
    constexpr int kStride = kSourceRecords ? 2 : 1;
    const std::uint32_t* thread_keys =
        kSourceRecords ? (kFull ? buffers.source.at(first) : nullptr)
                       : (kWithValues ? buffers.source_keys : source_keys) + first;
    const auto key_source = [&](int item) -> const std::uint32_t* {
      if (kSourceRecords && !kFull) return buffers.source.at(first + item * kWarpThreads);
      return thread_keys + item * kWarpThreads * kStride;
    };
    std::uint32_t keys[kItems];
#pragma unroll
    for (int item = 0; item < kItems; ++item)
      keys[item] = valid(item)
                       ? (kSourceRecords ? load_kept_in_l1(key_source(item)) : *key_source(item))
                       : 0u;

    // Counts out, prefix in: thread d handles digit d; the ranking runs between publishing
    // the tile's counts and the look-back.
    const std::uint32_t sequence_base = shared.route.sequence_base;
    const std::uint32_t sequence = sequence_base + tile;
    const int digit = threadIdx.x;
    std::uint64_t* entry = table_slot(table, sequence) + digit;
    std::uint32_t* counts = shared.warp_counts[warp];
    count_in_warp<kItems, kFull>(keys, first, problem.count, digit_of, counts);
    if (threadIdx.x == 0) wait_for_slot(pass_control, tile);
    __syncthreads();
    // Once its keys are in, a tile starts moving into L2 what it will load next (a hint that
    // nothing waits for), from a lane of the second warp since thread 0 waits for the slot:
    // - keys-only: the keys of the tile its block will likely take next (blocks take tiles in
    //   turn; wrong at times, never past the pass's last full tile). H200, ms: issued as the
    //   tile starts, 2^24 0.4220 -> 0.4178, 2^26 1.5122 -> 1.4875, 2^28 5.8447 -> 5.7492 (two
    //   tiles ahead: 1.7-2.7% slower); issued here instead, 384 x 20, 2^24 0.3851 -> 0.3789,
    //   2^26 1.3402 -> 1.3239, 2^28 5.147 -> 5.095.
    // - key-value from arrays: the tile's own values, which its ranking copies. 384 x 20, 2^24 /
    //   2^26 / 2^28 pairs, ms: the next tile's keys as the tile starts 0.5875 / 2.1142 / 8.152;
    //   the values as it starts 0.5823 / 2.0883 / 8.011; the values here (against that in one
    //   run) 0.5810 / 2.0835 / 7.973 -> 0.5685 / 2.0464 / 7.794. Values and the next tile's
    //   keys as it starts: no gain; the next tile's keys and values: 1.5-2% slower.
    //   (Since the ranking copies them, without the prefetch: 2^24 / 2^26 2.2% slower.)
    // - records: nothing. The records of the tile its block will likely take next (60 KB at
    //   384 x 20): 2^24 0.5378 -> 0.5555, 2^26 1.8222 -> 1.8541.
    if (threadIdx.x == kWarpThreads) {
      if constexpr (kWithValues) {
        if (kFull && !kSourceRecords) {
          prefetch_to_l2(buffers.source_values + tile_start,
                         Shape::kTileKeys * sizeof(std::uint32_t));
        }
      } else {
        const std::uint32_t ahead = tile + gridDim.x;
        if (ahead + 1 < problem.num_tiles) {
          prefetch_to_l2(source_keys + ahead * Shape::kTileKeys,
                         Shape::kTileKeys * sizeof(std::uint32_t));
        }
      }
    }
    if (digit < kBins) {
      std::uint32_t own = 0;
#pragma unroll
      for (int w = 0; w < Shape::kWarps; ++w)
        own += shared.warp_counts[w][digit];
      publish(entry, make_entry(own, tile == 0 ? kFlagInclusive : kFlagAggregate, sequence));
    }
    std::uint32_t tile_count;
    std::uint32_t digit_start;
    place_warps<kThreads, typename Shape::Scan>(shared.warp_counts, shared.scan, tile_count,
                                                digit_start);
    __syncthreads();  // every warp's first positions are in place: rank from them
    // A key-value pass copies each value to its key's place as the key is ranked, global to
    // shared with no register on the way (cp.async), and waits for the copies only before the
    // scatter; then keys and values go out in one loop. Against values loaded after the
    // look-back into registers, placed in shared memory and written in a loop of their own
    // behind a barrier: H200, 384 x 24, ms: 2^24 0.5612 -> 0.5201, 2^26 1.9624 -> 1.9079.
    // A pass that reads records copies each whole record instead (record_exchange).
    std::uint32_t places[kItems];
    const std::uint32_t* const source_values = buffers.source_values;  // arrays
    rank_in_warp<kItems, kFull, /*kPlainBump=*/true, /*kKeysToExchange=*/!kSourceRecords>(
        keys, first, problem.count, digit_of, counts, places, shared.exchange,
        [&](int item, std::uint32_t place) {
          if constexpr (kSourceRecords) {
            copy_to_shared_async(Shape::record_exchange(shared) + place, key_source(item));
          } else if constexpr (kWithValues) {
            const std::uint32_t* value = source_values + first + item * kWarpThreads;
            copy_to_shared_async(shared.value_exchange + place, value);
          }
        });
    if (digit < kBins) {
      std::uint32_t before = 0;
      if (tile != 0) {
        // Predecessors read a round trip: keys-only passes four, key-value passes that move
        // records two, arrays one. A walk is 13-15 tiles long in a busy pass (median; 24 in a
        // pass's first round), yet wider windows lose: their loads slow the tiles' own (a
        // trace, PERFORMANCE.md). H200, ms, pairs: two against four, 2^24 0.5965 -> 0.5843 (an
        // earlier build); since, three and four 1.1% and 2.3% slower than two. Arrays with one
        // against two: 2^24 0.4999 -> 0.4832, 12 Mi 0.3888 -> 0.3807, 16-bit 2^24 0.2666 ->
        // 0.2605; 2^22 0.1524 -> 0.1562 (2.4% slower). Records with one: 2^25, 2^26 5-6% slower.
        constexpr int kWindow = kWithValues ? (kRecords ? 2 : 1) : 4;
        before = look_back<kWindow>(table, sequence_base, tile, digit);
        publish(entry, make_entry(before + tile_count, kFlagInclusive, sequence));
      }
      shared.tile_base[digit] = shared.digit_offsets[digit] + before - digit_start;
    }
    if constexpr (kWithValues) wait_for_shared_copies();  // the values are in value_exchange
    __syncthreads();
    // The tail covers the look-back only (a slot is free once its readers are done), without a
    // fence: the pass's end is counted apart (`written`). A tile counts itself in its tail
    // group here, its round trip in flight while the keys are written. H200, ms, against a
    // fenced tail over whole tiles: 2^24 keys 0.3985 -> 0.3852, 2^26 1.3992 -> 1.3422. Key-value
    // tiles counted at their end until their keys stopped spilling (count_in_warp): here, 2^26
    // pairs were 1.5% slower then; after it, 384 x 20, 2^24 0.5571 -> 0.5272, 2^26 1.9829 ->
    // 1.9304 (384 x 16: 2^24 0.8% faster, 2^26 1.5% slower).
    std::uint32_t group_done_before = 0;
    if (threadIdx.x == 0) group_done_before = count_in_tail_group(pass_control, tile);

    // Keys (and values) from shared memory to their places: consecutive threads write
    // consecutive places within a digit; a key-value pass writes a record, or a key and a value.
    const std::uint32_t tile_keys =
        kFull ? Shape::kTileKeys : min(Shape::kTileKeys, problem.count - tile_start);
    const Records target_records = buffers.target;
    std::uint32_t* const target_pair_keys = buffers.target_keys;  // arrays
    std::uint32_t* const target_values = buffers.target_values;
    std::uint32_t next_work = 0;
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      if (item == kTakeNextAt && threadIdx.x == 0) next_work = atomicAdd(&control->next_work, 1u);
      const std::uint32_t position = item * kThreads + threadIdx.x;
      if (kFull || position < tile_keys) {
        if constexpr (kSourceRecords) {
          const uint2 record = Shape::record_exchange(shared)[position];
          const std::uint32_t target = shared.tile_base[digit_of(record.x)] + position;
          if constexpr (kTargetRecords) {
            *reinterpret_cast<uint2*>(target_records.at(target)) = record;
          } else {
            target_pair_keys[target] = record.x;
            target_values[target] = record.y;
          }
          continue;
        }
        const std::uint32_t key = shared.exchange[position];
        const std::uint32_t target = shared.tile_base[digit_of(key)] + position;
        if constexpr (kTargetRecords) {
          *reinterpret_cast<uint2*>(target_records.at(target)) =
              make_uint2(key, shared.value_exchange[position]);
        } else if constexpr (kWithValues) {
          target_pair_keys[target] = key;
          target_values[target] = shared.value_exchange[position];
        } else {
          target_keys[target] = key;
        }
      }
    }
    if (threadIdx.x == 0) {
      advance_tail(pass_control, tile, problem.num_tiles, group_done_before);
      shared.next_work = next_work;
    }
  }
};

/// Every pass that runs (Control::pass_order), in one persistent kernel, then the end of the
/// sort: `report`, and after an odd number of passes the copy back. Blocks take tiles from one
/// counter through the passes in order, each its next as it writes the tile before
/// (PassAgent::kTakeNextAt); a block whose next tile is of the next pass waits until the pass
/// before is written (`written` at num_tiles: each block adds its tiles of a pass as it takes
/// work past it). Neither that wait nor the copy back's can deadlock: every tile of the pass
/// waited on was taken by a running block, which runs it once the tile before it is written
/// and counts it before it waits on anything, and no tile waits on a later one. A pass that
/// does not run takes no launch and no tile, and a sorted input ends here at once. Against a
/// kernel a pass (graph launches, H100): sorted 2^24 keys 0.0484 -> 0.0439 ms, 2^16 keys
/// 0.0514 -> 0.0495 and pairs 0.0546 -> 0.0490; 2^24 uniform keys 0.4366 -> 0.4412 (1%
/// slower), pairs the same.
///
/// Its shared memory (Shape::Shared, over 48 KiB for pairs) is dynamic: the launch passes
/// sizeof(Shared) and the host raises the kernel's limit once.
template <int kThreads, int kItems, int kMinBlocks, bool kWithValues, bool kRecords>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    onesweep_passes(const Problem* problem_in, Control* control, std::uint64_t* table,
                    std::uint32_t* report) {
  using Agent = PassAgent<kThreads, kItems, kWithValues, kRecords>;
  extern __shared__ __align__(16) unsigned char pass_shared_bytes[];
  auto& shared = *reinterpret_cast<typename Agent::Shape::Shared*>(pass_shared_bytes);
  const Problem problem = *problem_in;  // written before the sort's graph
  wait_for_previous_kernel();
  const std::uint32_t passes_run = control->passes_run;
  std::uint32_t order = 0;  // Control::pass_order's index this block works in, and its pass
  int pass = passes_run != 0 ? static_cast<int>(control->pass_order[0]) : 0;
  if (threadIdx.x == 0) shared.written = 0;
  if (threadIdx.x == 0 && passes_run != 0) shared.next_work = atomicAdd(&control->next_work, 1u);
  // The first pass's plan; the loop's first barrier shows it.
  if (passes_run != 0) PlanCopy::load(control, pass).store(shared);
  while (passes_run != 0) {  // none for a sorted input, nor for a count of 0 from the device
    if (threadIdx.x == 0) {
      const std::uint32_t work = shared.next_work;  // taken by the tile before (kTakeNextAt)
      shared.order = work / problem.num_tiles;
      shared.tile = work % problem.num_tiles;
    }
    Agent::Shape::clear_warp_counts(shared);
    // Also: the block's last tile is written and its scatter has read shared memory, so thread 0
    // may count the block's tiles of a pass it leaves as written (its release covers the whole
    // block's writes after the barrier). A barrier at each tile's end did that before: without
    // it, and with the values' places kept in `exchange`, H200 384 x 20 pairs 0.5-0.9% faster.
    __syncthreads();
    if (threadIdx.x == 0 && shared.order != order && shared.written != 0) {  // leaving its pass
      count_written(control->passes[control->pass_order[order]], shared.written);
      shared.written = 0;
    }
    if (shared.order >= passes_run) break;
    if (shared.order != order) {  // block-uniform: the block's first tile of a later pass
      order = shared.order;
      pass = static_cast<int>(control->pass_order[order]);
      const PlanCopy plan = PlanCopy::load(control, pass);
      if (threadIdx.x == 0) {
        wait_for_pass(control->passes[control->pass_order[order - 1]], problem.num_tiles);
      }
      plan.store(shared);
      __syncthreads();
    }
    Agent agent{shared, problem, control, table, pass, shared.tile};
    agent.run();
    if (threadIdx.x == 0) ++shared.written;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) write_report(control, report);
  if (passes_run % 2 != 0) copy_back_share(problem_in, control);  // the result is in the alternate
}

// [SECTION] The single-tile sort
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

/// The whole sort of n <= kSingleTileKeys keys in one block, in one launch. Writes
/// passes_run and early_exit, and the report.
template <bool kWithValues>
__global__ void __launch_bounds__(kSingleTileThreads)
    sort_single_tile(const Problem* problem_in, Control* control, std::uint32_t* report) {
  __shared__ typename SingleTileShape<kWithValues>::Shared shared;
  const TileSortResult result = sort_tile<kWithValues>(*problem_in, shared);
  if (threadIdx.x == 0) {
    control->passes_run = result.passes_run;
    control->early_exit = result.unsorted ? 0u : 1u;
    write_report(control, report);
  }
}

/// The presort of nearly sorted keys, round one: block b sorts the kSingleTileKeys keys from
/// b * kSingleTileKeys in place. Tiles that are already sorted are only read.
template <bool kWithValues>
__global__ void __launch_bounds__(kSingleTileThreads) presort_tiles(const Problem* problem_in) {
  __shared__ typename SingleTileShape<kWithValues>::Shared shared;
  Problem tile = *problem_in;
  const std::uint32_t begin = blockIdx.x * kSingleTileKeys;
  if (begin >= tile.count) return;  // launched for the room; fewer keys were counted
  tile.keys += begin;
  if constexpr (kWithValues) tile.values += begin;
  tile.count = min(tile.count - begin, kSingleTileKeys);
  sort_tile<kWithValues>(tile, shared);
}

/// Round two: block b merges the two sorted runs that meet at (b + 1) * kSingleTileKeys, the
/// second half of tile b and the first half of tile b + 1, in place (merge path: each thread
/// finds where its kSingleTileItems outputs start by a binary search on its diagonal, then
/// merges them). Runs already in order are only read. Taking the first run's key on ties
/// keeps the merge stable.
///
/// After both rounds the keys are sorted when none was kSingleTileKeys / 2 or more places from
/// where it belongs. Take p = b * kSingleTileKeys + kSingleTileKeys / 2, where block b's merge
/// starts: the keys that belong before p were all in tiles up to b, and every key of the tiles
/// before b belongs before p; so after round one the keys before p are exactly those that
/// belong there. Round two moves no key across such a point and sorts what lies between two
/// of them. Keys further off leave disorder that count_digits' order check finds: the passes
/// then run as usual.
template <bool kWithValues>
__global__ void __launch_bounds__(kSingleTileThreads)
    presort_merge_halves(const Problem* problem_in) {
  constexpr std::uint32_t kHalf = kSingleTileKeys / 2;
  __shared__ std::uint32_t keys[kSingleTileKeys];
  __shared__ std::uint32_t values[kWithValues ? kSingleTileKeys : 1];
  const Problem problem = *problem_in;
  const std::uint32_t middle = (blockIdx.x + 1) * kSingleTileKeys;
  const std::uint32_t begin = middle - kHalf;
  const std::uint32_t end = min(problem.count, middle + kHalf);
  if (middle >= end) return;  // no second run
  const OrderKey order_key(problem);
  if (order_key(problem.keys[middle - 1]) <= order_key(problem.keys[middle])) return;

  const std::uint32_t count = end - begin;
  for (std::uint32_t i = threadIdx.x; i < count; i += kSingleTileThreads) {
    keys[i] = problem.keys[begin + i];
    if constexpr (kWithValues) values[i] = problem.values[begin + i];
  }
  __syncthreads();
  // Runs a = keys[0, kHalf) and b = keys[kHalf, count); output d takes from a while a's key
  // is not greater (stable).
  const std::uint32_t length_b = count - kHalf;
  const std::uint32_t diagonal = min(threadIdx.x * kSingleTileItems, count);
  std::uint32_t low = diagonal > length_b ? diagonal - length_b : 0u;  // keys taken from a
  std::uint32_t high = min(diagonal, kHalf);
  while (low < high) {
    const std::uint32_t taken_a = (low + high) / 2;
    if (order_key(keys[taken_a]) <= order_key(keys[kHalf + diagonal - taken_a - 1])) {
      low = taken_a + 1;
    } else {
      high = taken_a;
    }
  }
  std::uint32_t a = low;
  std::uint32_t b = kHalf + diagonal - low;
  std::uint32_t out_keys[kSingleTileItems];
  std::uint32_t out_values[kWithValues ? kSingleTileItems : 1];
#pragma unroll
  for (int item = 0; item < kSingleTileItems; ++item) {
    const bool from_a = b >= count || (a < kHalf && order_key(keys[a]) <= order_key(keys[b]));
    const std::uint32_t from = from_a ? a++ : b++;
    out_keys[item] = from < count ? keys[from] : 0u;
    if constexpr (kWithValues) out_values[item] = from < count ? values[from] : 0u;
  }
  __syncthreads();
#pragma unroll
  for (int item = 0; item < kSingleTileItems; ++item) {
    const std::uint32_t at = diagonal + item;
    if (at < count) {
      keys[at] = out_keys[item];
      if constexpr (kWithValues) values[at] = out_values[item];
    }
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < count; i += kSingleTileThreads) {
    problem.keys[begin + i] = keys[i];
    if constexpr (kWithValues) problem.values[begin + i] = values[i];
  }
}

/// One thread: stores `problem` with its count read from *count, at most problem.count (the
/// room the sort was launched for), its tiles of `tile_keys` to match, and notes the count in
/// the control block for the sort's statistics.
__global__ void store_counted_problem(Problem* to, Problem problem, const std::uint64_t* count,
                                      std::uint32_t tile_keys, Control* control) {
  const std::uint64_t counted = *count;
  if (counted < problem.count) problem.count = static_cast<std::uint32_t>(counted);
  problem.num_tiles = (problem.count + tile_keys - 1) / tile_keys;
  *to = problem;
  control->count = problem.count;
}

}  // namespace rsw::sort::detail::onesweep
