// Device code of the GPU broad phase (launched by sweep_dispatch.cu). One frame:
//
//   summarize_boxes (its last block plans) -> stage_keys -> [rsw::sort] -> gather_boxes
//   (which also lists the boxes in their cells) -> [rsw::sort by cell] -> gather_listings
//   -> sweep_cells [-> meet_shared, with worlds] [-> sweep_extents -> scan -> test_candidates,
//   for long runs only]
//
// The sort and sweep follow Ha et al. 2009, Sec. 6.1: keys are the boxes' minima on the sweep
// axis in last frame's order, sorted with their boxes as values; each box sweeps forward
// while the next minimum is <= its maximum. Two changes make it scale. The sweep runs
// inside the cells of a coarse grid over the other two axes (each box listed in every cell it
// covers; a pair reported only in the cell holding the larger of the two minimum corners), so
// the work stays near n + pairs. And long sweeps are split: sweep_cells gives each listing a
// thread for its first kSweepSteps candidates (most runs end sooner: in a uniform cloud they
// average about 11), and the rest of a longer run is numbered by sweep_extents (a galloping
// search for the run's end) and a scan, and spread by test_candidates over many threads, so a
// giant box's run costs no single thread more than the others.
//
// Memory traffic is what a frame costs once the boxes outgrow the L2 cache, so every random
// read fetches one 32-byte sector: the user's boxes are packed into 32-byte records by the
// one pass that reads them in order (summarize_boxes), and the sweep's boxes and listings are
// 32-byte SweepRecords. stage_keys reads only the minima on the sweep axis (4 bytes a box,
// which stay in L2), and gather_boxes reads each packed box once, in sorted order. Temporal
// coherence: keys staged in last frame's order are nearly sorted, so the sort is a presort
// of tiles and an order check (see SortOptions::nearly_sorted).
//
// A frame on a kept listing (boxes that moved little since the frame that listed them):
//
//   check_listing -> regather_listings -> sweep_cells<.., kDrifted> [-> the long runs' path]
//
// A listing kept for the frames after lists each box in the cells of its bounds widened by a
// margin, and remembers per box the cells and its sort key (ListedBox). A later frame checks
// that every box still lies in its cells and pairs exactly when it is listed; its listings
// are then still the right ones and each cell's listings are still in key order, while their
// minima have moved from their keys by at most the frame's drift D. A run then ends where a
// minimum passes the listing's maximum by 2D: every listing after has a key above the
// maximum plus D, so a minimum above the maximum. Each pair of overlapping boxes is still
// reported once, in the cell where their widened ranges start (is_home_cell on the listed
// places). A box that left its cells makes the frame stale: its kernels after the check do
// nothing, and the host runs the whole frame.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/atomic>
#include <cuda/functional>
#include <cuda/std/functional>

#include "../frame_plan.hpp"
#include "../pair_order.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/sort/key_mapping.hpp"

