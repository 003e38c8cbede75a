// Device code of the four-way radix sort (Ha, Krüger & Silva, "Fast Four-Way Parallel Radix
// Sorting on GPUs", CGF 2009). One pass sorts by 2 bits and is made of:
//
//   quick_check_order  Sec. 4.1: order checking with early exit, first on a subset...
//   check_order        ...then on the rest, only if the subset was in order
//   split_tiles      Alg. 2-4: per tile, the four-way prefix sum over the digit masks and the
//                    in-block shuffle, so equal digits cluster; tile sums stored digit-major
//   scan_tile_counts Alg. 5: exclusive scan of the digit-major tile sums
//   map_tiles        Alg. 6: coalesced cluster-wise mapping, pos = P_d[tile] + local rank
//   end_pass         bookkeeping: pass count, early exit, the graph's loop condition
//
// Every kernel first reads the sort's Control block in device memory and returns at once when
// the sort is done or the current pass was found unnecessary. The host therefore never waits
// between passes; in a CUDA graph (four_way_dispatch.cu) end_pass ends the loop itself.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_scan.cuh>

namespace rsw::sort::detail::four_way {

inline constexpr int kRadixBits = 2;
inline constexpr int kDigits = 1 << kRadixBits;
inline constexpr int kWarpThreads = 32;

/// The sort's buffers and shape, in device memory, written before each sort.
struct Problem {
  std::uint32_t* keys;          // the caller's keys: every pass reads and writes them here
  std::uint32_t* values;        // the caller's values, or nullptr
  std::uint32_t* tile_keys;     // alternate buffer: each tile's keys grouped by digit
  std::uint32_t* tile_values;   // the same for values
  std::uint32_t* tile_counts;   // [kDigits][num_tiles]: digit counts per tile, digit-major
  std::uint32_t* tile_offsets;  // exclusive scan of tile_counts
  std::uint32_t count;
  std::uint32_t num_tiles;
  std::uint32_t order_mask;  // the bits that take part in the order, after >> begin_bit
  int begin_bit;
  int end_bit;
  int num_passes;
  int descending;
};

/// The sort's progress, in device memory: read by every kernel, written by the order check
/// (unsorted) and end_pass (the rest).
struct Control {
  std::uint32_t passes_run;
  std::uint32_t unsorted;    // the order check of the current pass found two keys out of order
  std::uint32_t done;        // no pass left to run
  std::uint32_t early_exit;  // an order check ended the sort
  std::uint32_t check_blocks_done;  // ticket of check_order's blocks; the last one resets it
};

/// True when the kernels of the current pass have nothing to do.
__device__ __forceinline__ bool pass_is_skipped(const Control* control) {
  const volatile Control* shared_control = control;
  return shared_control->done != 0 || shared_control->unsorted == 0;
}

/// The 2-bit digit of `key` in the current pass, flipped for a descending sort.
struct DigitOf {
  int shift;
  std::uint32_t mask;  // 3, or 1 for a last pass over a single bit
  bool descending;

  __device__ __forceinline__ static DigitOf for_pass(const Problem& problem,
                                                     std::uint32_t passes_run) {
    const int shift = problem.begin_bit + kRadixBits * static_cast<int>(passes_run);
    const int bits = min(kRadixBits, problem.end_bit - shift);
    return {shift, (1u << bits) - 1u, problem.descending != 0};
  }
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t key) const {
    const std::uint32_t digit = (key >> shift) & mask;
    return descending ? mask - digit : digit;
  }
};

// [SECTION] Order check (Sec. 4.1)
// Compares each key with its successor (pairs i, i + 1). The quick test (one block) looks at
// the first kQuickCheckPairs pairs: most unsorted inputs show disorder there. Only when it
// finds none does the rest of the array get checked, by check_order: each block handles
// chunks of kCheckThreads * kCheckKeys pairs, reduces "out of order" with __syncthreads_or
// into control->unsorted, and reads that flag before each chunk to stop once any block found
// it. In a CUDA graph the two kernels also set the conditions of the nodes that follow:
// check_rest (run check_order at all) and run_pass (run split, scan and map at all), so an
// early exit launches nothing more.
inline constexpr std::uint32_t kQuickCheckPairs = 8 * 1024;
inline constexpr int kQuickCheckThreads = 1024;
inline constexpr int kCheckThreads = 256;
inline constexpr int kCheckVectors = 4;  // uint4 loads per thread and chunk: 16 keys
inline constexpr int kCheckKeys = 4 * kCheckVectors;

