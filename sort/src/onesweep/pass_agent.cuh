// One block's work in a Onesweep pass (the agent, in CUB's terms): load a tile, rank it,
// look back through the circular table, scatter through shared memory; and the end of the
// sort, its report and the copy back.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include "../device_helpers.cuh"
#include "histograms.cuh"
#include "lookback_table.cuh"
#include "problem.cuh"
#include "warp_rank.cuh"

namespace rsw::sort::detail::onesweep {

// One persistent kernel runs every pass that runs, then finishes the sort: its report, and the
// copy back after an odd number of passes.

/// Where Control's word at `offset` (passes_run to early_exit) goes in the sort's report.
__device__ __forceinline__ std::uint32_t& report_word(std::uint32_t* report, std::size_t offset) {
  return report[(offset - offsetof(Control, passes_run)) / sizeof(std::uint32_t)];
}

/// One thread: the sort's report (SortReport's words: Control from passes_run to early_exit),
/// written into page-locked memory by onesweep_passes, so that no kernel of its own
/// copies it (a kernel and the gap before it cost more than these stores).
__device__ __forceinline__ void write_report(const Control* control, std::uint32_t* report) {
  report_word(report, offsetof(Control, passes_run)) = control->passes_run;
  report_word(report, offsetof(Control, count)) = control->count;
  report_word(report, offsetof(Control, early_exit)) = control->early_exit;
}

/// After an odd number of passes: the sorted keys (and values) from the alternate buffers back
/// to the caller's, this block's share, once the last pass is done. Read from L2: that pass
/// wrote them in this kernel, from other multiprocessors. Not inlined: its code in the passes'
/// kernel would cost their loop registers, and it runs at most once a sort.
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
    // kernel's loop, it made pair passes spill.)
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
  __device__ __forceinline__ static uint2* record_exchange(Shared& shared) {
    static_assert(kWithValues, "records hold keys and values");
    static_assert(offsetof(Shared, value_exchange) == offsetof(Shared, exchange) + 4 * kTileKeys &&
                      offsetof(Shared, exchange) % alignof(uint2) == 0,
                  "the records lie over both exchanges");
    return reinterpret_cast<uint2*>(shared.exchange);
  }

  /// Every thread: zeroes warp_counts, 16 bytes a store. (A store a counter, indexed
  /// [i / kBins][i % kBins], took a noticeable share of a pass's instructions.)
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
/// the loads' round trip overlaps the wait. Read from Control at each tile, the route would
/// cost every tile an L2 round trip before its key loads, whose addresses depend on it. (Pairs
/// gain only while their loops keep the route's pointers in registers: PassAgent::run.)
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
/// ("early counts", Adinets & Merrill). Full tiles
/// (all but the last) run without bounds checks.
template <int kThreads, int kItems, bool kWithValues, bool kRecords>
struct PassAgent {
  using Shape = PassShape<kThreads, kItems, kWithValues>;
  static_assert(kWithValues || !kRecords, "records hold keys and values");

  // Thread 0 takes the block's next work item as it writes its item kTakeNextAt, so that the
  // atomic's round trip overlaps the rest of its writes instead of holding the block at the
  // loop's start. Taken earlier, a tile waits on its block after its place in line is given, and
  // its successors' look-backs wait on it.
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
    // two moves a load, since the 32-bit sum may wrap).
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
    //   turn; wrong at times, never past the pass's last full tile); two tiles ahead was slower.
    // - key-value from arrays: the tile's own values, which its ranking copies, so that the
    //   copies find them in L2; the next tile's keys as well gained nothing.
    // - records: nothing; the records of the tile its block will likely take next (60 KB at
    //   384 x 20) slowed the pass.
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
    // scatter; then keys and values go out in one loop. The copies overlap the ranking and the
    // look-back; values loaded into registers after the look-back, placed in shared memory and
    // written in a loop of their own behind a barrier, could not.
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
        // records two, arrays one. A walk is many tiles long in a busy pass, yet wider windows
        // lose: their loads slow the tiles' own (a trace, docs/history/sort.md).
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
    // group here, its round trip in flight while the keys are written: slots come free sooner
    // than with a fenced tail over whole tiles, and no fence is paid. Key-value tiles count
    // here too since their keys stopped spilling (count_in_warp); before, it slowed them.
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

}  // namespace rsw::sort::detail::onesweep