namespace rsw::physics::detail::kernels {

constexpr int kThreads = 256;
/// Candidates each thread of test_candidates tests per round: a block takes 2048 at a time,
/// enough that the block's one atomic append is rare next to the tests.
constexpr int kCandidatesPerThread = 8;
/// Blocks of test_candidates resident on a multiprocessor: the register limit this sets (40)
/// costs nothing, and the extra warps hide the latency of the partner reads (measured on an
/// H100 against 5 blocks at 48 registers, and against 16 candidates a thread).
constexpr int kTestBlocksPerMultiprocessor = 6;
/// Candidates sweep_cells tests per listing; a listing with more (a long run) leaves the rest
/// to sweep_extents and test_candidates, which spread a run over many threads. A uniform
/// cloud's runs average about 11, so it rarely has any.
constexpr std::uint32_t kSweepSteps = 64;
/// Candidates a lane of sweep_cells tests at once (kSweepSteps is a multiple).
constexpr int kSweepUnroll = 4;
static_assert(kSweepSteps % kSweepUnroll == 0, "a lane's steps end at a whole unroll");
/// Boxes a thread of summarize_boxes loads at once (their loads in flight together).
constexpr int kSummarizeBoxes = 4;
/// Pairs a warp of sweep_cells holds in shared memory before it appends them with one atomic.
constexpr std::uint32_t kWarpPairs = 256;
/// Listings the GPU sweep indexes: 32-bit indices, with room for its index arithmetic past the
/// last listing (a lane looks at most kSweepSteps + kSweepUnroll listings ahead).
constexpr std::uint64_t kMaxListings = 0xFFFFFFFFu - 2 * kSweepSteps;

/// values[axis], with `axis` known only at run time: selects, so that `values` stays in
/// registers (an array indexed at run time would be placed in local memory).
template <class T>
__device__ inline T on_axis(const T (&values)[3], int axis) {
  return axis == 0 ? values[0] : (axis == 1 ? values[1] : values[2]);
}

/// Blocks of kThreads for `count` threads.
inline unsigned int blocks_for(std::size_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

/// The first of keys[0, count) (sorted) that is >= `value`, or count.
__device__ inline std::uint32_t lower_bound(const std::uint32_t* keys, std::uint32_t count,
                                            std::uint32_t value) {
  std::uint32_t low = 0;
  std::uint32_t high = count;
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (keys[middle] < value) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// The user's boxes wherever they came from: six float arrays with a stride (1 for
/// structure-of-arrays, 6 for Aabb records copied as they are), and filter bits.
struct BoxView {
  const float* min[3];
  const float* max[3];
  std::uint32_t stride;
  const std::uint32_t* categories;  // nullptr: every box in category 1
  const std::uint32_t* masks;       // nullptr: every mask all ones
  const std::uint32_t* worlds;      // nullptr: every box in world 0

  __device__ void load(std::uint32_t box, float (&low)[3], float (&high)[3]) const {
    const std::size_t at = std::size_t{box} * stride;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
      low[axis] = min[axis][at];
      high[axis] = max[axis][at];
    }
  }
  __device__ std::uint32_t category(std::uint32_t box) const {
    return categories != nullptr ? categories[box] : 1u;
  }
  __device__ std::uint32_t mask(std::uint32_t box) const {
    return masks != nullptr ? masks[box] : 0xFFFFFFFFu;
  }
  __device__ std::uint32_t world(std::uint32_t box) const {
    return worlds != nullptr ? worlds[box] : 0u;
  }
  /// Whether the sweep reads filter bits (else every box has the defaults). Worlds it need
  /// not read: each world has cells of its own (WorldCells).
  bool filtered() const {
    return categories != nullptr || masks != nullptr;
  }
};

/// Device state of one frame, read back by the host at its two waits. Nothing resets it at
/// the start of a frame: summarize_boxes' last block does, once the summary is complete.
struct FrameCounters {
  BoxSummary summary;             ///< this frame's
  FramePlan plan;                 ///< this frame's
  std::uint64_t listings;         ///< (cell, box) entries (the cell sort's count)
  unsigned long long candidates;  ///< sweep_cells' candidates (at most kSweepSteps a listing)
  unsigned long long pairs;       ///< pairs found; more than the buffer holds means: again
  unsigned long long long_runs;   ///< listings with more than kSweepSteps candidates
  std::uint32_t stale;            ///< a frame on a kept listing: some box left its cells
  std::uint32_t drift_bits;       ///< a frame on a kept listing: the largest distance of a listed
                                  ///< box's minimum on the sweep axis from its key (float bits)
  unsigned long long long_candidates;  ///< the rest of the long runs' candidates
  unsigned long long shared_listings;  ///< listings of kAllWorlds boxes (the last slot's)
  std::uint32_t first_bad_world;       ///< the first box with a world id out of range, or
                                       ///< kNoBox (summarize_boxes; the host resets it)
  BoxSummary running;                  ///< summarize_boxes' blocks merge theirs into this one
  unsigned int summarized_blocks;      ///< blocks of summarize_boxes that have merged theirs

  /// The state between frames: `running` empty, no block counted.
  static FrameCounters between_frames() {
    FrameCounters frame{};
    frame.running = BoxSummary::empty();
    frame.first_bad_world = BoxSummary::kNoBox;
    return frame;
  }
};

/// The listings of the frame that the kernels after gather_boxes read: frame->listings, or
/// none when they did not all fit in `room` (the host then grows the buffers to the count and
/// lists them again).
__device__ inline std::uint32_t listed(const FrameCounters* frame, std::uint64_t room) {
  const std::uint64_t listings = frame->listings;
  return listings <= room ? static_cast<std::uint32_t>(listings) : 0u;
}

/// How gather_boxes numbers the listings: a single-pass scan over its blocks (CUB's tile
/// states, with decoupled look-back). stage_keys readies the states for it.
using ListingTiles = cub::ScanTileState<unsigned long long>;

/// Where gather_boxes writes the (cell, sorted box) listings for the cell sort: room for
/// `capacity`. A frame with more counts them all and writes none; the host grows the buffers
/// to the count and runs gather_boxes again.
struct ListingOut {
  std::uint32_t* cells;
  std::uint32_t* boxes;
  unsigned long long capacity;
};

/// A user's box packed by summarize_boxes, in the user's order: 32 bytes, read as two float4
/// {min x, min y, min z, max x} {max y, max z, category bits, world}. The category is 0 for a
/// box that pairs with nothing: an invalid one, or one the user put in category 0.
struct alignas(16) PackedBox {
  float low[3];
  float high[3];
  std::uint32_t category;
  std::uint32_t world;  ///< 0 without world ids
};

/// A box as the sweep reads it, in sorted order (index j) or listing order (index e): 32
/// bytes, one memory sector, read and written as two 16-byte words: the bounds across the
/// sweep (u and v, the grid's axes), then those along it (s, the sweep axis), the box and,
/// for a listing, where it is listed (see place_of; 0 for a sorted box). A candidate's two
/// words are loaded together: whether it is in the run and whether it overlaps across are
/// known after one round trip to memory.
struct alignas(16) SweepRecord {
  float min_u, max_u;
  float min_v, max_v;
  float min_s, max_s;
  std::uint32_t box;  ///< the user's index
  std::uint32_t place;
};

static_assert(sizeof(PackedBox) == 32 && sizeof(SweepRecord) == 32, "one sector a record");

/// What a listing kept for the frames after remembers of a box, by the user's index (written
/// by gather_boxes, read by check_listing): the key it was sorted by (its minimum on the
/// sweep axis then), the cells it is listed in, whether it is listed at all and whether it was
/// valid (a frame on the listing counts the invalid boxes the listing frame counted). 16 bytes.
struct alignas(16) ListedBox {
  float key;
  std::uint32_t cells_u;  ///< u0 | u1 << 16 (kMaxCellsPerAxis cells an axis fit 16 bits)
  std::uint32_t cells_v;  ///< v0 | v1 << 16
  std::uint32_t state;    ///< kListedBox | kValidBox, as they hold

  static constexpr std::uint32_t kListedBox = 1;  ///< listed: it pairs with something
  static constexpr std::uint32_t kValidBox = 2;
  __host__ __device__ static constexpr std::uint32_t state_of(bool listed, bool valid) {
    return (listed ? kListedBox : 0u) | (valid ? kValidBox : 0u);
  }
};
static_assert(kMaxCellsPerAxis <= 0x10000u, "a cell index fits 16 bits");

/// Where gather_boxes keeps what a later frame on its listing checks: the boxes' ListedBox
/// records (null: the listing is not kept) and the margin, in cells, by which each box's
/// bounds across are widened before it is listed (0 when not kept).
struct KeptListing {
  ListedBox* boxes;
  float margin;
};

__device__ inline SweepRecord load_record(const SweepRecord* records, std::size_t i) {
  const auto* words = reinterpret_cast<const float4*>(records + i);
  const float4 across = words[0];
  const float4 along = words[1];
  return {across.x,
          across.y,
          across.z,
          across.w,
          along.x,
          along.y,
          __float_as_uint(along.z),
          __float_as_uint(along.w)};
}

/// The first word of a record alone: {min_u, max_u, min_v, max_v}.
__device__ inline float4 load_across(const SweepRecord* records, std::size_t i) {
  return reinterpret_cast<const float4*>(records + i)[0];
}

/// A record's bounds across, as load_across reads them.
__device__ inline float4 across_of(const SweepRecord& record) {
  return make_float4(record.min_u, record.max_u, record.min_v, record.max_v);
}

__device__ inline void store_record(SweepRecord* records, std::size_t i, const SweepRecord& r) {
  auto* words = reinterpret_cast<float4*>(records + i);
  words[0] = make_float4(r.min_u, r.max_u, r.min_v, r.max_v);
  words[1] = make_float4(r.min_s, r.max_s, __uint_as_float(r.box), __uint_as_float(r.place));
}

/// Whether listings e and f are listed in one cell.
__device__ inline bool same_cell(const SweepRecord& e, const SweepRecord& f) {
  return ((e.place ^ f.place) & kCellBits) == 0;
}

/// Whether listing f, after listing e, is in e's run: listings are in cell order with minimum
/// order inside each cell, so f is iff it is in e's cell and its minimum is <= e's maximum on
/// the sweep axis. Once a listing is out of e's run, so are all after it.
__device__ inline bool in_run(const SweepRecord& e, const SweepRecord& f) {
  return same_cell(e, f) && f.min_s <= e.max_s;
}

/// in_run on a kept listing whose minima drifted from their keys: listing f, after listing e,
/// is in e's run while it is in e's cell and its minimum is <= `reach`, e's maximum plus twice
/// the drift (rounded up). Once a listing is out of it, no listing after it overlaps e on the
/// sweep axis (see the file's head); some inside it do not either.
__device__ inline bool in_reach(const SweepRecord& e, float reach, const SweepRecord& f) {
  return same_cell(e, f) && f.min_s <= reach;
}

/// Whether listings e and f overlap on the sweep axis. Implied inside a run of listings in
/// minimum order; tested where the minima drifted.
__device__ inline bool overlap_along(const SweepRecord& e, const SweepRecord& f) {
  return f.min_s <= e.max_s && e.min_s <= f.max_s;
}

/// `summary` merged over the lanes of the warp: lane 0 ends with the warp's.
__device__ inline BoxSummary merged_over_warp(BoxSummary summary) {
  constexpr unsigned int kAll = 0xFFFFFFFFu;
  for (int offset = 16; offset > 0; offset /= 2) {
    BoxSummary other;
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      other.low_key[a] = __shfl_down_sync(kAll, summary.low_key[a], offset);
      other.high_key[a] = __shfl_down_sync(kAll, summary.high_key[a], offset);
      other.extent_sum[a] = __shfl_down_sync(kAll, summary.extent_sum[a], offset);
      other.centre_sum[a] = __shfl_down_sync(kAll, summary.centre_sum[a], offset);
      other.centre_square_sum[a] = __shfl_down_sync(kAll, summary.centre_square_sum[a], offset);
    }
    other.valid = __shfl_down_sync(kAll, summary.valid, offset);
    other.invalid = __shfl_down_sync(kAll, summary.invalid, offset);
    other.first_invalid = __shfl_down_sync(kAll, summary.first_invalid, offset);
    other.world_low = __shfl_down_sync(kAll, summary.world_low, offset);
    other.world_high = __shfl_down_sync(kAll, summary.world_high, offset);
    summary.merge(other);
  }
  return summary;
}

/// Whole grid, persistent blocks: each thread summarises a strided share of the boxes,
/// kSummarizeBoxes at a time, and packs each into `packed`; a block merges its threads'
/// summaries (warps by shuffles, then the warps' in shared memory), and its first thread
/// merges the block's into frame->running with atomics (one set per block). The last block to
/// do so plans the frame (the host's plan_frame) and leaves the counters as the next frame
/// expects them: `running` empty again, the frame's other counters zero.
__global__ void __launch_bounds__(kThreads)
    summarize_boxes(BoxView boxes, std::uint32_t count, FrameCounters* frame, PackedBox* packed,
                    SweepAxis axis, SweepMode mode) {
  __shared__ BoxSummary warp_summaries[kThreads / 32];
  BoxSummary summary = BoxSummary::empty();
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t first = blockIdx.x * blockDim.x + threadIdx.x; first < count;
       first += kSummarizeBoxes * stride) {
    float low[kSummarizeBoxes][3];
    float high[kSummarizeBoxes][3];
#pragma unroll
    for (int k = 0; k < kSummarizeBoxes; ++k) {  // the loads first: all in flight at once
      const std::uint64_t box = first + k * stride;
      if (box < count) boxes.load(static_cast<std::uint32_t>(box), low[k], high[k]);
    }
#pragma unroll
    for (int k = 0; k < kSummarizeBoxes; ++k) {
      const std::uint64_t at = first + k * stride;
      if (at >= count) break;
      const auto box = static_cast<std::uint32_t>(at);
      const bool valid = box_is_valid(low[k], high[k]);
      const std::uint32_t world = boxes.world(box);
      if (!is_world(world)) atomicMin(&frame->first_bad_world, box);
      if (valid) {
        summary.add(low[k], high[k]);
        summary.add_world(world);
      } else {
        ++summary.invalid;
        summary.first_invalid = box < summary.first_invalid ? box : summary.first_invalid;
      }
      auto* words = reinterpret_cast<float4*>(packed + box);
      words[0] = make_float4(low[k][0], low[k][1], low[k][2], high[k][0]);
      words[1] =
          make_float4(high[k][1], high[k][2], __uint_as_float(valid ? boxes.category(box) : 0u),
                      __uint_as_float(world));
    }
  }
  summary = merged_over_warp(summary);
  if (threadIdx.x % 32 == 0) warp_summaries[threadIdx.x / 32] = summary;
  __syncthreads();
  if (threadIdx.x != 0) return;
  BoxSummary total = warp_summaries[0];
  for (int warp = 1; warp < kThreads / 32; ++warp)
    total.merge(warp_summaries[warp]);
  BoxSummary& out = frame->running;
  for (int a = 0; a < 3; ++a) {
    atomicMin(&out.low_key[a], total.low_key[a]);
    atomicMax(&out.high_key[a], total.high_key[a]);
    atomicAdd(&out.extent_sum[a], total.extent_sum[a]);
    atomicAdd(&out.centre_sum[a], total.centre_sum[a]);
    atomicAdd(&out.centre_square_sum[a], total.centre_square_sum[a]);
  }
  atomicAdd(&out.valid, total.valid);
  atomicAdd(&out.invalid, total.invalid);
  atomicMin(&out.first_invalid, total.first_invalid);
  atomicMin(&out.world_low, total.world_low);
  atomicMax(&out.world_high, total.world_high);
  // Release this block's merge; the last block acquires them all.
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> merged(frame->summarized_blocks);
  if (merged.fetch_add(1, cuda::memory_order_acq_rel) != gridDim.x - 1) return;
  frame->summary = frame->running;
  frame->running = BoxSummary::empty();
  frame->summarized_blocks = 0;
  frame->plan = plan_frame(frame->summary, axis, mode, boxes.worlds != nullptr);
  frame->listings = 0;
  frame->candidates = 0;
  frame->pairs = 0;
  frame->long_runs = 0;
  frame->stale = 0;
  frame->drift_bits = 0;
  frame->long_candidates = 0;
  frame->shared_listings = 0;
}