__device__ __forceinline__ std::uint32_t order_bits(const Problem& problem, std::uint32_t key) {
  return (key >> problem.begin_bit) & problem.order_mask;
}

__device__ __forceinline__ bool out_of_order(const Problem& problem, std::uint32_t a,
                                             std::uint32_t b) {
  const std::uint32_t first = order_bits(problem, a);
  const std::uint32_t second = order_bits(problem, b);
  return problem.descending ? first < second : first > second;
}

/// The quick test, over the first kQuickCheckPairs pairs. In a graph it sets check_rest to 1
/// when it found no disorder and more pairs remain, and run_pass to 1 when it found some.
__global__ void __launch_bounds__(kQuickCheckThreads)
    quick_check_order(const Problem* problem_in, Control* control,
                      cudaGraphConditionalHandle check_rest, cudaGraphConditionalHandle run_pass,
                      int in_graph) {
  // The barrier is reached by every thread whatever the state: a finished sort checks no pairs.
  const Problem problem = *problem_in;
  const std::uint32_t pairs = problem.count - 1;
  const std::uint32_t end = control->done == 0 ? min(pairs, kQuickCheckPairs) : 0u;
  bool seen = false;
  constexpr int kUnroll = 8;  // independent loads in flight: one block is latency-bound
  for (std::uint32_t round = 0; round < end; round += kQuickCheckThreads * kUnroll) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const std::uint32_t i = round + k * kQuickCheckThreads + threadIdx.x;
      if (i < end) seen |= out_of_order(problem, problem.keys[i], problem.keys[i + 1]);
    }
  }
  const bool found = __syncthreads_or(seen) != 0;
  if (found && threadIdx.x == 0) control->unsorted = 1;
  const bool rest_needed = end > 0 && !found && pairs > kQuickCheckPairs;
  if (in_graph && threadIdx.x == 0) {
    cudaGraphSetConditional(check_rest, rest_needed ? 1u : 0u);
    cudaGraphSetConditional(run_pass, found ? 1u : 0u);
  }
}

// Whether pairs [begin, begin + kCheckThreads * kCheckKeys) ∩ [.., end) hold disorder, as
// seen by this thread: 16 keys from four 16-byte loads (keys must be 16-byte aligned) and
// the key after them.
__device__ __forceinline__ bool chunk_out_of_order_vectorized(const Problem& problem,
                                                              std::uint32_t begin,
                                                              std::uint32_t end) {
  const std::uint32_t first = begin + threadIdx.x * kCheckKeys;
  if (first >= end) return false;
  std::uint32_t keys[kCheckKeys + 1];
  const auto* vectors = reinterpret_cast<const uint4*>(problem.keys + first);
  if (first + kCheckKeys < end) {  // all pairs of this thread are in range
#pragma unroll
    for (int v = 0; v < kCheckVectors; ++v) {
      const uint4 four = vectors[v];
      keys[4 * v] = four.x;
      keys[4 * v + 1] = four.y;
      keys[4 * v + 2] = four.z;
      keys[4 * v + 3] = four.w;
    }
    keys[kCheckKeys] = problem.keys[first + kCheckKeys];
    bool seen = false;
#pragma unroll
    for (int k = 0; k < kCheckKeys; ++k)
      seen |= out_of_order(problem, keys[k], keys[k + 1]);
    return seen;
  }
  bool seen = false;
  for (std::uint32_t i = first; i < end; ++i) {
    seen |= out_of_order(problem, problem.keys[i], problem.keys[i + 1]);
  }
  return seen;
}

__device__ __forceinline__ bool chunk_out_of_order_scalar(const Problem& problem,
                                                          std::uint32_t begin, std::uint32_t end) {
  bool seen = false;
#pragma unroll
  for (int k = 0; k < kCheckKeys; ++k) {
    const std::uint32_t i = begin + k * kCheckThreads + threadIdx.x;
    if (i < end) seen |= out_of_order(problem, problem.keys[i], problem.keys[i + 1]);
  }
  return seen;
}

