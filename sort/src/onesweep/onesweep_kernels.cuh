// The kernels of the 8-bit Onesweep radix sort (Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs", 2022), with the look-back status table kept in a
// constant-size circular buffer, so that temp memory does not grow with n. Only __global__
// functions: each is a few lines over the layers it includes (problem.cuh, lookback_table.cuh,
// warp_rank.cuh, histograms.cuh, pass_agent.cuh, single_tile.cuh); docs/design/onesweep.md
// describes the whole.
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
#pragma once

#include "../device_helpers.cuh"
#include "histograms.cuh"
#include "lookback_table.cuh"
#include "pass_agent.cuh"
#include "problem.cuh"
#include "single_tile.cuh"

namespace rsw::sort::detail::onesweep {

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
    // which is then read again to count it, so a small first round wastes little; sorted keys,
    // read to the end, take two chunks a round. `|`, not `||`: both checks
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

/// Every pass that runs (Control::pass_order), in one persistent kernel, then the end of the
/// sort: `report`, and after an odd number of passes the copy back. Blocks take tiles from one
/// counter through the passes in order, each its next as it writes the tile before
/// (PassAgent::kTakeNextAt); a block whose next tile is of the next pass waits until the pass
/// before is written (`written` at num_tiles: each block adds its tiles of a pass as it takes
/// work past it). Neither that wait nor the copy back's can deadlock: every tile of the pass
/// waited on was taken by a running block, which runs it once the tile before it is written
/// and counts it before it waits on anything, and no tile waits on a later one. A pass that
/// does not run takes no launch and no tile, and a sorted input ends here at once. One kernel
/// for all passes saves a launch a pass, which small and sorted inputs feel most.
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
    // block's writes after the barrier). It stands in for a barrier at each tile's end, one
    // fewer a tile (with the values' places kept in `exchange`).
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