/// Thread j: the sort key of the box at position j of last frame's order (its minimum on the
/// sweep axis, read from the user's arrays, which at 4 bytes a box stay in L2) and the box as
/// the sort's value. The grid's threads also ready the tile states of gather_boxes' scan.
__global__ void stage_keys(BoxView boxes, const std::uint32_t* order, std::uint32_t count,
                           const FrameCounters* frame, std::uint32_t* keys,
                           std::uint32_t* key_boxes, ListingTiles tiles, int listing_tiles) {
  tiles.InitializeStatus(listing_tiles);  // tile = this thread's index in the grid
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const std::uint32_t box = order[j];
  const float* minima = on_axis(boxes.min, frame->plan.axis);
  keys[j] = sort::ordered_key(minima[std::size_t{box} * boxes.stride]);
  key_boxes[j] = box;
}

/// The tile states of gather_boxes' scan readied alone, for running it again.
__global__ void ready_listing_tiles(ListingTiles tiles, int listing_tiles) {
  tiles.InitializeStatus(listing_tiles);
}

__device__ inline CellRange cells_of(const CellGrid& grid, const SweepRecord& box) {
  return grid.cells_of(box.min_u, box.max_u, box.min_v, box.max_v);
}

/// A box's lowest bounds across widened by `margin` cells (rounded down): its listed cells
/// start at their cells. gather_boxes and gather_listings compute them alike.
__device__ inline float2 widened_low(const CellGrid& grid, const SweepRecord& box, float margin) {
  return make_float2(__fsub_rd(box.min_u, __fdiv_ru(margin, grid.inverse_cell_u)),
                     __fsub_rd(box.min_v, __fdiv_ru(margin, grid.inverse_cell_v)));
}

/// The cells a box is listed in: those of its bounds across widened by `margin` cells on
/// each side (rounded outwards), so that it may move that far and stay in them.
__device__ inline CellRange listed_cells(const CellGrid& grid, const SweepRecord& box,
                                         float margin) {
  const float2 low = widened_low(grid, box, margin);
  return grid.cells_of(low.x, __fadd_ru(box.max_u, __fdiv_ru(margin, grid.inverse_cell_u)), low.y,
                       __fadd_ru(box.max_v, __fdiv_ru(margin, grid.inverse_cell_v)));
}