/// The rest: pairs [kQuickCheckPairs, count - 1), unless the quick test found disorder. In a
/// graph, the last block to finish sets run_pass from the result.
__global__ void __launch_bounds__(kCheckThreads)
    check_order(const Problem* problem_in, Control* control, cudaGraphConditionalHandle run_pass,
                int in_graph) {
  if (control->done == 0 && static_cast<const volatile Control*>(control)->unsorted == 0) {
    const Problem problem = *problem_in;
    const std::uint32_t end = problem.count - 1;
    const bool aligned = reinterpret_cast<std::uintptr_t>(problem.keys) % 16 == 0;
    constexpr std::uint32_t kChunk = kCheckThreads * kCheckKeys;
    for (std::uint32_t begin = kQuickCheckPairs + blockIdx.x * kChunk; begin < end;
         begin += gridDim.x * kChunk) {
      const bool seen = aligned ? chunk_out_of_order_vectorized(problem, begin, end)
                                : chunk_out_of_order_scalar(problem, begin, end);
      const bool known = static_cast<const volatile Control*>(control)->unsorted != 0;
      if (__syncthreads_or(seen || known)) {
        if (threadIdx.x == 0 && !known) atomicExch(&control->unsorted, 1u);
        break;
      }
    }
  }
  if (!in_graph) return;
  // Last block done: every block's finding is in control->unsorted by now.
  __shared__ bool last;
  __threadfence();
  if (threadIdx.x == 0) last = atomicAdd(&control->check_blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last && threadIdx.x == 0) {
    control->check_blocks_done = 0;
    cudaGraphSetConditional(run_pass,
                            static_cast<const volatile Control*>(control)->unsorted != 0 ? 1u : 0u);
  }
}

// [SECTION] Per-tile four-way split (Alg. 2-4)
// One block sorts one tile of kThreads * kItems keys by the current digit, stably:
//  1. loads the tile striped (element e = item * kThreads + thread, coalesced);
//  2. per item row, two warp ballots (digit bit 0, digit bit 1) give the four digit masks of
//     the warp's 32 keys; lane d stores the population count of mask d as
//     counts[d][item][warp] in shared memory, and a key's rank among equal digits in its warp
//     is the popcount of its mask below its lane;
//  3. an exclusive block scan of counts, in digit-major order, gives each (digit, item, warp)
//     group its first position: clusters of equal digits, in element order inside each;
//  4. keys (and values) are shuffled into those positions in shared memory and written back
//     coalesced to the alternate buffer; the four digit counts go out digit-major.
template <int kThreads, int kItems, bool kWithValues>
struct SplitTiles {
  static constexpr int kTile = kThreads * kItems;
  static constexpr int kWarps = kThreads / kWarpThreads;
  static constexpr int kGroups = kDigits * kItems * kWarps;  // scan entries
  static constexpr int kGroupsPerThread = (kGroups + kThreads - 1) / kThreads;
  using BlockScan = cub::BlockScan<std::uint32_t, kThreads>;

  struct Shared {
    std::uint32_t group_start[kGroupsPerThread * kThreads];
    typename BlockScan::TempStorage scan;
    std::uint32_t keys[kTile];
    std::uint32_t values[kWithValues ? kTile : 1];
  };
};

// Slot of a key after step 2: its digit (kDigits when out of range) and its rank in the warp.
__device__ __forceinline__ std::uint32_t make_slot(std::uint32_t digit, std::uint32_t rank) {
  return digit | rank << 3;
}

template <int kThreads, int kItems, bool kWithValues>
__global__ void __launch_bounds__(kThreads)
    split_tiles(const Problem* problem_in, const Control* control) {
  using Split = SplitTiles<kThreads, kItems, kWithValues>;
  __shared__ typename Split::Shared shared;
  if (pass_is_skipped(control)) return;
  const Problem problem = *problem_in;
  const std::uint32_t tile = blockIdx.x;
  if (tile >= problem.num_tiles) return;
  const DigitOf digit_of = DigitOf::for_pass(problem, control->passes_run);

  const std::uint32_t tile_begin = tile * Split::kTile;
  const std::uint32_t valid =
      min(static_cast<std::uint32_t>(Split::kTile), problem.count - tile_begin);
  const bool full_tile = valid == Split::kTile;
  const int warp = threadIdx.x / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::uint32_t lanes_below = (1u << lane) - 1u;

  // Step 1: all loads first, so they are in flight together.
  std::uint32_t keys[kItems];
  std::uint32_t values[kItems];
  if (full_tile) {
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      keys[item] = problem.keys[tile_begin + item * kThreads + threadIdx.x];
      if constexpr (kWithValues)
        values[item] = problem.values[tile_begin + item * kThreads + threadIdx.x];
    }
  } else {
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const std::uint32_t e = item * kThreads + threadIdx.x;
      keys[item] = e < valid ? problem.keys[tile_begin + e] : 0u;
      if constexpr (kWithValues) values[item] = e < valid ? problem.values[tile_begin + e] : 0u;
    }
  }

  // Step 2: digit masks per warp and item row, from two ballots.
  std::uint32_t slots[kItems];
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const bool in_range = full_tile || item * kThreads + threadIdx.x < valid;
    const std::uint32_t digit = in_range ? digit_of(keys[item]) : kDigits;
    const std::uint32_t bit0 = __ballot_sync(0xFFFFFFFFu, digit & 1u);
    const std::uint32_t bit1 = __ballot_sync(0xFFFFFFFFu, digit & 2u);
    const std::uint32_t in_range_lanes =
        full_tile ? 0xFFFFFFFFu : __ballot_sync(0xFFFFFFFFu, in_range);
    const auto mask_of = [&](std::uint32_t d) {
      return (d & 1u ? bit0 : ~bit0) & (d & 2u ? bit1 : ~bit1) & in_range_lanes;
    };
    slots[item] = make_slot(digit, __popc(mask_of(digit & 3u) & lanes_below));
    if (lane < kDigits) {
      shared.group_start[(lane * kItems + item) * Split::kWarps + warp] =
          __popc(mask_of(static_cast<std::uint32_t>(lane)));
    }
  }
  for (int g = Split::kGroups + threadIdx.x; g < Split::kGroupsPerThread * kThreads;
       g += kThreads) {
    shared.group_start[g] = 0;  // padding past the last group
  }
  __syncthreads();

  // Step 3: exclusive scan, digit-major; each thread scans a run of consecutive groups.
  std::uint32_t run[Split::kGroupsPerThread];
  std::uint32_t run_total = 0;
