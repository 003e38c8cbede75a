// The Onesweep sort's one read of the keys before the passes: the order check, the digit
// histograms of every pass at once, and the plan that the last block makes from them (which
// passes run, in which order, where each reads and writes).
#pragma once

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include "../device_helpers.cuh"
#include "lookback_table.cuh"
#include "problem.cuh"
#include "warp_rank.cuh"

namespace rsw::sort::detail::onesweep {

// Persistent blocks read the keys once, 16 keys per thread (four 16-byte loads when the keys
// are 16-byte aligned), compare each key with its successor (the order check) and count every
// pass's digit in shared memory. A warp reads 512 consecutive keys: its k-th load takes keys
// [128 k, 128 k + 128) of them, four a lane, so that every load reads 512 consecutive bytes
// (where 16 consecutive keys a lane would touch 32 half-used sectors a load).
// A block counts only once disorder is known, in its own chunks or, through Control::unsorted, in
// anyone's: a sorted input is only read. Chunks a block read before it knew are counted then (read
// again); if disorder turns up only after some block finished without counting, recount_digits
// counts what was skipped. The last block to finish scans the histograms and plans the passes.
//
// A block's histograms are in shared memory, kColumns counters a digit: lane l of a warp
// counts into column l % kColumns, at ((pass * kBins + digit) * kColumns + column). With one
// column, lanes of random digits meet in banks, and those conflicts bound the read; with 32
// columns they never meet, but 128 KiB of counters leave room for one block of 1024 threads a
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
/// write left it in L2.
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
  /// shift-add took two). It saves issue slots, though the count seems bound by its
  /// shared-memory reductions rather than by issue.
  __device__ __forceinline__ static std::uint32_t counter(std::uint32_t digits, int pass,
                                                          std::uint32_t stride,
                                                          std::uint32_t base) {
    return __dp4a(digits, stride << (8 * pass), base);
  }
};

/// Adds `count` to column[at]: once for the lanes of the warp here if all of them add to the
/// same counter (a sorted or narrow input, whose lanes would otherwise queue on one address),
/// else one atomic a lane. The lanes' counters differ only in their columns, which the end of
/// the count sums.
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
/// take, and resets what the next sort needs zero. Its inputs are loaded at once (PlanInput):
/// the plan runs alone between the count and the passes, so its latency is the sort's.
template <int kThreads>
__device__ __forceinline__ void plan_passes(const Problem& problem, Control* control,
                                            const PlanInput<kThreads>& input) {
  constexpr int kRounds = PlanInput<kThreads>::kRounds;
  constexpr int kDigitWarps = kBins / kWarpThreads;  // a pass's warps of digits
  __shared__ std::uint32_t warp_sums[kMaxPasses * kDigitWarps];
  __shared__ bool warp_one_digit[kMaxPasses * kDigitWarps];  // a digit of the warp holds all
  // A sorted input runs no pass and needs no offsets, so it skips the scan.
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

}  // namespace rsw::sort::detail::onesweep