/// Block b, thread t: sorted box i = b * kThreads + t is the packed box the sort put there
/// (sorted_boxes[i], the frame's order), written as a sweep record, and listed in each cell it
/// covers (none if it pairs with nothing). The listings are numbered in sorted order by a
/// block scan whose block prefix comes from the blocks before (a single-pass scan, blocks
/// numbered in launch order), so the cell sort finds them in minimum order; the last block
/// stores the total in frame->listings. Listings past out.capacity are counted, not written.
/// A box's listings are in its world's cells (see WorldCells); a kAllWorlds box's are counted
/// in frame->shared_listings. A listing kept for the frames after (kept.boxes) lists each box
/// in the cells of its bounds widened by kept.margin cells and remembers them with its key.
__global__ void __launch_bounds__(kThreads)
    gather_boxes(const PackedBox* packed, const std::uint32_t* sorted_boxes, std::uint32_t count,
                 FrameCounters* frame, SweepRecord* sorted, ListingTiles tiles, ListingOut out,
                 KeptListing kept) {
  using BlockScan = cub::BlockScan<unsigned long long, kThreads>;
  using TilePrefix = cub::TilePrefixCallbackOp<unsigned long long, cuda::std::plus<>, ListingTiles>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ typename TilePrefix::TempStorage prefix_storage;
  const int tile = static_cast<int>(blockIdx.x);
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  const CellGrid& grid = frame->plan.grid;
  const WorldCells& worlds = frame->plan.worlds;
  CellRange range{};
  std::uint32_t listings = 0;
  std::uint32_t world = 0;
  if (i < count) {
    const int s = frame->plan.axis;
    const int u = grid.axis_u;
    const int v = grid.axis_v;
    const std::uint32_t box = sorted_boxes[i];
    const auto* words = reinterpret_cast<const float4*>(packed + box);
    const float4 first = words[0];
    const float4 second = words[1];
    const float low[3] = {first.x, first.y, first.z};
    const float high[3] = {first.w, second.x, second.y};
    const bool pairs = __float_as_uint(second.z) != 0;
    world = __float_as_uint(second.w);
    const SweepRecord record{on_axis(low, u),
                             on_axis(high, u),
                             on_axis(low, v),
                             on_axis(high, v),
                             on_axis(low, s),
                             on_axis(high, s),
                             box,
                             0u};  // placed when listed
    store_record(sorted, i, record);
    if (pairs) {
      range = listed_cells(grid, record, kept.margin);
      listings = range.size();
      if (worlds.is_shared(worlds.cell(0, world))) {
        atomicAdd(&frame->shared_listings, static_cast<unsigned long long>(listings));
      }
    }
    if (kept.boxes != nullptr) {
      kept.boxes[box] = {record.min_s, range.u0 | range.u1 << 16, range.v0 | range.v1 << 16,
                         ListedBox::state_of(pairs, box_is_valid(low, high))};
    }
  }
  unsigned long long first = 0;
  if (tile == 0) {
    unsigned long long block_total = 0;
    BlockScan(scan_storage)
        .ExclusiveSum(static_cast<unsigned long long>(listings), first, block_total);
    if (threadIdx.x == 0) {
      tiles.SetInclusive(0, block_total);
      if (gridDim.x == 1) frame->listings = block_total;
    }
  } else {
    TilePrefix prefix(tiles, prefix_storage, cuda::std::plus<>{}, tile);
    BlockScan(scan_storage).ExclusiveSum(static_cast<unsigned long long>(listings), first, prefix);
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) {
      frame->listings = prefix.GetInclusivePrefix();  // written by this thread
    }
  }
  if (listings == 0 || first + listings > out.capacity) return;
  auto next = static_cast<std::size_t>(first);
  for (std::uint32_t cu = range.u0; cu <= range.u1; ++cu) {
    for (std::uint32_t cv = range.v0; cv <= range.v1; ++cv) {
      out.cells[next] = worlds.cell(grid.cell_id(cu, cv), world);
      out.boxes[next] = i;
      ++next;
    }
  }
}

/// Thread e: copies the record of the sorted box listing e names into listing order, placed
/// in the listing's cell (whether it is the box's first is judged by its bounds widened by
/// `margin` cells, as gather_boxes listed it). The listings are counted on the device (see
/// listed); the grid is sized for their room. (A grid of resident blocks striding over the
/// listings, two at once for more loads in flight, was 3% slower at 1M and 35% at 10M on an
/// H100.)
__global__ void gather_listings(const SweepRecord* sorted, const std::uint32_t* listing_cells,
                                const std::uint32_t* listing_boxes, const FrameCounters* frame,
                                std::uint32_t room, float margin, SweepRecord* records) {
  const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= listed(frame, room)) return;
  const CellGrid& grid = frame->plan.grid;
  SweepRecord box = load_record(sorted, listing_boxes[e]);
  const std::uint32_t cell = listing_cells[e];
  const std::uint32_t grid_cell = frame->plan.worlds.grid_cell(cell);
  const std::uint32_t cell_u = grid_cell / grid.cells_v;
  const std::uint32_t cell_v = grid_cell - cell_u * grid.cells_v;
  const float2 low = widened_low(grid, box, margin);
  box.place = place_of(cell, grid.cell_u(low.x) == cell_u, grid.cell_v(low.y) == cell_v);
  store_record(records, e, box);
}

/// The drift of a frame on a kept listing (see FrameCounters::drift_bits); 0 otherwise.
__device__ inline float drift_of(const FrameCounters* frame) {
  return __uint_as_float(frame->drift_bits);
}

/// How far past a listing's maximum its run may reach in a frame of `drift`: 2 drift (rounded
/// up); 0 when the listings are in minimum order.
__device__ inline float reach_of(float drift) {
  return __fadd_ru(drift, drift);
}

/// A frame on a kept listing, persistent grid: each thread reads a strided share of the boxes,
/// packs each into `packed` (as summarize_boxes) for regather_listings, and checks it against
/// what the listing remembers of it: it pairs with something (valid, category not 0) exactly
/// when it is listed, it is valid exactly when it was, and its cells across lie within its
/// listed cells. A box that fails makes
/// the frame stale (frame->stale). The largest distance of a listed box's minimum on the sweep
/// axis from its key (rounded up) is merged into frame->drift_bits (non-negative floats order
/// as their bits): a warp's by shuffles, then one atomic a block. The host zeroes both, and the
/// sweep's counts, before it launches this.
__global__ void __launch_bounds__(kThreads)
    check_listing(BoxView boxes, std::uint32_t count, FrameCounters* frame, PackedBox* packed,
                  const ListedBox* listed) {
  __shared__ float warp_drifts[kThreads / 32];
  const FramePlan& plan = frame->plan;
  const CellGrid& grid = plan.grid;
  float drift = 0.0f;
  bool stale = false;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t first = blockIdx.x * blockDim.x + threadIdx.x; first < count;
       first += kSummarizeBoxes * stride) {
    float low[kSummarizeBoxes][3];
    float high[kSummarizeBoxes][3];
    ListedBox was[kSummarizeBoxes];
#pragma unroll
    for (int k = 0; k < kSummarizeBoxes; ++k) {  // the loads first: all in flight at once
      const std::uint64_t box = first + k * stride;
      if (box < count) {
        boxes.load(static_cast<std::uint32_t>(box), low[k], high[k]);
        was[k] = listed[box];
      }
    }
#pragma unroll
    for (int k = 0; k < kSummarizeBoxes; ++k) {
      const std::uint64_t at = first + k * stride;
      if (at >= count) break;
      const auto box = static_cast<std::uint32_t>(at);
      const bool valid = box_is_valid(low[k], high[k]);
      const std::uint32_t category = valid ? boxes.category(box) : 0u;
      if (ListedBox::state_of(category != 0, valid) != was[k].state) stale = true;
      if (category != 0 && (was[k].state & ListedBox::kListedBox) != 0) {
        const CellRange cells =
            grid.cells_of(on_axis(low[k], grid.axis_u), on_axis(high[k], grid.axis_u),
                          on_axis(low[k], grid.axis_v), on_axis(high[k], grid.axis_v));
        if (cells.u0 < (was[k].cells_u & 0xFFFFu) || cells.u1 > was[k].cells_u >> 16 ||
            cells.v0 < (was[k].cells_v & 0xFFFFu) || cells.v1 > was[k].cells_v >> 16) {
          stale = true;
        }
        const float minimum = on_axis(low[k], plan.axis);
        drift = fmaxf(drift, fmaxf(__fsub_ru(minimum, was[k].key), __fsub_ru(was[k].key, minimum)));
      }
      auto* words = reinterpret_cast<float4*>(packed + box);
      words[0] = make_float4(low[k][0], low[k][1], low[k][2], high[k][0]);
      words[1] = make_float4(high[k][1], high[k][2], __uint_as_float(category), 0.0f);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2)
    drift = fmaxf(drift, __shfl_down_sync(0xFFFFFFFFu, drift, offset));
  if (threadIdx.x % 32 == 0) warp_drifts[threadIdx.x / 32] = drift;
  const bool block_stale = __syncthreads_or(stale) != 0;
  if (threadIdx.x != 0) return;
  for (int warp = 1; warp < kThreads / 32; ++warp)
    drift = fmaxf(drift, warp_drifts[warp]);
  if (drift > 0.0f) atomicMax(&frame->drift_bits, __float_as_uint(drift));
  if (block_stale) atomicOr(&frame->stale, 1u);
}