#pragma unroll
  for (int k = 0; k < Split::kGroupsPerThread; ++k) {
    run[k] = shared.group_start[threadIdx.x * Split::kGroupsPerThread + k];
    run_total += run[k];
  }
  std::uint32_t run_start;
  typename Split::BlockScan(shared.scan).ExclusiveSum(run_total, run_start);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Split::kGroupsPerThread; ++k) {
    shared.group_start[threadIdx.x * Split::kGroupsPerThread + k] = run_start;
    run_start += run[k];
  }
  __syncthreads();

  // The tile's digit counts, digit-major, for the scan across tiles.
  if (threadIdx.x < kDigits) {
    const int digit = threadIdx.x;
    const std::uint32_t begin = shared.group_start[digit * kItems * Split::kWarps];
    const std::uint32_t end =
        digit + 1 < kDigits ? shared.group_start[(digit + 1) * kItems * Split::kWarps] : valid;
    problem.tile_counts[digit * problem.num_tiles + tile] = end - begin;
  }

  // Step 4: the shuffle, then a coalesced store of the clustered tile.
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t digit = slots[item] & 7u;
    if (digit < kDigits) {
      const std::uint32_t position =
          shared.group_start[(digit * kItems + item) * Split::kWarps + warp] + (slots[item] >> 3);
      shared.keys[position] = keys[item];
      if constexpr (kWithValues) shared.values[position] = values[item];
    }
  }
  __syncthreads();
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t e = item * kThreads + threadIdx.x;
    if (full_tile || e < valid) {
      problem.tile_keys[tile_begin + e] = shared.keys[e];
      if constexpr (kWithValues) problem.tile_values[tile_begin + e] = shared.values[e];
    }
  }
}

// [SECTION] Scan of the tile sums (Alg. 5)
// One block: exclusive prefix sum over the digit-major counts, so tile_offsets[d][t] is the
// number of keys with a smaller digit, plus those with digit d in earlier tiles: P_d[t].
// A single block is latency-bound, so each thread loads its 16 consecutive sums as four
// independent 16-byte loads (4 * num_tiles is a multiple of 4: no partial vector exists).
inline constexpr int kScanThreads = 1024;
inline constexpr int kScanVectors = 4;  // uint4 per thread and round: 16 sums

__global__ void __launch_bounds__(kScanThreads)
    scan_tile_counts(const Problem* problem_in, const Control* control) {
  using BlockScan = cub::BlockScan<std::uint32_t, kScanThreads>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  if (pass_is_skipped(control)) return;
  const Problem problem = *problem_in;
  const std::uint32_t vectors = problem.num_tiles;  // kDigits * num_tiles sums, 4 per uint4
  const auto* counts = reinterpret_cast<const uint4*>(problem.tile_counts);
  auto* offsets = reinterpret_cast<uint4*>(problem.tile_offsets);
  std::uint32_t running = 0;
  for (std::uint32_t round = 0; round < vectors; round += kScanThreads * kScanVectors) {
    uint4 sums[kScanVectors];
    std::uint32_t thread_total = 0;
#pragma unroll
    for (int k = 0; k < kScanVectors; ++k) {
      const std::uint32_t index = round + threadIdx.x * kScanVectors + k;
      sums[k] = index < vectors ? counts[index] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kScanVectors; ++k)
      thread_total += sums[k].x + sums[k].y + sums[k].z + sums[k].w;
    std::uint32_t prefix;
    std::uint32_t round_total;
    BlockScan(scan_storage).ExclusiveSum(thread_total, prefix, round_total);
    prefix += running;
#pragma unroll
    for (int k = 0; k < kScanVectors; ++k) {
      const std::uint32_t index = round + threadIdx.x * kScanVectors + k;
      uint4 out;
      out.x = prefix;
      out.y = out.x + sums[k].x;
      out.z = out.y + sums[k].y;
      out.w = out.z + sums[k].z;
      prefix = out.w + sums[k].w;
      if (index < vectors) offsets[index] = out;
    }
    running += round_total;
    __syncthreads();  // scan_storage is reused next round
  }
}

