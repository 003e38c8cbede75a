// Device code of the four-way radix sort (Ha, Krüger & Silva, "Fast Four-Way Parallel Radix
// Sorting on GPUs", CGF 2009). One pass sorts by 2 bits and is made of:
//
//   check_order (quick, on a first subset)  Sec. 4.1: order checking with early exit
//   check_order (the rest, unless the quick test already found disorder)
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
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

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
// Compares each key with its successor over [first, last) (pairs i, i+1 with i + 1 < count).
// Each block handles chunks of blockDim.x * kCheckItems pairs, reduces "out of order" with
// __syncthreads_or and sets control->unsorted; before each chunk it reads that flag and stops
// once any block has found disorder. The full check (is_quick = 0) does not start at all when
// the quick test on the first subset already found it.
inline constexpr int kCheckItems = 4;

__global__ void check_order(const Problem* problem_in, Control* control, std::uint32_t first,
                            std::uint32_t last, int is_quick) {
  if (control->done != 0) return;
  if (!is_quick && static_cast<const volatile Control*>(control)->unsorted != 0) return;
  const Problem problem = *problem_in;
  const std::uint32_t end = min(last, problem.count > 0 ? problem.count - 1 : 0u);
  const std::uint32_t chunk = blockDim.x * kCheckItems;
  for (std::uint32_t chunk_begin = first + blockIdx.x * chunk; chunk_begin < end;
       chunk_begin += gridDim.x * chunk) {
    bool out_of_order = false;
#pragma unroll
    for (int item = 0; item < kCheckItems; ++item) {
      const std::uint32_t i = chunk_begin + item * blockDim.x + threadIdx.x;
      if (i < end) {
        const std::uint32_t a = (problem.keys[i] >> problem.begin_bit) & problem.order_mask;
        const std::uint32_t b = (problem.keys[i + 1] >> problem.begin_bit) & problem.order_mask;
        out_of_order |= problem.descending ? a < b : a > b;
      }
    }
    const bool seen = static_cast<const volatile Control*>(control)->unsorted != 0;
    if (__syncthreads_or(out_of_order || seen)) {
      if (threadIdx.x == 0 && !seen) atomicExch(&control->unsorted, 1u);
      return;
    }
  }
}

// [SECTION] Per-tile four-way split (Alg. 2-4)
// One block sorts one tile of kThreads * kItems keys by the current digit, stably:
//  1. loads the tile striped (element e = item * kThreads + thread, coalesced);
//  2. for each item row and digit, a warp ballot gives the digit mask of the warp's 32 keys;
//     its population count goes to counts[digit][item][warp] in shared memory, and the key's
//     rank among equal digits in its warp is the popcount of the lanes below it;
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
  const std::uint32_t valid = min(static_cast<std::uint32_t>(Split::kTile), problem.count - tile_begin);
  const int warp = threadIdx.x / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::uint32_t lanes_below = (1u << lane) - 1u;

  std::uint32_t keys[kItems];
  std::uint32_t values[kItems];
  std::uint32_t digits[kItems];
  std::uint32_t rank_in_warp[kItems];
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t e = item * kThreads + threadIdx.x;
    const bool in_range = e < valid;
    keys[item] = in_range ? problem.keys[tile_begin + e] : 0u;
    if constexpr (kWithValues) values[item] = in_range ? problem.values[tile_begin + e] : 0u;
    digits[item] = in_range ? digit_of(keys[item]) : kDigits;  // kDigits: counted nowhere
  }

  // Step 2: digit masks per warp and item row, as ballots.
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
#pragma unroll
    for (int digit = 0; digit < kDigits; ++digit) {
      const std::uint32_t mask = __ballot_sync(0xFFFFFFFFu, digits[item] == digit);
      if (digits[item] == digit) rank_in_warp[item] = __popc(mask & lanes_below);
      if (lane == 0) {
        shared.group_start[(digit * kItems + item) * Split::kWarps + warp] = __popc(mask);
      }
    }
  }
  for (int g = Split::kGroups + threadIdx.x; g < Split::kGroupsPerThread * kThreads; g += kThreads) {
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
    if (digits[item] < kDigits) {
      const std::uint32_t position =
          shared.group_start[(digits[item] * kItems + item) * Split::kWarps + warp] +
          rank_in_warp[item];
      shared.keys[position] = keys[item];
      if constexpr (kWithValues) shared.values[position] = values[item];
    }
  }
  __syncthreads();
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t e = item * kThreads + threadIdx.x;
    if (e < valid) {
      problem.tile_keys[tile_begin + e] = shared.keys[e];
      if constexpr (kWithValues) problem.tile_values[tile_begin + e] = shared.values[e];
    }
  }
}

// [SECTION] Scan of the tile sums (Alg. 5)
// One block: exclusive prefix sum over the digit-major counts, so tile_offsets[d][t] is the
// number of keys with a smaller digit, plus those with digit d in earlier tiles: P_d[t].
inline constexpr int kScanThreads = 1024;
inline constexpr int kScanItems = 4;

__global__ void __launch_bounds__(kScanThreads)
    scan_tile_counts(const Problem* problem_in, const Control* control) {
  using BlockLoad = cub::BlockLoad<std::uint32_t, kScanThreads, kScanItems,
                                   cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using BlockStore = cub::BlockStore<std::uint32_t, kScanThreads, kScanItems,
                                     cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using BlockScan = cub::BlockScan<std::uint32_t, kScanThreads>;
  __shared__ union {
    typename BlockLoad::TempStorage load;
    typename BlockStore::TempStorage store;
    typename BlockScan::TempStorage scan;
  } shared;
  if (pass_is_skipped(control)) return;
  const Problem problem = *problem_in;
  const std::uint32_t total = kDigits * problem.num_tiles;
  std::uint32_t running = 0;
  for (std::uint32_t begin = 0; begin < total; begin += kScanThreads * kScanItems) {
    const int valid = static_cast<int>(min(total - begin, std::uint32_t{kScanThreads * kScanItems}));
    std::uint32_t items[kScanItems];
    BlockLoad(shared.load).Load(problem.tile_counts + begin, items, valid, 0u);
    __syncthreads();
    std::uint32_t chunk_total;
    BlockScan(shared.scan).ExclusiveSum(items, items, chunk_total);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) items[k] += running;
    running += chunk_total;
    BlockStore(shared.store).Store(problem.tile_offsets + begin, items, valid);
    __syncthreads();
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

  if (threadIdx.x == 0) {
    std::uint32_t cluster_start = 0;
    for (int digit = 0; digit < kDigits; ++digit) {
      const std::uint32_t index = digit * problem.num_tiles + tile;
      cluster_shift[digit] = problem.tile_offsets[index] - cluster_start;
      cluster_start += problem.tile_counts[index];
    }
  }
  __syncthreads();
#pragma unroll
  for (int item = 0; item < kItems; ++item) {
    const std::uint32_t e = item * kThreads + threadIdx.x;
    if (e < valid) {
      const std::uint32_t key = problem.tile_keys[tile_begin + e];
      const std::uint32_t position = cluster_shift[digit_of(key)] + e;
      problem.keys[position] = key;
      if constexpr (kWithValues) problem.values[position] = problem.tile_values[tile_begin + e];
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
}

/// After a pass: counts it, or records that the order check made it unnecessary (then the
/// sort is over: stable passes over sorted keys change nothing). In a graph it also sets the
/// loop's condition; a handle of 0 means "not in a graph".
__global__ void end_pass(const Problem* problem, Control* control,
                         cudaGraphConditionalHandle loop, int in_graph) {
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