/// A frame on a kept listing, thread e: listing e's record with its box's bounds of this frame
/// (from `packed`), its box and place kept. Nothing when the frame is stale.
__global__ void regather_listings(const PackedBox* packed, const FrameCounters* frame,
                                  std::uint32_t room, SweepRecord* records) {
  const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= listed(frame, room) || frame->stale != 0) return;
  const FramePlan& plan = frame->plan;
  const float4 kept = reinterpret_cast<const float4*>(records + e)[1];
  const std::uint32_t box = __float_as_uint(kept.z);
  const auto* words = reinterpret_cast<const float4*>(packed + box);
  const float4 first = words[0];
  const float4 second = words[1];
  const float low[3] = {first.x, first.y, first.z};
  const float high[3] = {first.w, second.x, second.y};
  const int u = plan.grid.axis_u;
  const int v = plan.grid.axis_v;
  store_record(records, e,
               {on_axis(low, u), on_axis(high, u), on_axis(low, v), on_axis(high, v),
                on_axis(low, plan.axis), on_axis(high, plan.axis), box, __float_as_uint(kept.w)});
}

/// Thread i: for listing e = long_listings[i], the number of listings after e in its cell
/// whose minimum is <= e's maximum (its candidates), less the first `skip` of them (which
/// sweep_cells tested). They are a run, since a cell's listings are sorted by minimum: a
/// galloping search finds its end in O(log run) reads however long the run is. On a kept
/// listing (`kept` not null) the minima have drifted out of order, and the run is that of
/// the keys, which are in order: the listings whose key is <= e's maximum plus the drift,
/// which holds every listing whose minimum is <= e's maximum.
__global__ void sweep_extents(const SweepRecord* listings, std::uint32_t count,
                              const std::uint32_t* long_listings, std::uint32_t long_count,
                              std::uint32_t skip, const ListedBox* kept, const FrameCounters* frame,
                              std::uint32_t* candidate_counts) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= long_count) return;
  const std::uint32_t e = long_listings[i];
  const SweepRecord record_e = load_record(listings, e);
  const float key_reach = __fadd_ru(record_e.max_s, drift_of(frame));
  const auto in_e_run = [&](std::uint64_t f) {
    const SweepRecord record_f = load_record(listings, f);
    if (kept == nullptr) return in_run(record_e, record_f);
    return same_cell(record_e, record_f) && kept[record_f.box].key <= key_reach;
  };
  std::uint64_t inside = e;  // the last listing known to be in the run (e itself: trivially)
  std::uint64_t step = 1;
  std::uint64_t outside = e + step;  // the first listing known not to be, once found
  while (outside < count && in_e_run(outside)) {
    inside = outside;
    step *= 2;
    outside = e + step;
  }
  if (outside > count) outside = count;
  while (outside - inside > 1) {
    const std::uint64_t middle = inside + (outside - inside) / 2;
    if (in_e_run(middle)) {
      inside = middle;
    } else {
      outside = middle;
    }
  }
  const std::uint64_t run = inside - e;
  candidate_counts[i] = run > skip ? static_cast<std::uint32_t>(run - skip) : 0u;
}

/// Widens 32-bit counts for a scan whose sums need 64 bits.
struct Widen {
  __device__ unsigned long long operator()(std::uint32_t count) const { return count; }
};

/// The listing whose candidates include number t: the last e in [0, count) with
/// offsets[e] <= t, found by a whole warp. Each step probes 32 evenly spaced listings at once
/// and keeps the gap where t falls, so a search takes log32(count) dependent reads (5 for 32M
/// listings) rather than log2(count). Every lane returns the answer.
__device__ inline std::uint32_t warp_listing_of(const unsigned long long* offsets,
                                                std::uint32_t count, unsigned long long t) {
  const unsigned int lane = threadIdx.x % 32;
  std::uint32_t low = 0;  // offsets[low] <= t: offsets[0] is 0
  std::uint32_t high = count - 1;
  while (low < high) {
    const std::uint64_t step = (std::uint64_t{high - low} + 31) / 32;
    const std::uint64_t probe = low + (lane + 1) * step;
    const bool below = probe <= high && offsets[probe] <= t;
    const unsigned int taken = __popc(__ballot_sync(0xFFFFFFFFu, below));  // a prefix of lanes
    const std::uint64_t next_low = low + taken * step;
    const std::uint64_t next_high = next_low + step - 1;
    low = static_cast<std::uint32_t>(next_low);
    high = next_high < high ? static_cast<std::uint32_t>(next_high) : high;
  }
  return low;
}

/// Whether listing e and a listing f with the bounds across {min_u, max_u, min_v, max_v}
/// overlap on u and v (they are in the same cell and overlap on the sweep axis).
__device__ inline bool overlap_across(const SweepRecord& e, const float4& f) {
  return f.x <= e.max_u && e.min_u <= f.y && f.z <= e.max_v && e.min_v <= f.w;
}

/// Whether listings e and f, which overlap, are reported in this cell (is_home_cell) and pass
/// each other's filter bits. (Two listings in one cell are of one world, or one of them is
/// of every world.)
template <bool kCells, bool kFilters>
__device__ bool is_reported(const SweepRecord& e, const SweepRecord& f, const BoxView& filters) {
  if constexpr (kCells) {
    if (!is_home_cell(e.place, f.place)) return false;  // another cell reports it
  }
  if constexpr (kFilters) {
    return (filters.category(e.box) & filters.mask(f.box)) != 0 &&
           (filters.category(f.box) & filters.mask(e.box)) != 0;
  }
  return true;
}

/// Appends a warp's buffered pairs to the frame's (one atomic) and empties the buffer. Pairs
/// past `capacity` are counted but not written: the host grows the buffer to the count and
/// runs the tests again.
__device__ inline void flush_pairs(const Pair* buffered, std::uint32_t& size,
                                   unsigned long long* pair_count, Pair* pairs,
                                   unsigned long long capacity) {
  const unsigned int lane = threadIdx.x % 32;
  __syncwarp();
  unsigned long long base = 0;
  if (lane == 0 && size > 0) base = atomicAdd(pair_count, size);
  base = __shfl_sync(0xFFFFFFFFu, base, 0);
  for (std::uint32_t i = lane; i < size; i += 32) {
    if (base + i < capacity) pairs[base + i] = buffered[i];
  }
  __syncwarp();
  size = 0;
}

/// Adds the lanes' counts to `*total`: a sum over the warp, one atomic by its first lane.
__device__ inline void add_warp_counts(unsigned long long* total, std::uint32_t count) {
  auto sum = static_cast<unsigned long long>(count);
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  if (threadIdx.x % 32 == 0 && sum > 0) atomicAdd(total, sum);
}

/// Asks L2 for what the warp's next chunk of sweep_cells will read: the records of listings
/// [next, next + 48), its lanes' own and the first candidates of their runs, so that its loads
/// find them there rather than in memory.
__device__ inline void prefetch_chunk(const SweepRecord* listings, std::uint32_t next,
                                      std::uint32_t count) {
  const unsigned int lane = threadIdx.x % 32;
  const std::uint32_t listing = next + lane * 4;  // 4 records a line
  if (lane < 12 && listing < count)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(listings + listing));
}