// [SECTION] Mapping (Alg. 6)
// One block per tile: the key at position e of the clustered tile, of digit d, goes to
// P_d[tile] + (e - cluster start of d). Consecutive threads hold consecutive keys of a
// cluster and write consecutive addresses: the scatter is coalesced cluster by cluster.
template <int kThreads, int kItems, bool kWithValues>
__global__ void __launch_bounds__(kThreads)
    map_tiles(const Problem* problem_in, const Control* control) {
  constexpr int kTile = kThreads * kItems;
  __shared__ std::uint32_t cluster_shift[kDigits];  // P_d[tile] - cluster start of d
  if (pass_is_skipped(control)) return;
  const Problem problem = *problem_in;
  const std::uint32_t tile = blockIdx.x;
  if (tile >= problem.num_tiles) return;
  const DigitOf digit_of = DigitOf::for_pass(problem, control->passes_run);
  const std::uint32_t tile_begin = tile * kTile;
  const std::uint32_t valid = min(static_cast<std::uint32_t>(kTile), problem.count - tile_begin);

  // Lanes 0-3 of warp 0 fetch the four counts and offsets; a shuffle scan gives cluster starts.
  if (threadIdx.x < kWarpThreads) {
    const int lane = threadIdx.x;
    const std::uint32_t index = lane * problem.num_tiles + tile;
    const std::uint32_t count = lane < kDigits ? problem.tile_counts[index] : 0u;
    const std::uint32_t offset = lane < kDigits ? problem.tile_offsets[index] : 0u;
    std::uint32_t inclusive = count;
#pragma unroll
    for (int delta = 1; delta < kDigits; delta <<= 1) {
      const std::uint32_t below = __shfl_up_sync(0xFFFFFFFFu, inclusive, delta);
      if (lane >= delta) inclusive += below;
    }
    if (lane < kDigits) cluster_shift[lane] = offset - (inclusive - count);
  }

  std::uint32_t keys[kItems];
  std::uint32_t values[kItems];
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t e = item * kThreads + threadIdx.x;
    if (e < valid) {
      keys[item] = problem.tile_keys[tile_begin + e];
      if constexpr (kWithValues) values[item] = problem.tile_values[tile_begin + e];
    }
  }
  __syncthreads();
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t e = item * kThreads + threadIdx.x;
    if (e < valid) {
      const std::uint32_t position = cluster_shift[digit_of(keys[item])] + e;
      problem.keys[position] = keys[item];
      if constexpr (kWithValues) problem.values[position] = values[item];
    }
  }
}

// [SECTION] Bookkeeping
/// Resets the control block at the start of a sort.
__global__ void begin_sort(const Problem* problem, Control* control) {
  control->passes_run = 0;
  control->unsorted = 0;
  control->done = problem->num_passes == 0 || problem->count <= 1 ? 1u : 0u;
  control->early_exit = 0;
  control->check_blocks_done = 0;
}

/// After a pass: counts it, or records that the order check made it unnecessary (then the
/// sort is over: stable passes over sorted keys change nothing). In a graph it also sets the
/// loop's condition; a handle of 0 means "not in a graph".
__global__ void end_pass(const Problem* problem, Control* control, cudaGraphConditionalHandle loop,
                         int in_graph) {
  if (control->done == 0) {
    if (control->unsorted == 0) {
      control->done = 1;
      control->early_exit = 1;
    } else if (++control->passes_run == static_cast<std::uint32_t>(problem->num_passes)) {
      control->done = 1;
    }
  }
  control->unsorted = 0;
  if (in_graph) cudaGraphSetConditional(loop, control->done == 0 ? 1u : 0u);
}

}  // namespace rsw::sort::detail::four_way