/// The sweep itself. Persistent warps; a warp takes 32 consecutive listings at a time, one a
/// lane, and each lane tests its listing's candidates kSweepUnroll at a time (their loads
/// issued together): at step k lane i reads listings e + i + k.., so the warp reads a window
/// of consecutive listings that slides along, coalesced and mostly from L1, and the warp's next
/// chunk is prefetched into L2 meanwhile. A lane stops at the end of its run or after
/// kSweepSteps candidates; a listing whose run goes on is appended to `long_listings` (one
/// atomic a warp, on frame->long_runs), and the host has sweep_extents and test_candidates
/// test the rest of it. Without `long_listings` (a second sweep after the pair buffer grew, the
/// list already made) long runs are only left. Pairs gather in a warp buffer in shared memory
/// and are appended a buffer at a time. The listings are counted on the device (see listed).
/// kDrifted: a frame on a kept listing, whose runs reach 2 drift further (in_reach) and whose
/// candidates are tested on the sweep axis too; nothing when the frame is stale.
template <bool kCells, bool kFilters, bool kDrifted>
__global__ void __launch_bounds__(kThreads)
    sweep_cells(const SweepRecord* listings, std::uint32_t room, BoxView filters,
                FrameCounters* frame, Pair* pairs, unsigned long long capacity,
                std::uint32_t* long_listings) {
  if (kDrifted && frame->stale != 0) return;
  const std::uint32_t count = listed(frame, room);
  const float reach = kDrifted ? reach_of(drift_of(frame)) : 0.0f;
  constexpr unsigned int kAll = 0xFFFFFFFFu;
  constexpr int kWarps = kThreads / 32;
  constexpr int kUnroll = kSweepUnroll;
  __shared__ Pair buffer[kWarps][kWarpPairs];
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int lanes_below = (1u << lane) - 1;
  Pair* buffered = buffer[threadIdx.x / 32];
  std::uint32_t buffered_size = 0;  // the same in every lane
  // This lane's: at most kSweepSteps a listing, and a lane sweeps at most count / 32 of them.
  std::uint32_t candidates = 0;
  const std::uint32_t chunks = (count + 31) / 32;
  for (std::uint32_t chunk = blockIdx.x * kWarps + threadIdx.x / 32; chunk < chunks;
       chunk += gridDim.x * kWarps) {
    const std::uint32_t first = chunk * 32;
    const std::uint32_t next_chunk = chunk + gridDim.x * kWarps;
    if (next_chunk < chunks) prefetch_chunk(listings, next_chunk * 32, count);
    const std::uint32_t e = first + lane;
    bool active = e < count;
    SweepRecord record_e{};
    if (active) record_e = load_record(listings, e);
    // How far e's run reaches: its maximum (in_run), on a kept listing 2 drift further.
    const float e_reach = kDrifted ? __fadd_ru(record_e.max_s, reach) : record_e.max_s;
    bool long_run = false;    // whether e's run goes on after kSweepSteps candidates
    std::uint32_t f = e + 1;  // the next candidate
    while (__any_sync(kAll, active)) {
      bool run[kUnroll];
      SweepRecord record[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        run[k] = active && f + k < count;
        if (run[k]) record[k] = load_record(listings, f + k);
      }
      bool hit[kUnroll];
      Pair pair[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        run[k] = run[k] && in_reach(record_e, e_reach, record[k]);
        hit[k] = run[k] && (!kDrifted || overlap_along(record_e, record[k])) &&
                 overlap_across(record_e, across_of(record[k])) &&
                 is_reported<kCells, kFilters>(record_e, record[k], filters);
        pair[k] = record_e.box < record[k].box ? Pair{record_e.box, record[k].box}
                                               : Pair{record[k].box, record_e.box};
        candidates += run[k] ? 1u : 0u;
      }
      if (active) {
        if (!run[kUnroll - 1]) {
          active = false;  // the run ended here
        } else if ((f += kUnroll) - e > kSweepSteps) {
          active = false;  // the steps are spent: is there more?
          long_run = f < count && in_reach(record_e, e_reach, load_record(listings, f));
        }
      }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const unsigned int hits = __ballot_sync(kAll, hit[k]);
        if (hit[k]) buffered[buffered_size + __popc(hits & lanes_below)] = pair[k];
        buffered_size += __popc(hits);
      }
      if (buffered_size > kWarpPairs - kUnroll * 32) {
        flush_pairs(buffered, buffered_size, &frame->pairs, pairs, capacity);
      }
    }
    const unsigned int longs = __ballot_sync(kAll, long_run);
    if (longs != 0 && long_listings != nullptr) {
      unsigned long long first_long = 0;
      if (lane == 0)
        first_long = atomicAdd(&frame->long_runs, static_cast<unsigned long long>(__popc(longs)));
      first_long = __shfl_sync(kAll, first_long, 0);
      if (long_run) long_listings[first_long + __popc(longs & lanes_below)] = e;
    }
  }
  flush_pairs(buffered, buffered_size, &frame->pairs, pairs, capacity);
  add_warp_counts(&frame->candidates, candidates);
}

/// Boxes a world may hold on average (valid boxes over the span of world ids) for the frame
/// after to sweep the worlds whole (stage_world_keys, sweep_worlds); with more, worlds are
/// listed in cells as any frame's boxes.
constexpr double kSmallWorldBoxes = 256;
/// A walk of sweep_worlds past this many candidates marks the worlds as not small (one dense
/// along the axis, or large): from the next frame on they are listed in cells.
constexpr std::uint32_t kLongWalk = 1024;

/// The small-worlds frame, thread j: the key of the box at position j of last frame's order
/// (WorldKeys: its world's slot, its minimum's step) and the box as the sort's value.
__global__ void stage_world_keys(const PackedBox* packed, const std::uint32_t* order,
                                 std::uint32_t count, const FrameCounters* frame,
                                 std::uint32_t* keys, std::uint32_t* key_boxes) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const std::uint32_t box = order[j];
  const auto* words = reinterpret_cast<const float4*>(packed + box);
  const float4 first = words[0];
  const float4 second = words[1];
  const float low[3] = {first.x, first.y, first.z};
  const FramePlan& plan = frame->plan;
  keys[j] =
      plan.world_keys.key(plan.worlds.slot(__float_as_uint(second.w)), on_axis(low, plan.axis));
  key_boxes[j] = box;
}

/// A packed box's bounds, category and world.
struct PackedBounds {
  float low[3];
  float high[3];
  std::uint32_t category;
};

__device__ inline PackedBounds load_packed(const PackedBox* packed, std::uint32_t box) {
  const auto* words = reinterpret_cast<const float4*>(packed + box);
  const float4 first = words[0];
  const float4 second = words[1];
  return {{first.x, first.y, first.z}, {first.w, second.x, second.y}, __float_as_uint(second.z)};
}

__device__ inline bool overlap(const PackedBounds& a, const PackedBounds& b) {
  return a.low[0] <= b.high[0] && b.low[0] <= a.high[0] && a.low[1] <= b.high[1] &&
         b.low[1] <= a.high[1] && a.low[2] <= b.high[2] && b.low[2] <= a.high[2];
}

/// Sorted boxes a warp of sweep_worlds holds in shared memory: its own 32 and the 32 after.
constexpr std::uint32_t kWorldWindow = 64;

/// The small-worlds frame's sweep over the boxes in key order (WorldKeys). Persistent warps, a
/// lane a sorted box i, 32 consecutive at a time: the warp first reads its boxes and the 32
/// after them into shared memory (each box read from memory twice, not once a candidate), and
/// the walks read candidates there while they can. Box e walks the boxes after it while their
/// key is at most its world's slot with the step of its own maximum (its run: every box of its
/// world that overlaps it along the axis, in one stretch), kSweepUnroll at a time, and tests
/// each on all three axes, its category (0: pairs with nothing) and the filter bits. A box of a
/// world then walks the kAllWorlds boxes (the last slot, found once a block by a binary search)
/// alike. Pairs gather in a warp buffer and are appended a buffer at a time; pairs past
/// `capacity` are counted, not written. A walk past kLongWalk candidates counts in
/// frame->long_runs.
template <bool kFilters>
__global__ void __launch_bounds__(kThreads)
    sweep_worlds(const std::uint32_t* keys, const std::uint32_t* sorted_boxes, std::uint32_t count,
                 const PackedBox* packed, BoxView filters, FrameCounters* frame, Pair* pairs,
                 unsigned long long capacity) {
  constexpr unsigned int kAll = 0xFFFFFFFFu;
  constexpr int kWarps = kThreads / 32;
  constexpr int kUnroll = kSweepUnroll;
  __shared__ Pair buffer[kWarps][kWarpPairs];
  __shared__ PackedBounds window_bounds[kWarps][kWorldWindow];
  __shared__ std::uint32_t window_keys[kWarps][kWorldWindow];
  __shared__ std::uint32_t window_boxes[kWarps][kWorldWindow];
  __shared__ std::uint32_t block_first_shared;
  const WorldKeys world_keys = frame->plan.world_keys;
  const std::uint32_t shared_slot = frame->plan.worlds.shared;
  const std::uint32_t shared_key = shared_slot << world_keys.bits;
  const int axis = frame->plan.axis;
  if (threadIdx.x == 0) {  // the first box of the shared slot, or count
    block_first_shared = lower_bound(keys, count, shared_key);
  }
  __syncthreads();
  const std::uint32_t first_shared = block_first_shared;
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int lanes_below = (1u << lane) - 1;
  Pair* buffered = buffer[threadIdx.x / 32];
  std::uint32_t buffered_size = 0;  // the same in every lane
  std::uint32_t candidates = 0;
  bool long_walk = false;
  const int warp = static_cast<int>(threadIdx.x / 32);
  PackedBounds* window = window_bounds[warp];
  // Sorted box f: its key, box and bounds, from the window when it holds f.
  const auto candidate = [&](std::uint32_t base, std::uint32_t f, std::uint32_t& key,
                             std::uint32_t& box, PackedBounds& bounds) {
    if (f - base < kWorldWindow) {
      key = window_keys[warp][f - base];
      box = window_boxes[warp][f - base];
      bounds = window[f - base];
    } else {
      key = keys[f];
      box = sorted_boxes[f];
      bounds = load_packed(packed, box);
    }
  };
  const std::uint32_t chunks = (count + 31) / 32;
  for (std::uint32_t chunk = blockIdx.x * kWarps + threadIdx.x / 32; chunk < chunks;
       chunk += gridDim.x * kWarps) {
    const std::uint32_t base = chunk * 32;
    __syncwarp();  // the last chunk's walks are done with the window
    for (std::uint32_t w = lane; w < kWorldWindow && base + w < count; w += 32) {
      window_keys[warp][w] = keys[base + w];
      window_boxes[warp][w] = sorted_boxes[base + w];
      window[w] = load_packed(packed, window_boxes[warp][w]);
    }
    __syncwarp();
    const std::uint32_t i = base + lane;
    bool active = i < count;
    PackedBounds bounds_e{};
    std::uint32_t box_e = 0;
    std::uint32_t reach = 0;  // the step of e's maximum
    std::uint32_t limit = 0;  // the largest key in e's run
    bool world_box = false;   // e walks the shared boxes after its own world's
    if (active) {
      box_e = window_boxes[warp][lane];
      bounds_e = window[lane];
      const std::uint32_t key_e = window_keys[warp][lane];
      reach = world_keys.step(bounds_e.high[axis]);
      limit = (key_e & ~((1u << world_keys.bits) - 1u)) | reach;
      world_box = key_e < shared_key && first_shared < count;
      active = bounds_e.category != 0;
    }
    std::uint32_t f = i + 1;
    std::uint32_t walk_start = f;
    while (__any_sync(kAll, active)) {
      bool run[kUnroll];
      std::uint32_t box_f[kUnroll];
      PackedBounds bounds_f[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        std::uint32_t key_f = 0;
        box_f[k] = 0;
        bounds_f[k] = {};
        run[k] = active && f + k < count;
        if (run[k]) candidate(base, f + k, key_f, box_f[k], bounds_f[k]);
        run[k] = run[k] && key_f <= limit;
      }
      bool hit[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        hit[k] = false;
        if (!run[k]) continue;
        hit[k] = bounds_f[k].category != 0 && overlap(bounds_e, bounds_f[k]);
        if constexpr (kFilters) {
          hit[k] = hit[k] && (bounds_e.category & filters.mask(box_f[k])) != 0 &&
                   (bounds_f[k].category & filters.mask(box_e)) != 0;
        }
        ++candidates;
      }
      if (active) {
        if (run[kUnroll - 1]) {
          f += kUnroll;
        } else {
          if (f - walk_start > kLongWalk) long_walk = true;
          if (world_box) {  // then the shared boxes, up to e's maximum
            world_box = false;
            f = first_shared;
            walk_start = f;
            limit = shared_key | reach;
          } else {
            active = false;
          }
        }
      }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const unsigned int hits = __ballot_sync(kAll, hit[k]);
        if (hit[k]) {
          buffered[buffered_size + __popc(hits & lanes_below)] =
              box_e < box_f[k] ? Pair{box_e, box_f[k]} : Pair{box_f[k], box_e};
        }
        buffered_size += __popc(hits);
      }
      if (buffered_size > kWarpPairs - kUnroll * 32) {
        flush_pairs(buffered, buffered_size, &frame->pairs, pairs, capacity);
      }
    }
  }
  flush_pairs(buffered, buffered_size, &frame->pairs, pairs, capacity);
  add_warp_counts(&frame->candidates, candidates);
  const unsigned int longs = __ballot_sync(kAll, long_walk);
  if (lane == 0 && longs != 0)
    atomicAdd(&frame->long_runs, static_cast<unsigned long long>(__popc(longs)));
}

/// The first of listings [low, high) whose cell is >= `cell`: listings are in cell order.
__device__ inline std::uint32_t first_in_cell(const SweepRecord* listings, std::uint32_t low,
                                              std::uint32_t high, std::uint32_t cell) {
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    const float4 along = reinterpret_cast<const float4*>(listings + middle)[1];
    if ((__float_as_uint(along.w) & kCellBits) < cell) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// The boxes of the worlds against the boxes of every world (kAllWorlds), whose listings come
/// last (the shared slot's cells; see WorldCells): persistent warps, a lane a listing e before
/// them. The shared listings of e's grid cell are sorted by minimum: a binary search finds the
/// cell's first, and the lane walks them up to e's maximum on the sweep axis, testing each one's
/// maximum against e's minimum and the bounds across; a pair is reported in its home cell, as
/// by sweep_cells, and gathers in a warp buffer. A frame without shared listings returns at
/// once. (The walk is as long as the shared listings in the cell that start before e ends: few
/// for shared geometry of a few large boxes, the ground, walls and the like.)
template <bool kCells, bool kFilters>
__global__ void __launch_bounds__(kThreads)
    meet_shared(const SweepRecord* listings, std::uint32_t room, BoxView filters,
                FrameCounters* frame, Pair* pairs, unsigned long long capacity) {
  const std::uint32_t count = listed(frame, room);
  const unsigned long long shared = frame->shared_listings;
  if (shared == 0 || shared >= count) return;
  const auto first_shared = static_cast<std::uint32_t>(count - shared);
  const WorldCells worlds = frame->plan.worlds;
  constexpr unsigned int kAll = 0xFFFFFFFFu;
  constexpr int kWarps = kThreads / 32;
  __shared__ Pair buffer[kWarps][kWarpPairs];
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int lanes_below = (1u << lane) - 1;
  Pair* buffered = buffer[threadIdx.x / 32];
  std::uint32_t buffered_size = 0;  // the same in every lane
  std::uint32_t candidates = 0;
  const std::uint32_t chunks = (first_shared + 31) / 32;
  for (std::uint32_t chunk = blockIdx.x * kWarps + threadIdx.x / 32; chunk < chunks;
       chunk += gridDim.x * kWarps) {
    const std::uint32_t e = chunk * 32 + lane;
    bool active = e < first_shared;
    SweepRecord record_e{};
    std::uint32_t cell = 0;
    std::uint32_t f = count;
    if (active) {
      record_e = load_record(listings, e);
      cell = worlds.shared_cell(worlds.grid_cell(record_e.place & kCellBits));
      f = first_in_cell(listings, first_shared, count, cell);
    }
    while (__any_sync(kAll, active)) {
      bool hit = false;
      Pair pair{};
      if (active) {
        SweepRecord record_f{};
        if (f < count) record_f = load_record(listings, f);
        if (f >= count || (record_f.place & kCellBits) != cell || record_f.min_s > record_e.max_s) {
          active = false;
        } else {
          ++candidates;
          hit = record_e.min_s <= record_f.max_s && overlap_across(record_e, across_of(record_f)) &&
                is_reported<kCells, kFilters>(record_e, record_f, filters);
          pair = record_e.box < record_f.box ? Pair{record_e.box, record_f.box}
                                             : Pair{record_f.box, record_e.box};
          ++f;
        }
      }
      const unsigned int hits = __ballot_sync(kAll, hit);
      if (hit) buffered[buffered_size + __popc(hits & lanes_below)] = pair;
      buffered_size += __popc(hits);
      if (buffered_size > kWarpPairs - 32)
        flush_pairs(buffered, buffered_size, &frame->pairs, pairs, capacity);
    }
  }
  flush_pairs(buffered, buffered_size, &frame->pairs, pairs, capacity);
  add_warp_counts(&frame->candidates, candidates);
}

/// The candidates of the long runs (listings long_listings[i]) past their first `skip`,
/// numbered by candidate_offsets[i] (their count is frame->long_candidates). Every long run has
/// some, so a chunk of candidates spans at most as many long runs as it holds candidates.
/// Persistent blocks; a block takes candidates [base, base + 2048) at a time, thread i the
/// candidates base + i, base + i + 256, ... (a warp reads consecutive partners: coalesced).
/// Each candidate's listing comes from shared memory: the block marks where each of its
/// listings' runs starts and a running maximum (a block scan) fills in the rest, so no thread
/// searches. The block's pairs are numbered by a block scan and appended with one atomic;
/// pairs past `capacity` are counted but not written (the host grows the buffer to the count
/// and runs this again).
template <bool kCells, bool kFilters>
__global__ void __launch_bounds__(kThreads, kTestBlocksPerMultiprocessor)
    test_candidates(const SweepRecord* listings, const std::uint32_t* long_listings,
                    std::uint32_t count, std::uint32_t skip, BoxView filters,
                    const unsigned long long* candidate_offsets, FrameCounters* frame, Pair* pairs,
                    unsigned long long capacity) {
  using BlockScan = cub::BlockScan<std::uint32_t, kThreads>;
  constexpr int kItems = kCandidatesPerThread;
  constexpr std::uint32_t kChunk = kThreads * kItems;
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ std::uint32_t listing_at[kChunk];  // candidate base + c: listing first + [c]
  __shared__ std::uint32_t chunk_listings[2];
  __shared__ unsigned long long chunk_out;
  const unsigned long long total = frame->long_candidates;
  for (unsigned long long base = blockIdx.x * kChunk; base < total; base += gridDim.x * kChunk) {
    const unsigned long long end = base + kChunk < total ? base + kChunk : total;
    if (threadIdx.x < 64) {  // warp 0 finds the first listing, warp 1 the last
      const std::uint32_t found =
          warp_listing_of(candidate_offsets, count, threadIdx.x < 32 ? base : end - 1);
      if (threadIdx.x % 32 == 0) chunk_listings[threadIdx.x / 32] = found;
    }
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      listing_at[k * kThreads + threadIdx.x] = 0;
    __syncthreads();
    const std::uint32_t first = chunk_listings[0];
    const std::uint32_t last = chunk_listings[1];
    if (first != last) {
      // Listings after the first start inside the chunk (those with no candidates mark
      // nothing); the marks, then a running maximum in blocked order.
      for (std::uint32_t i = first + 1 + threadIdx.x; i <= last; i += kThreads) {
        const unsigned long long begin = candidate_offsets[i];
        if (begin < candidate_offsets[i + 1]) listing_at[begin - base] = i - first;
      }
      __syncthreads();
      std::uint32_t marks[kItems];
#pragma unroll
      for (int k = 0; k < kItems; ++k)
        marks[k] = listing_at[threadIdx.x * kItems + k];
      BlockScan(scan_storage).InclusiveScan(marks, marks, cuda::maximum<>{});
#pragma unroll
      for (int k = 0; k < kItems; ++k)
        listing_at[threadIdx.x * kItems + k] = marks[k];
      __syncthreads();
    }

    Pair found[kItems];
    bool hit[kItems];
    std::uint32_t found_count = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const unsigned long long t = base + k * kThreads + threadIdx.x;
      hit[k] = false;
      if (t < end) {
        const std::uint32_t i = first + listing_at[k * kThreads + threadIdx.x];
        const std::uint32_t e = long_listings[i];
        const SweepRecord record_e = load_record(listings, e);
        const auto f = static_cast<std::uint32_t>(e + 1 + skip + (t - candidate_offsets[i]));
        if (overlap_across(record_e, load_across(listings, f))) {
          const SweepRecord record_f = load_record(listings, f);
          if (overlap_along(record_e, record_f) &&
              is_reported<kCells, kFilters>(record_e, record_f, filters)) {
            hit[k] = true;
            found[k] = record_e.box < record_f.box ? Pair{record_e.box, record_f.box}
                                                   : Pair{record_f.box, record_e.box};
            ++found_count;
          }
        }
      }
    }
    std::uint32_t first_out = 0;
    std::uint32_t chunk_found = 0;
    BlockScan(scan_storage).ExclusiveSum(found_count, first_out, chunk_found);
    if (threadIdx.x == 0) chunk_out = chunk_found > 0 ? atomicAdd(&frame->pairs, chunk_found) : 0;
    __syncthreads();
    unsigned long long out = chunk_out + first_out;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (!hit[k]) continue;
      if (out < capacity) pairs[out] = found[k];
      ++out;
    }
    __syncthreads();  // listing_at, chunk_listings, chunk_out and scan_storage are reused
  }
}

/// Thread i: keys[i] = the a (by_a) or b of pair order[i] (of pair i without an order).
__global__ void pair_keys(const Pair* pairs, const std::uint32_t* order, std::uint32_t count,
                          bool by_a, std::uint32_t* keys) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const Pair pair = pairs[order != nullptr ? order[i] : i];
  keys[i] = by_a ? pair.a : pair.b;
}

/// Thread i: keys[i] = the world of pair order[i] (pair_world; `shared_key` for two
/// kAllWorlds boxes).
__global__ void pair_world_keys(const Pair* pairs, const std::uint32_t* order, std::uint32_t count,
                                const std::uint32_t* worlds, std::uint32_t shared_key,
                                std::uint32_t* keys) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const Pair pair = pairs[order[i]];
  keys[i] = pair_world(worlds[pair.a], worlds[pair.b], shared_key);
}

/// Thread w <= worlds: offsets[w], the first pair whose world (keys, sorted, one a pair) is
/// >= w, by a binary search; without keys every pair is in world 0.
__global__ void world_offsets(const std::uint32_t* keys, std::uint32_t pairs, std::uint32_t worlds,
                              std::uint32_t* offsets) {
  const std::uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w > worlds) return;
  if (keys == nullptr) {
    offsets[w] = w == 0 ? 0u : pairs;
    return;
  }
  offsets[w] = lower_bound(keys, pairs, w);
}

/// Thread i: out[i] = pairs[order[i]].
__global__ void gather_pairs(const Pair* pairs, const std::uint32_t* order, std::uint32_t count,
                             Pair* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = pairs[order[i]];
}

/// Thread i: values[i] = i.
__global__ void iota(std::uint32_t* values, std::uint32_t count) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = i;
}

}  // namespace rsw::physics::detail::kernels
