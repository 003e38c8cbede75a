// The CUDA backend of World. The boxes live on the device by slot; the host sends only what it
// changed (the boxes it wrote, the table when proxies came or went). A step:
//
//   [statics changed: summary (CUB reduce) -> plan on the host -> count listings -> scan ->
//    write keys -> sort (CUB) -> gather listings -> cell starts]
//   with statics listed: the moving proxies listed in the static cells, ordered by bucket
//   (cell, step of min_s) without a sort (counted in their buckets, the buckets' offsets
//   scanned, each listing written at its bucket's next place, in room sized from the last
//   step) -> cell_pairs: a lane a listing walks the cell's statics from its entry in a table
//   by step of s and, while the static grid serves the moving proxies too (walks_moving), the
//   moving listings after its own
//   otherwise, or without statics: the moving proxies' own BroadPhase frame (the CUDA sweep)
//   -> one wait for the counts [-> listings and cell_pairs again, at the counts, when they
//   did not fit]
//   -> the events: the slots' boxes of this step, one sector each (NaN for a free slot); each
//   pair of this step kept (in slots) and tested against the last step's boxes (found: no
//   overlap then, or a slot held no proxy), each pair of the last step tested against this
//   step's (lost) -> the wait for their counts [-> found and lost sorted by (a, b), with
//   WorldOptions::sorted_events] -> this step's boxes kept as the last step's.
//
// A pair of two proxies is one at a step exactly when both exist, their boxes are valid and
// overlap (closed intervals, the sweep's own float comparisons), and their filter bits and
// motions admit it; the last two never change, and a slot never holds two proxies at two
// steps in a row. So a step's events need neither step's pairs in any order: they re-test
// each pair against the other step's boxes. The pairs are sorted by (a, b) only when pairs()
// asks for them.
#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/tuple>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../broad_phase/sweep_backend.hpp"
#include "../../query/device_box_tree.hpp"
#include "../static_cells.hpp"
#include "../world_backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::physics::detail {
namespace {

constexpr int kThreads = 256;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

unsigned int blocks_for(std::size_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

static_assert(sizeof(Aabb) == 24 && sizeof(ProxyId) == 8 && sizeof(ProxyPair) == 16,
              "records as the kernels read them");
static_assert(sizeof(SlotState) == 1, "slot states are bytes");

/// What device-array calls and the step's look-up in the static cells leave for the host to
/// read at a step.
struct Pending {
  std::uint32_t first_stale;    ///< the first id of a device move that named no live proxy
  std::uint32_t statics_moved;  ///< a device move gave a static proxy a new box
  std::uint32_t first_invalid;  ///< the first moving proxy (its place in the list) with an
                                ///< invalid box
  std::uint32_t unused;
  unsigned long long pairs;              ///< pairs found in the static cells
  unsigned long long moving_pairs;       ///< of which pairs of two moving proxies
  unsigned long long candidates;         ///< tested in the static cells
  unsigned long long moving_candidates;  ///< of which moving listings
  unsigned long long excluded;           ///< moving proxies with invalid boxes (counted there)
  unsigned long long found;              ///< the walk's found pairs, when it finds events
  unsigned long long lost;               ///< the walk's lost pairs, when it finds events
  std::uint64_t moving_listings;         ///< the moving proxies' listings in the static cells

  RSW_HOST_DEVICE static Pending none() { return {kNone, 0, kNone, 0, 0, 0, 0, 0, 0, 0, 0, 0}; }
};

/// Hands the counts to the host (pinned memory, which the device writes) and leaves them as
/// between steps: a copy and a clear in one launch.
__global__ void copy_and_clear_pending(Pending* pending, Pending* host) {
  *host = *pending;
  *pending = Pending::none();
}

__global__ void scatter_boxes(const std::uint32_t* slots, const Aabb* boxes, std::size_t count,
                              Aabb* by_slot) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i < count) by_slot[slots[i]] = boxes[i];
}

__global__ void move_by_id(const ProxyId* ids, const Aabb* boxes, std::size_t count,
                           const std::uint32_t* generations, const SlotState* states,
                           std::size_t slots, Aabb* by_slot, Pending* pending) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i >= count) return;
  const ProxyId id = ids[i];
  const bool live = id.index < slots && states[id.index] != SlotState::Free &&
                    generations[id.index] == id.generation;
  if (!live) {
    atomicMin(&pending->first_stale, static_cast<std::uint32_t>(i));
    return;
  }
  by_slot[id.index] = boxes[i];
  if (states[id.index] == SlotState::Static) pending->statics_moved = 1;
}

/// The summary of one static proxy's box, for the reduction.
struct StaticSummary {
  const std::uint32_t* statics;
  const Aabb* boxes;
  const std::uint32_t* categories;
  __device__ BoxSummary operator()(std::uint32_t i) const {
    BoxSummary summary = BoxSummary::empty();
    const std::uint32_t slot = statics[i];
    float low[3];
    float high[3];
    corners(boxes[slot], low, high);
    if (!box_is_valid(low, high)) {
      summary.invalid = 1;
      summary.first_invalid = i;
    } else if (categories[slot] != 0) {
      summary.add(low, high);
    }
    return summary;
  }
};

struct MergeSummaries {
  __device__ BoxSummary operator()(BoxSummary a, const BoxSummary& b) const {
    a.merge(b);
    return a;
  }
};

/// Listings of static i: the cells it covers, or 0 when it is invalid or pairs with nothing.
__device__ inline std::uint32_t static_listings(const StaticCellsView& view, const Aabb& box,
                                                std::uint32_t category) {
  float low[3];
  float high[3];
  corners(box, low, high);
  if (category == 0 || !box_is_valid(low, high)) return 0;
  const CellGrid& grid = view.grid;
  return grid.cells_of(low[grid.axis_u], high[grid.axis_u], low[grid.axis_v], high[grid.axis_v])
      .size();
}

__global__ void count_listings(StaticCellsView view, const std::uint32_t* statics,
                               std::uint32_t count, const Aabb* boxes,
                               const std::uint32_t* categories, std::uint32_t* counts) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i > count) return;
  counts[i] = i < count ? static_listings(view, boxes[statics[i]], categories[statics[i]]) : 0;
}

__global__ void write_listing_keys(StaticCellsView view, int cell_bits,
                                   const std::uint32_t* statics, std::uint32_t count,
                                   const Aabb* boxes, const std::uint32_t* categories,
                                   const unsigned long long* offsets, std::uint64_t* keys,
                                   std::uint32_t* values) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  const std::uint32_t slot = statics[i];
  if (static_listings(view, boxes[slot], categories[slot]) == 0) return;
  float low[3];
  float high[3];
  corners(boxes[slot], low, high);
  const StaticListing listing = make_listing(view, low, high, slot);
  const bool small = is_small_static(listing.min_s, listing.max_s, view.small_extent);
  const CellGrid& grid = view.grid;
  const CellRange range = grid.cells_of(listing.min_u, listing.max_u, listing.min_v, listing.max_v);
  unsigned long long next = offsets[i];
  for (std::uint32_t u = range.u0; u <= range.u1; ++u) {
    for (std::uint32_t v = range.v0; v <= range.v1; ++v, ++next) {
      keys[next] = listing_key(small, grid.cell_id(u, v), cell_bits, listing.min_s);
      values[next] = slot;
    }
  }
}

__global__ void gather_listings(StaticCellsView view, const std::uint32_t* slots,
                                std::uint32_t count, const Aabb* boxes, StaticListing* out) {
  const std::uint32_t j = blockIdx.x * kThreads + threadIdx.x;
  if (j >= count) return;
  float low[3];
  float high[3];
  corners(boxes[slots[j]], low, high);
  out[j] = make_listing(view, low, high, slots[j]);
}

__global__ void find_cell_starts(const std::uint64_t* keys, std::uint32_t count,
                                 std::uint32_t cells, int cell_bits, std::uint32_t* small_start,
                                 std::uint32_t* long_start) {
  const std::uint32_t cell = blockIdx.x * kThreads + threadIdx.x;
  if (cell > cells) return;
  const auto lower_bound = [&](std::uint64_t key) {
    std::uint32_t low = 0;
    std::uint32_t high = count;
    while (low < high) {
      const std::uint32_t middle = low + (high - low) / 2;
      if (keys[middle] < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  };
  small_start[cell] = lower_bound(first_key_of(true, cell, cell_bits));
  long_start[cell] = lower_bound(first_key_of(false, cell, cell_bits));
}

/// A sorted static listing key's run: small or long, and the cell.
struct RunOfKey {
  __device__ std::uint64_t operator()(std::uint64_t key) const { return key >> 32; }
};
struct MaxSOf {
  __device__ float operator()(const StaticListing& listing) const { return listing.max_s; }
};

/// Thread j: listing j's reach (mark_reaches) from the scan that found it.
__global__ void set_reaches(StaticListing* listings, const float* reaches, std::uint32_t count) {
  const std::uint32_t j = blockIdx.x * kThreads + threadIdx.x;
  if (j < count) listings[j].place = __float_as_uint(reaches[j]);
}

/// The moving proxies' boxes as the sweep reads them (six arrays), their filter bits and
/// worlds; the first invalid one noted.
struct MovingArrays {
  float* min[3];
  float* max[3];
  std::uint32_t* categories;
  std::uint32_t* masks;
  std::uint32_t* worlds;
};

/// Filter bits and worlds by slot.
struct SlotFilters {
  const std::uint32_t* categories;
  const std::uint32_t* masks;
  const std::uint32_t* worlds;
};

__global__ void gather_moving(const std::uint32_t* moving, std::uint32_t count, const Aabb* boxes,
                              SlotFilters filters, MovingArrays out, Pending* pending) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  const std::uint32_t slot = moving[i];
  float low[3];
  float high[3];
  corners(boxes[slot], low, high);
#pragma unroll
  for (int axis = 0; axis < 3; ++axis) {
    out.min[axis][i] = low[axis];
    out.max[axis][i] = high[axis];
  }
  out.categories[i] = filters.categories[slot];
  out.masks[i] = filters.masks[slot];
  out.worlds[i] = filters.worlds[slot];
  if (!box_is_valid(low, high)) atomicMin(&pending->first_invalid, i);
}

/// A slot's box at one step as the events read it: one sector, and NaN where the slot held
/// no proxy (so that it pairs with nothing).
struct alignas(32) StepBox {
  float low[3];
  float high[3];
  float unused[2];
};
static_assert(sizeof(StepBox) == 32, "a step box is one sector");

/// A box as a step box.
__device__ inline StepBox step_box(const Aabb& box) {
  StepBox step;
  corners(box, step.low, step.high);
  step.unused[0] = step.unused[1] = 0;
  return step;
}

/// A step box with NaN bounds: the box of a slot that held no proxy.
__device__ inline StepBox no_step_box() {
  const float nan = __int_as_float(0x7FC00000);
  return {{nan, nan, nan}, {nan, nan, nan}, {0, 0}};
}

__global__ void step_boxes(const Aabb* boxes, const SlotState* states, std::size_t slots,
                           StepBox* out) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i < slots) out[i] = states[i] == SlotState::Free ? no_step_box() : step_box(boxes[i]);
}

/// Thread i: moving proxy i's box as its slot's step box.
__global__ void keep_boxes(const std::uint32_t* moving, std::uint32_t count, const Aabb* boxes,
                           StepBox* out) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i < count) out[moving[i]] = step_box(boxes[moving[i]]);
}

/// The slots' boxes at one step.
struct StepBoxes {
  const StepBox* boxes;
  std::uint32_t slots;

  /// A slot's box; NaN for a slot made since.
  __device__ StepBox at(std::uint32_t slot) const {
    return slot < slots ? boxes[slot] : no_step_box();
  }
};

/// Whether boxes a and b are valid and overlap on every axis (closed intervals).
__device__ inline bool valid_and_overlapping(const StepBox& a, const StepBox& b) {
  if (!box_is_valid(a.low, a.high) || !box_is_valid(b.low, b.high)) return false;
  for (int axis = 0; axis < 3; ++axis) {
    if (!(a.low[axis] <= b.high[axis] && b.low[axis] <= a.high[axis])) return false;
  }
  return true;
}

/// Whether p (a < b), a pair at some step, is one at the step of `at`: both slots held proxies
/// then, with valid boxes that overlap. A slot never holds two proxies at two steps in a row
/// (a destroyed proxy's slot waits two steps), and filter bits and motions never change, so
/// nothing else can differ.
__device__ bool paired_at(const StepBoxes& at, Pair p) {
  return valid_and_overlapping(at.at(p.a), at.at(p.b));
}

/// Appends p to out where `keep` holds, one atomic a warp; every lane of the warp calls it.
__device__ void append_where(bool keep, Pair p, Pair* out, unsigned long long* count) {
  const unsigned int keeps = __ballot_sync(0xFFFFFFFFu, keep);
  if (keeps == 0) return;
  const std::uint32_t lane = threadIdx.x & 31;
  const int leader = __ffs(static_cast<int>(keeps)) - 1;
  unsigned long long base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(count, __popc(keeps));
  base = __shfl_sync(0xFFFFFFFFu, base, leader);
  if (keep) out[base + __popc(keeps & ((1u << lane) - 1))] = p;
}

/// The box by which a moving proxy is listed in the static cells: this step's or, when the
/// walk finds the step's events too, the smallest box holding this step's and the last step's
/// (either alone when the other is invalid or the slot was free), so that every pair of
/// either step is met.
struct ListedBoxes {
  const Aabb* boxes;  ///< this step's, by slot
  StepBoxes last;     ///< the last step's, by slot
  bool unite;

  __device__ Aabb of(std::uint32_t slot) const {
    const Aabb now = boxes[slot];
    if (!unite) return now;
    const StepBox then = last.at(slot);
    float low[3];
    float high[3];
    corners(now, low, high);
    if (!box_is_valid(then.low, then.high)) return now;
    if (!box_is_valid(low, high)) {
      return {{then.low[0], then.low[1], then.low[2]}, {then.high[0], then.high[1], then.high[2]}};
    }
    return {
        {fminf(low[0], then.low[0]), fminf(low[1], then.low[1]), fminf(low[2], then.low[2])},
        {fmaxf(high[0], then.high[0]), fmaxf(high[1], then.high[1]), fmaxf(high[2], then.high[2])}};
  }
};

/// Steps of the statics' range on s: 2^bits of them, a coordinate's step clamped at the ends
/// (NaN in the first). The step is monotone in the coordinate: a coordinate in a later step is
/// larger.
struct SSteps {
  int bits = 8;
  float origin = 0;   ///< the statics' lowest min_s
  float inverse = 1;  ///< steps per unit length

  __device__ std::uint32_t step_of(float s) const {
    const float position = (s - origin) * inverse;
    const std::uint32_t last = (1u << bits) - 1;
    if (!(position > 0.0f)) return 0;
    return position >= static_cast<float>(last) ? last : static_cast<std::uint32_t>(position);
  }
};

/// How the moving proxies' listings in the static cells are ordered, without a sort: by
/// bucket, a cell and then a step of the listing's min_s (cell << steps.bits | step). Inside a
/// cell the listings come in the order of their steps, which is monotone in min_s: enough for
/// the moving walk of cell_pairs to know where to stop. Inside a bucket they come in no
/// particular order; the walk from a listing meets every later one of its bucket.
struct MovingBuckets {
  SSteps steps;
  std::uint32_t count = 0;  ///< cells << steps.bits

  __device__ std::uint32_t of(std::uint32_t cell, float min_s) const {
    return cell << steps.bits | steps.step_of(min_s);
  }
};

/// Where the walk of a cell's small statics starts for a box that starts on s in a given step:
/// first[(cell << steps.bits) + t] is the first small listing of the cell whose reach lies in
/// step t or after. The reaches of the listings before it lie in earlier steps, so they end
/// before any box that starts in step t: none of them can meet it.
struct WalkEntries {
  const std::uint32_t* first = nullptr;
  SSteps steps;

  __device__ std::uint32_t of(std::uint32_t cell, float min_s) const {
    return first[(std::size_t{cell} << steps.bits) + steps.step_of(min_s)];
  }
};

/// Thread i: entry i of the walk's table (WalkEntries), found by a binary search of its cell's
/// small run (whose reaches rise).
__global__ void find_walk_entries(StaticCellsView view, SSteps steps, std::uint32_t* first) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i >= std::size_t{view.cells} << steps.bits) return;
  const auto cell = static_cast<std::uint32_t>(i >> steps.bits);
  const auto step = static_cast<std::uint32_t>(i & ((std::size_t{1} << steps.bits) - 1));
  std::uint32_t low = view.small_start[cell];
  std::uint32_t high = view.small_start[cell + 1];
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (steps.step_of(reach_of(view.listings[middle])) < step) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  first[i] = low;
}

/// The moving listings the kernels after write_moving_listings read: their count, or the room
/// when they did not all fit (the host then lists them again into more).
__device__ inline unsigned long long listed_moving(const Pending* listed, unsigned long long room) {
  return listed->moving_listings < room ? listed->moving_listings : room;
}

/// Calls list(listing, cell, bucket) for each static cell that the moving proxy in `slot` is
/// listed in (none when its listed box is invalid or it pairs with nothing), with its listing
/// there as the walks read it (placed as the sweep's listings are, see place_of).
template <class List>
__device__ void for_each_moving_listing(const StaticCellsView& view, MovingBuckets buckets,
                                        ListedBoxes listed, const std::uint32_t* categories,
                                        std::uint32_t slot, List&& list) {
  const Aabb box = listed.of(slot);
  if (static_listings(view, box, categories[slot]) == 0) return;
  float low[3];
  float high[3];
  corners(box, low, high);
  StaticListing listing = make_listing(view, low, high, slot);
  const CellGrid& grid = view.grid;
  const CellRange range = grid.cells_of(listing.min_u, listing.max_u, listing.min_v, listing.max_v);
  for (std::uint32_t u = range.u0; u <= range.u1; ++u) {
    for (std::uint32_t v = range.v0; v <= range.v1; ++v) {
      const std::uint32_t cell = grid.cell_id(u, v);
      listing.place = place_of(cell, u == range.u0, v == range.v0);
      list(listing, buckets.of(cell, listing.min_s));
    }
  }
}

/// Thread i: moving proxy i's listings counted in their buckets; the first invalid box of this
/// step noted.
__global__ void count_moving_buckets(StaticCellsView view, MovingBuckets buckets,
                                     const std::uint32_t* moving, std::uint32_t count,
                                     ListedBoxes listed, const std::uint32_t* categories,
                                     std::uint32_t* bucket_counts, Pending* pending) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  const std::uint32_t slot = moving[i];
  for_each_moving_listing(
      view, buckets, listed, categories, slot,
      [&](const StaticListing&, std::uint32_t bucket) { atomicAdd(&bucket_counts[bucket], 1u); });
  float low[3];
  float high[3];
  corners(listed.boxes[slot], low, high);
  if (!box_is_valid(low, high)) {
    atomicMin(&pending->first_invalid, i);
    atomicAdd(&pending->excluded, 1ull);
  }
}

/// Thread i: moving proxy i's listings written in their buckets, which start at
/// bucket_offsets, from the end of each (a listing takes the place its bucket's count comes
/// down to, so that the counts end at zero, ready for the next step), up to `room`;
/// pending->moving_listings gets their number.
__global__ void write_moving_listings(StaticCellsView view, MovingBuckets buckets,
                                      const std::uint32_t* moving, std::uint32_t count,
                                      ListedBoxes listed, const std::uint32_t* categories,
                                      const unsigned long long* bucket_offsets,
                                      std::uint32_t* bucket_counts, unsigned long long room,
                                      StaticListing* out, Pending* pending) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i == 0) pending->moving_listings = bucket_offsets[buckets.count];
  if (i >= count) return;
  for_each_moving_listing(view, buckets, listed, categories, moving[i],
                          [&](const StaticListing& listing, std::uint32_t bucket) {
                            const unsigned long long at =
                                bucket_offsets[bucket] + atomicSub(&bucket_counts[bucket], 1u) - 1;
                            if (at < room) out[at] = listing;
                          });
}

/// Whether two boxes in the grid's terms overlap on every axis (closed intervals).
__device__ inline bool overlap(const StaticListing& a, const StaticListing& b) {
  return a.min_s <= b.max_s && b.min_s <= a.max_s && a.min_u <= b.max_u && b.min_u <= a.max_u &&
         a.min_v <= b.max_v && b.min_v <= a.max_v;
}

/// Whether moving listings e and f of one cell overlap on every axis and the cell is their
/// pair's home.
__device__ inline bool moving_meet(const StaticListing& e, const StaticListing& f) {
  return overlap(e, f) && is_home_cell(e.place, f.place);
}

constexpr int kWarps = kThreads / 32;
constexpr unsigned int kFullWarp = 0xFFFFFFFFu;
/// Listings a lane of cell_pairs tests at once (their loads issued together).
constexpr int kQueryUnroll = 4;
/// Pairs a warp of cell_pairs holds in shared memory before it appends them with one atomic.
constexpr std::uint32_t kWarpPairs = 256;
static_assert(kWarpPairs >= 2 * kQueryUnroll * 32,
              "cell_pairs flushes past half a buffer, and a pass adds kQueryUnroll * 32");

/// The static grid sweeps the moving proxies too while it has at most this many of them a
/// cell on average (a BroadPhase frame's grid has a few hundred boxes a cell)...
constexpr std::uint64_t kMovingPerCell = 512;
/// ...and they meet at most this many candidates a listing there (a uniform cloud's listings
/// meet about 11 in a BroadPhase frame).
constexpr std::uint64_t kMovingCandidates = 48;
/// Steps a grid planned from the moving proxies that served them badly waits before it is
/// planned again (a plan costs a summary read by the host).
constexpr std::uint32_t kStepsBetweenMovingPlans = 32;
/// Without statics, the moving proxies are swept in a grid of their own (events found by the
/// walk) up to this many; more take a BroadPhase frame and the events after it. Measured on
/// an H100, all moving in a uniform cloud: the walk 1.45x at 100K and 200K, 1.14x at 400K,
/// 0.94x at 700K and 0.86x at 1M.
constexpr std::uint64_t kMovingGridMost = std::uint64_t{1} << 19;
/// The most moving proxies a grid planned from their own boxes serves: kMovingGridMost, or none
/// with the developer override RSW_WORLD_MOVING_SWEEP=frame (docs/DEVELOPING.md), under which
/// a world without statics always sweeps its moving proxies in a BroadPhase frame (so that
/// tests reach that path at small sizes). Read when a world's GPU backend is made.
std::uint64_t moving_grid_most_from_environment() {
  const char* value = std::getenv("RSW_WORLD_MOVING_SWEEP");
  if (value == nullptr || std::string_view(value) == "auto") return kMovingGridMost;
  if (std::string_view(value) == "frame") return 0;
  throw Error(ErrorKind::InvalidArgument,
              "RSW_WORLD_MOVING_SWEEP=" + std::string(value) + ": not one of auto, frame");
}

/// Blocks of cell_pairs resident on a multiprocessor (a register bound that the walk without
/// events meets anyway; with events it would take a few more and fit only two blocks).
constexpr int kCellPairsBlocks = 3;

/// What a lane of cell_pairs walks: the cell's small statics, its long ones, then the moving
/// listings after its own.
enum Walk : int { kSmallStatics, kLongStatics, kMovingListings };

/// A pair of slots named by its proxies' ids, with the slots' generations.
__device__ inline ProxyPair named_pair(Pair p, const std::uint32_t* generations) {
  return {{p.a, generations[p.a]}, {p.b, generations[p.b]}};
}

/// What cell_pairs needs to find the step's events as it walks: the boxes of both steps by
/// slot, and where found and lost go.
struct EventsOut {
  const Aabb* boxes;  ///< this step's, by slot
  StepBoxes last;     ///< the last step's, by slot
  Pair* found;
  unsigned long long found_capacity;
  Pair* lost;
  unsigned long long lost_capacity;
  /// Where found and lost also go named by their proxies (with the slots' generations), so
  /// that their device spans need no pass of their own; null: they are not named here.
  const std::uint32_t* generations;
  ProxyPair* named_found;
  ProxyPair* named_lost;
};

/// A pair's steps, as the events' walk classifies it: a pair at this step, at the last, both;
/// kAsk for a pair of two moving proxies, whose boxes are read when the warp's buffer is
/// flushed.
constexpr std::uint8_t kNow = 1;
constexpr std::uint8_t kThen = 2;
constexpr std::uint8_t kAsk = 4;

/// A slot's box in the grid's terms, min_s NaN when it is no valid box (so that it overlaps
/// nothing).
__device__ inline StaticListing grid_box(const StaticCellsView& view, const float (&low)[3],
                                         const float (&high)[3], std::uint32_t slot) {
  StaticListing box = make_listing(view, low, high, slot);
  if (!box_is_valid(low, high)) box.min_s = __int_as_float(0x7FC00000);
  return box;
}

/// The steps at which p, two live proxies whose listed boxes meet, is a pair: both boxes read
/// by slot.
__device__ inline std::uint8_t steps_paired(const EventsOut& events, Pair p) {
  const bool now = valid_and_overlapping(step_box(events.boxes[p.a]), step_box(events.boxes[p.b]));
  return (now ? kNow : 0) | (paired_at(events.last, p) ? kThen : 0);
}

/// The pairs found in the static cells. The moving proxies are listed in the static cells in
/// order of bucket (cell, step of min_s), and a warp takes 32 consecutive listings, a lane each:
/// query_static_cells's walk in that cell (from the proxy's entry into the small statics, in
/// place of the binary search, kQueryUnroll listings at a time up to its max_s, then the cell's
/// long statics, if it has any), and with kMovingWalk a sweep over the moving listings after its
/// own in the cell, up to the step of its max_s (each pair of moving listings is tested once, from
/// the earlier, and reported in its home cell). Neighbouring lanes walk neighbouring stretches of
/// one run, so their loads mostly meet in L1. Without kFilters every proxy has the default
/// filter bits and none is read. Pairs go to `out` up to `capacity`; pending->pairs counts
/// them all (more than the capacity: the host grows the buffer and runs it again).
///
/// With kEvents the moving proxies are listed by the union of this step's and the last step's
/// boxes (ListedBoxes), so that the walk meets every pair of either step; each pair met is
/// tested at both steps (a static against the lane's two boxes, kept in shared memory; two
/// moving proxies by steps_paired when the buffer is flushed) and goes to `out` when it is one
/// now, to found when it is one only now, to lost when only at the last step (found and lost
/// also named by their proxies when `events` asks for it). That needs the
/// statics as they were at the last step and every proxy of the last step alive (the host sees
/// to both).
template <bool kFilters, bool kMovingWalk, bool kEvents>
__global__ void __launch_bounds__(kThreads, kCellPairsBlocks)
    cell_pairs(StaticCellsView view, WalkEntries entries, SSteps moving_steps,
               const StaticListing* moving_listings, const Pending* listed, unsigned long long room,
               Pair* out, unsigned long long capacity, EventsOut events, Pending* pending) {
  __shared__ Pair buffered[kWarps][kWarpPairs];
  __shared__ std::uint8_t buffered_steps[kWarps][kEvents ? kWarpPairs : 1];
  // With kEvents, this thread's moving proxy's boxes at this step and the last.
  __shared__ StaticListing lane_boxes[kEvents ? 2 : 1][kEvents ? kThreads : 1];
  const std::uint32_t lane = threadIdx.x & 31;
  const std::uint32_t lanes_below = (1u << lane) - 1;
  Pair* buffer = buffered[threadIdx.x >> 5];
  std::uint8_t* buffer_steps = buffered_steps[threadIdx.x >> 5];
  std::uint32_t held = 0;  // the same in every lane
  std::uint32_t candidates = 0;
  std::uint32_t moving_candidates = 0;
  std::uint32_t moving_pairs = 0;
  const auto flush = [&] {
    __syncwarp();
    if constexpr (kEvents) {
      // The steps of the moving pairs resolved and each kind counted, then one atomic a kind,
      // then the writes.
      std::uint32_t kinds[3] = {0, 0, 0};  // pairs, found, lost: the same in every lane
      for (std::uint32_t first = 0; first < held; first += 32) {
        const std::uint32_t k = first + lane;
        std::uint8_t steps = k < held ? buffer_steps[k] : 0;
        if (steps == kAsk) {
          steps = steps_paired(events, buffer[k]);
          buffer_steps[k] = steps;
          moving_pairs += (steps & kNow) != 0 ? 1u : 0u;
        }
        kinds[0] += __popc(__ballot_sync(kFullWarp, (steps & kNow) != 0));
        kinds[1] += __popc(__ballot_sync(kFullWarp, steps == kNow));
        kinds[2] += __popc(__ballot_sync(kFullWarp, steps == kThen));
      }
      // Lane 0 takes the pairs' room, lane 1 the found's, lane 2 the lost's.
      const std::uint32_t mine = lane == 0 ? kinds[0] : (lane == 1 ? kinds[1] : kinds[2]);
      unsigned long long* my_count =
          lane == 0 ? &pending->pairs : (lane == 1 ? &pending->found : &pending->lost);
      unsigned long long my_base = 0;
      if (lane < 3 && mine > 0)
        my_base = atomicAdd(my_count, static_cast<unsigned long long>(mine));
      Pair* outs[3] = {out, events.found, events.lost};
      const unsigned long long capacities[3] = {capacity, events.found_capacity,
                                                events.lost_capacity};
#pragma unroll
      for (int kind = 0; kind < 3; ++kind) {
        unsigned long long next = __shfl_sync(kFullWarp, my_base, kind);
        for (std::uint32_t first = 0; first < held; first += 32) {
          const std::uint32_t k = first + lane;
          const std::uint8_t steps = k < held ? buffer_steps[k] : 0;
          const bool in = kind == 0 ? (steps & kNow) != 0 : steps == (kind == 1 ? kNow : kThen);
          const unsigned int ins = __ballot_sync(kFullWarp, in);
          const unsigned long long at = next + __popc(ins & lanes_below);
          if (in && at < capacities[kind]) {
            outs[kind][at] = buffer[k];
            ProxyPair* named = kind == 1 ? events.named_found : events.named_lost;
            if (kind > 0 && named != nullptr) named[at] = named_pair(buffer[k], events.generations);
          }
          next += __popc(ins);
        }
      }
    } else {
      unsigned long long base = 0;
      if (lane == 0) base = atomicAdd(&pending->pairs, static_cast<unsigned long long>(held));
      base = __shfl_sync(kFullWarp, base, 0);
      for (std::uint32_t k = lane; k < held; k += 32) {
        if (base + k < capacity) out[base + k] = buffer[k];
      }
    }
    held = 0;
    __syncwarp();
  };
  const auto admitted = [&](const MovingQuery& m, std::uint32_t slot) {
    if constexpr (kFilters) {
      return admits(view, m, slot);
    } else {
      return true;
    }
  };
  const StaticListing* statics = view.listings;
  const unsigned long long count = listed_moving(listed, room);
  const unsigned long long chunks = (count + 31) / 32;
  for (unsigned long long chunk = blockIdx.x * kWarps + (threadIdx.x >> 5); chunk < chunks;
       chunk += std::uint64_t{gridDim.x} * kWarps) {
    const unsigned long long k = chunk * 32 + lane;
    bool active = k < count;
    Walk walk = kSmallStatics;
    StaticListing e{};
    MovingQuery m{};
    std::uint32_t cell = 0;
    std::uint32_t last_step = 0;  // the step of e's max_s
    unsigned long long j = 0;
    unsigned long long end = 0;
    if (active) {
      e = moving_listings[k];
      cell = e.place & kCellBits;
      m = {e.min_u, e.max_u, e.min_v, e.max_v, e.min_s, e.max_s, 1u, 0xFFFFFFFFu, 0u};
      if constexpr (kFilters) {
        m.category = view.categories[e.slot];
        m.mask = view.masks[e.slot];
        m.world = view.worlds[e.slot];
      }
      last_step = moving_steps.step_of(e.max_s);
      if constexpr (kEvents) {
        const StepBox now = step_box(events.boxes[e.slot]);
        const StepBox then = events.last.at(e.slot);
        lane_boxes[0][threadIdx.x] = grid_box(view, now.low, now.high, e.slot);
        lane_boxes[1][threadIdx.x] = grid_box(view, then.low, then.high, e.slot);
      }
      j = entries.of(cell, m.min_s);
      end = view.small_start[cell + 1];
    }
    // The lanes walk the statics together and then the moving listings together, so that the
    // warp runs one kind of walk at a time.
    bool moving_next = false;  // the lane walks the moving listings once the statics are done
    for (;;) {
      while (__any_sync(kFullWarp, active)) {
        const bool moving_walk = walk == kMovingListings;
        const StaticListing* from = moving_walk ? moving_listings : statics;
        StaticListing t[kQueryUnroll];
        bool loaded[kQueryUnroll];
#pragma unroll
        for (int u = 0; u < kQueryUnroll; ++u) {
          loaded[u] = active && j + u < end;
          if (loaded[u]) t[u] = from[j + u];
        }
        bool run = true;  // every listing so far is in the walk's run
        bool hit[kQueryUnroll];
        std::uint8_t steps[kQueryUnroll];
#pragma unroll
        for (int u = 0; u < kQueryUnroll; ++u) {
          if (moving_walk) {
            run = run && loaded[u] && (t[u].place & kCellBits) == cell &&
                  moving_steps.step_of(t[u].min_s) <= last_step;
            moving_candidates += run ? 1u : 0u;
            hit[u] = run && moving_meet(e, t[u]) && admitted(m, t[u].slot);
          } else {
            run = run && loaded[u] && t[u].min_s <= m.max_s;
            hit[u] = run && meets_in_cell(view, cell, m, t[u]) && admitted(m, t[u].slot);
          }
          steps[u] = kNow;
          if constexpr (kEvents) {  // a static's box is the same at both steps
            if (moving_walk) {
              steps[u] = kAsk;
            } else if (hit[u]) {
              steps[u] = (overlap(lane_boxes[0][threadIdx.x], t[u]) ? kNow : 0) |
                         (overlap(lane_boxes[1][threadIdx.x], t[u]) ? kThen : 0);
              hit[u] = steps[u] != 0;
            }
          } else {
            moving_pairs += moving_walk && hit[u] ? 1u : 0u;
          }
          candidates += run ? 1u : 0u;
        }
        if (active) {  // on, or to the next walk that has listings to test
          if (run) {
            j += kQueryUnroll;
          } else if (walk == kSmallStatics && view.long_start[cell] < view.long_start[cell + 1]) {
            walk = kLongStatics;
            j = view.long_start[cell];
            end = view.long_start[cell + 1];
          } else if (kMovingWalk && walk != kMovingListings) {
            walk = kMovingListings;
            j = k + 1;
            end = count;
            active = false;
            moving_next = true;
          } else {
            active = false;
          }
        }
#pragma unroll
        for (int u = 0; u < kQueryUnroll; ++u) {
          const unsigned int hits = __ballot_sync(kFullWarp, hit[u]);
          const std::uint32_t at = held + __popc(hits & lanes_below);
          if (hit[u]) {
            buffer[at] = ordered_pair(e.slot, t[u].slot);
            if constexpr (kEvents) buffer_steps[at] = steps[u];
          }
          held += __popc(hits);
        }
        if (held > kWarpPairs - kQueryUnroll * 32) flush();
      }
      if (!__any_sync(kFullWarp, moving_next)) break;
      active = moving_next;
      moving_next = false;
    }
  }
  if (held > 0) flush();
  const std::uint32_t warp_candidates = __reduce_add_sync(kFullWarp, candidates);
  const std::uint32_t warp_moving_candidates = __reduce_add_sync(kFullWarp, moving_candidates);
  const std::uint32_t warp_moving_pairs = __reduce_add_sync(kFullWarp, moving_pairs);
  if (lane == 0) {
    if (warp_candidates > 0) {
      atomicAdd(&pending->candidates, static_cast<unsigned long long>(warp_candidates));
    }
    if (warp_moving_candidates > 0) {
      atomicAdd(&pending->moving_candidates,
                static_cast<unsigned long long>(warp_moving_candidates));
    }
    if (warp_moving_pairs > 0) {
      atomicAdd(&pending->moving_pairs, static_cast<unsigned long long>(warp_moving_pairs));
    }
  }
}

/// The slots of a step's pairs, the lower first: from the static cells (already in slots)
/// and from the moving proxies' own sweep (places in the moving list).
struct SlotPairs {
  const Pair* pairs;
  __device__ Pair operator()(std::size_t i) const { return pairs[i]; }
};
struct MovingPairs {
  const Pair* pairs;
  const std::uint32_t* moving;
  __device__ Pair operator()(std::size_t i) const {
    const Pair p = pairs[i];
    return ordered_pair(moving[p.a], moving[p.b]);
  }
};

/// This step's pairs into `kept` (in slots), and those that were no pair at the last step
/// appended to `found`.
template <class Pairs>
__global__ void keep_and_find(Pairs pairs, std::size_t count, Pair* kept, StepBoxes last,
                              Pair* found, unsigned long long* found_count) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  const bool in = i < count;
  Pair p{};
  if (in) {
    p = pairs(i);
    kept[i] = p;
  }
  append_where(in && !paired_at(last, p), p, found, found_count);
}

/// The last step's pairs that are no pair now, appended to `lost`.
__global__ void find_lost(const Pair* pairs, std::size_t count, StepBoxes now, Pair* lost,
                          unsigned long long* lost_count) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  const bool in = i < count;
  const Pair p = in ? pairs[i] : Pair{};
  append_where(in && !paired_at(now, p), p, lost, lost_count);
}

/// A pair as the radix sort reads it: a, then b.
struct PairDecomposer {
  __host__ __device__ ::cuda::std::tuple<std::uint32_t&, std::uint32_t&> operator()(
      Pair& pair) const {
    return {pair.a, pair.b};
  }
};

/// Pairs of slots to name by their proxies' ids, and where the named pairs go.
struct PairsToName {
  const Pair* pairs = nullptr;
  std::size_t count = 0;
  ProxyPair* out = nullptr;
};

/// Thread i: pair i of `first` and then of `second`, named (named_pair).
__global__ void name_pairs(PairsToName first, PairsToName second,
                           const std::uint32_t* generations) {
  std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  const bool in_first = i < first.count;
  const PairsToName& set = in_first ? first : second;
  if (!in_first) i -= first.count;
  if (i >= set.count) return;
  set.out[i] = named_pair(set.pairs[i], generations);
}

struct Widen {
  __device__ unsigned long long operator()(std::uint32_t value) const { return value; }
};

class CudaWorld final : public WorldBackend {
 public:
  explicit CudaWorld(const ProxyTable& table) : table_(table), sweep_(make_cuda_sweep()) {
    const Pending none = Pending::none();
    pending_.upload(std::span(&none, 1));
    synchronize(nullptr);
  }

  void step(const TableChanges& changes, const WorldOptions& options, WorldStats& stats) override {
    stream_ = options.stream != nullptr ? options.stream : own_stream_.handle();
    stage_times_ = options.stage_times;
    const StreamHandle stream = stream_;
    {
      auto timer = timed("upload");
      bring_to_device(changes, stream);
    }
    if (changes.statics || !statics_built_) {
      auto timer = timed("statics");
      list_statics(options, stream);
      stats.statics_listed = true;
    } else if (moving_grid_ && !moving_grid_serves()) {
      plan_moving_grid(options, stream);
    }
    Pending pending = find_pairs(options, stats, stream);
    if (std::exchange(device_moves_, false)) {  // what the device-array moves left, read with
                                                // the step's counts
      // The live ids' boxes were written: a moved static is listed again now or, if this step
      // throws, at the next.
      if (pending.statics_moved != 0) statics_built_ = false;
      if (pending.first_stale != kNone) {
        throw Error(ErrorKind::InvalidArgument,
                    "World::move (device arrays): ids[" + std::to_string(pending.first_stale) +
                        "] names no live proxy of this world (destroyed, or of another world); "
                        "its box was not written");
      }
      if (!statics_built_) {
        auto timer = timed("statics");
        list_statics(options, stream);
        stats.statics_listed = true;
        pending = find_pairs(options, stats, stream);
      }
    }
    const auto moving = static_cast<std::uint32_t>(table_.moving().size());
    if (pending.first_invalid != kNone && options.invalid_boxes == InvalidBoxes::Reject) {
      throw invalid_proxy(table_.moving()[pending.first_invalid], stream);
    }
    // The look-up's buffers were too small: again, at the counts (a second round when the
    // listings did not fit, since the pairs were then counted from some of them only).
    const auto short_of_room = [&] {
      return pending.moving_listings > moving_records_.size() || pending.pairs > cell_pairs_.size();
    };
    const bool requery = short_of_room();
    if (requery) {
      auto timer = timed("requery");
      while (short_of_room()) {
        find_cell_pairs(moving,
                        std::max<std::size_t>(moving_records_.size(), pending.moving_listings),
                        std::max<std::size_t>(cell_pairs_.size(), pending.pairs), stream);
        hand_over_pending(stream);
        synchronize(stream);
        pending = host_pending_[0];  // what the checks above read is not counted again
      }
      if (walked_moving_) walk_stats(pending, stats.moving);
    }
    moving_listings_ = pending.moving_listings;
    if (walked_moving_ && pending.moving_candidates > kMovingCandidates * pending.moving_listings) {
      grid_serves_moving_ = false;  // until the statics are listed (or the grid planned) again
      steps_to_moving_plan_ = kStepsBetweenMovingPlans;
    }
    // Pairs of the static cells (in slots), and of the moving sweep (in moving places).
    const std::size_t cell_pairs = pending.pairs;
    const std::size_t swept_pairs = walked_moving_ ? 0 : stats.moving.pairs;
    const std::size_t count = cell_pairs + swept_pairs;
    {
      auto timer = timed("events");
      if (walked_events_) {
        found_ = {found_buffer_.data(), static_cast<std::size_t>(pending.found)};
        lost_ = {lost_buffer_.data(), static_cast<std::size_t>(pending.lost)};
        if (options.sorted_events) sort_events(stream);
      } else {
        find_events(cell_pairs, swept_pairs, options, stream);
      }
    }
    // The step stands: its pairs and state become the last step's.
    if (walked_events_) {
      std::swap(pairs_, cell_pairs_);
      keep_moving_boxes(stream);
    } else {
      std::swap(pairs_, next_);
      keep_state();
    }
    pair_count_ = count;
    pairs_sorted_ = false;
    statics_since_step_ = false;
    ready_ = {};
    if (names_events_) {  // the walk named them
      ready_[static_cast<std::size_t>(PairSet::Found)].device = true;
      ready_[static_cast<std::size_t>(PairSet::Lost)].device = true;
    }
    profiler_.end_frame();
    profiler_.flush();
    stats.upload_ms = last_ms("upload");
    stats.statics_ms = stats.statics_listed ? last_ms("statics") : 0.0;
    stats.query_ms = last_ms("query") + (requery ? last_ms("requery") : 0.0);
    stats.events_ms = last_ms("events");
    stats.excluded_proxies = stats.moving.excluded_boxes + static_excluded_;
    stats.candidates = (walked_moving_ ? 0 : stats.moving.candidates) + pending.candidates;
    stats.moving_pairs = stats.moving.pairs;
    stats.static_pairs = count - stats.moving.pairs;
    stats.pairs = count;
    stats.found = found_.size;
    stats.lost = lost_.size;
  }

  // A set asked for readies the step's events together (found and lost), with one wait.
  std::span<const Pair> host_pairs(PairSet set) override {
    const auto index = static_cast<std::size_t>(set);
    if (!ready_[index].host) {
      std::size_t copied = 0;
      for (const PairSet each : sets_with(set)) {
        const DeviceSpan<const Pair> pairs = set_of(each);
        const auto at = static_cast<std::size_t>(each);
        host_[at].resize_discarding(pairs.size);
        if (pairs.size > 0) {
          rsw::detail::copy_device_to_host(host_[at].data(), pairs.data, pairs.size_bytes(),
                                           stream_);
        }
        copied += pairs.size;
        ready_[at].host = true;
      }
      if (copied > 0) synchronize(stream_);
    }
    return {host_[index].data(), set_of(set).size};
  }

  DeviceSpan<const ProxyPair> device_pairs(PairSet set) override {
    const auto index = static_cast<std::size_t>(set);
    if (!ready_[index].device) {
      PairsToName named[2];
      std::size_t next = 0;
      for (const PairSet each : sets_with(set)) {
        const DeviceSpan<const Pair> pairs = set_of(each);
        const auto at = static_cast<std::size_t>(each);
        named_[at].resize_discarding(pairs.size);
        named[next++] = {pairs.data, pairs.size, named_[at].data()};
        ready_[at].device = true;
      }
      const std::size_t count = named[0].count + named[1].count;
      if (count > 0) {
        name_pairs<<<blocks_for(count), kThreads, 0, stream_>>>(named[0], named[1],
                                                                generations_.data());
        RSW_CUDA_CHECK_LAUNCH("launching name_pairs");
        // On the caller's stream the pairs are ready in its order; on ours, now.
        if (stream_ == own_stream_.handle()) synchronize(stream_);
      }
    }
    return {named_[index].data(), set_of(set).size};
  }

  void place(std::span<const std::uint32_t> slots, DeviceSpan<const Aabb> boxes,
             const TableChanges& changes, StreamHandle stream) override {
    stream = stream != nullptr ? stream : own_stream_.handle();
    bring_to_device(changes, stream);
    if (slots.empty()) return;
    tree_built_ = false;
    place_slots_.upload(slots, stream);
    scatter_boxes<<<blocks_for(slots.size()), kThreads, 0, stream>>>(
        place_slots_.data(), boxes.data, slots.size(), boxes_.data());
    RSW_CUDA_CHECK_LAUNCH("launching scatter_boxes");
  }

  void move(DeviceSpan<const ProxyId> ids, DeviceSpan<const Aabb> boxes,
            const TableChanges& changes, StreamHandle stream) override {
    stream = stream != nullptr ? stream : own_stream_.handle();
    bring_to_device(changes, stream);
    if (ids.size == 0) return;
    move_by_id<<<blocks_for(ids.size), kThreads, 0, stream>>>(
        ids.data, boxes.data, ids.size, generations_.data(), states_.data(), table_.slots(),
        boxes_.data(), pending_.data());
    RSW_CUDA_CHECK_LAUNCH("launching move_by_id");
    device_moves_ = true;
    tree_built_ = false;
  }

  bool on_device() const noexcept override { return true; }

  std::span<const Pair> query(std::span<const Aabb> regions, const QueryOptions& options,
                              const WorldOptions& world, const TableChanges& changes) override {
    const StreamHandle stream = world.stream != nullptr ? world.stream : own_stream_.handle();
    query_regions_.upload(regions, stream);
    const DeviceSpan<const QueryHit> hits =
        overlap_regions(query_regions_.span(), options, changes, stream);
    resize_host(query_host_hits_, hits.size, "the query's hits");
    resize_host(query_host_pairs_, hits.size, "the query's hits");
    if (hits.size > 0) {
      rsw::detail::copy_device_to_host(query_host_hits_.data(), hits.data, hits.size_bytes(),
                                       stream);
    }
    synchronize(stream);
    std::ranges::transform(query_host_hits_, query_host_pairs_.begin(), [](const QueryHit& hit) {
      return Pair{hit.query, hit.proxy.index};
    });
    return query_host_pairs_;
  }

  DeviceSpan<const QueryHit> query(DeviceSpan<const Aabb> regions, const QueryOptions& options,
                                   const WorldOptions& world, const TableChanges& changes,
                                   std::optional<std::uint32_t>& first_invalid) override {
    const StreamHandle stream = world.stream != nullptr ? world.stream : own_stream_.handle();
    first_invalid = tree_.first_invalid(regions, stream);
    if (first_invalid) {
      bring_to_device(changes, stream);  // as a query that ran would have
      return {};
    }
    const DeviceSpan<const QueryHit> hits = overlap_regions(regions, options, changes, stream);
    if (world.stream == nullptr) synchronize(stream);
    return hits;
  }

  std::span<const SlotHit> raycast(std::span<const Ray> rays, const RaycastOptions& options,
                                   const WorldOptions& world,
                                   const TableChanges& changes) override {
    const StreamHandle stream = world.stream != nullptr ? world.stream : own_stream_.handle();
    ray_uploads_.upload(rays, stream);
    const DeviceSpan<const RayHit> hits = cast_rays(ray_uploads_.span(), options, changes, stream);
    resize_host(ray_host_hits_, hits.size, "the rays' hits");
    resize_host(ray_slot_hits_, hits.size, "the rays' hits");
    if (hits.size > 0) {
      rsw::detail::copy_device_to_host(ray_host_hits_.data(), hits.data, hits.size_bytes(), stream);
    }
    synchronize(stream);
    std::ranges::transform(ray_host_hits_, ray_slot_hits_.begin(), [](const RayHit& hit) {
      return SlotHit{hit.ray, hit.proxy.index, hit.t};
    });
    return ray_slot_hits_;
  }

  DeviceSpan<const RayHit> raycast(DeviceSpan<const Ray> rays, const RaycastOptions& options,
                                   const WorldOptions& world, const TableChanges& changes,
                                   std::optional<std::uint32_t>& first_invalid) override {
    const StreamHandle stream = world.stream != nullptr ? world.stream : own_stream_.handle();
    first_invalid = tree_.first_invalid(rays, stream);
    if (first_invalid) {
      bring_to_device(changes, stream);  // as a cast that ran would have
      return {};
    }
    const DeviceSpan<const RayHit> hits = cast_rays(rays, options, changes, stream);
    if (world.stream == nullptr) synchronize(stream);
    return hits;
  }

 private:
  // The table's changes brought to the device, and the tree of the slots' boxes as they are
  // now (built again when the boxes changed since it was).
  void ready_tree(const TableChanges& changes, StreamHandle stream) {
    bring_to_device(changes, stream);
    if (tree_built_) return;
    tree_.build(boxes_.data(), states_.data(), categories_.data(),
                static_cast<std::uint32_t>(table_.slots()), stream);
    tree_built_ = true;
  }

  // Regions asked of the tree.
  DeviceSpan<const QueryHit> overlap_regions(DeviceSpan<const Aabb> regions,
                                             const QueryOptions& options,
                                             const TableChanges& changes, StreamHandle stream) {
    ready_tree(changes, stream);
    const LeafFilter filter{options.mask, options.world, worlds_.data()};
    return tree_.overlap(regions, filter, generations_.data(), stream);
  }

  // Rays cast against the tree.
  DeviceSpan<const RayHit> cast_rays(DeviceSpan<const Ray> rays, const RaycastOptions& options,
                                     const TableChanges& changes, StreamHandle stream) {
    ready_tree(changes, stream);
    const LeafFilter filter{options.mask, options.world, worlds_.data()};
    return tree_.cast(rays, filter, options.all_hits, generations_.data(), stream);
  }

  struct Ready {
    bool host = false;
    bool device = false;
  };

  // The sets readied with `set`: found and lost together, the pairs alone.
  static std::span<const PairSet> sets_with(PairSet set) {
    static constexpr PairSet kEvents[] = {PairSet::Found, PairSet::Lost};
    static constexpr PairSet kPairs[] = {PairSet::Pairs};
    if (set == PairSet::Pairs) return kPairs;
    return kEvents;
  }

  // One of the last step's sets; the pairs sorted by (a, b) the first time they are asked for.
  DeviceSpan<const Pair> set_of(PairSet set) {
    switch (set) {
      case PairSet::Found: return found_;
      case PairSet::Lost: return lost_;
      case PairSet::Pairs: break;
    }
    if (!pairs_sorted_) {
      sorted_pairs_.resize_discarding(pair_count_);
      sort_pairs(pairs_.data(), sorted_pairs_.data(), pair_count_, stream_);
      pairs_sorted_ = true;
    }
    return {sorted_pairs_.data(), pair_count_};
  }

  // in[0, count) sorted by (a, b) into out, on `stream`; the slots fit in the bits the table's
  // slots take.
  void sort_pairs(const Pair* in, Pair* out, std::size_t count, StreamHandle stream) {
    if (count == 0) return;
    const int slot_bits = std::max(1, static_cast<int>(std::bit_width(table_.slots() - 1)));
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, count, PairDecomposer{},
                                                  0, 32 + slot_bits, stream),
                   "sizing a sort of pairs");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    RSW_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, in, out, count,
                                                  PairDecomposer{}, 0, 32 + slot_bits, stream),
                   "sorting pairs");
  }

  // This step's pairs kept in next_ (in slots), found and lost by testing them against the
  // last step's state and the last step's pairs against this one's; one wait for the counts,
  // and with sorted_events a sort of each.
  void find_events(std::size_t cell_pairs, std::size_t swept_pairs, const WorldOptions& options,
                   StreamHandle stream) {
    const std::size_t count = cell_pairs + swept_pairs;
    found_ = {};
    lost_ = {};
    next_.resize_discarding(count);
    found_buffer_.resize_discarding(count);
    lost_buffer_.resize_discarding(pair_count_);
    event_counts_.fill_zero(stream);
    const auto slots = static_cast<std::uint32_t>(table_.slots());
    step_boxes_.resize_discarding(slots);
    if (slots > 0) {
      step_boxes<<<blocks_for(slots), kThreads, 0, stream>>>(boxes_.data(), states_.data(), slots,
                                                             step_boxes_.data());
      RSW_CUDA_CHECK_LAUNCH("launching step_boxes");
    }
    const StepBoxes now{step_boxes_.data(), slots};
    const StepBoxes last{last_step_boxes_.data(), last_slots_};
    if (cell_pairs > 0) {
      keep_and_find<<<blocks_for(cell_pairs), kThreads, 0, stream>>>(
          SlotPairs{cell_pairs_.data()}, cell_pairs, next_.data(), last, found_buffer_.data(),
          event_counts_.data());
      RSW_CUDA_CHECK_LAUNCH("launching keep_and_find");
    }
    if (swept_pairs > 0) {
      keep_and_find<<<blocks_for(swept_pairs), kThreads, 0, stream>>>(
          MovingPairs{sweep_->device_pairs().data, moving_.data()}, swept_pairs,
          next_.data() + cell_pairs, last, found_buffer_.data(), event_counts_.data());
      RSW_CUDA_CHECK_LAUNCH("launching keep_and_find");
    }
    if (pair_count_ > 0) {
      find_lost<<<blocks_for(pair_count_), kThreads, 0, stream>>>(
          pairs_.data(), pair_count_, now, lost_buffer_.data(), event_counts_.data() + 1);
      RSW_CUDA_CHECK_LAUNCH("launching find_lost");
    }
    host_event_counts_.copy_small_from_device(event_counts_.data(), 2, stream);
    synchronize(stream);
    found_ = {found_buffer_.data(), static_cast<std::size_t>(host_event_counts_[0])};
    lost_ = {lost_buffer_.data(), static_cast<std::size_t>(host_event_counts_[1])};
    if (options.sorted_events) sort_events(stream);
  }

  // Found and lost sorted by (a, b) (WorldOptions::sorted_events).
  void sort_events(StreamHandle stream) {
    sorted_found_.resize_discarding(found_.size);
    sorted_lost_.resize_discarding(lost_.size);
    sort_pairs(found_.data, sorted_found_.data(), found_.size, stream);
    sort_pairs(lost_.data, sorted_lost_.data(), lost_.size, stream);
    found_.data = sorted_found_.data();
    lost_.data = sorted_lost_.data();
  }

  // The moving proxies' boxes of this step kept as the last step's, in place: after a walk
  // that found the events, only theirs changed (the statics are as they were, no slot was
  // freed, and a slot created since is a moving proxy's).
  void keep_moving_boxes(StreamHandle stream) {
    const auto slots = static_cast<std::uint32_t>(table_.slots());
    const auto moving = static_cast<std::uint32_t>(table_.moving().size());
    last_step_boxes_.resize(slots, stream);
    if (moving > 0) {
      keep_boxes<<<blocks_for(moving), kThreads, 0, stream>>>(moving_.data(), moving, boxes_.data(),
                                                              last_step_boxes_.data());
      RSW_CUDA_CHECK_LAUNCH("launching keep_boxes");
    }
    last_slots_ = slots;
  }

  // This step's boxes kept as the last step's, for the next step's events.
  void keep_state() {
    std::swap(step_boxes_, last_step_boxes_);
    last_slots_ = static_cast<std::uint32_t>(table_.slots());
  }

  std::optional<StageProfiler::Scope> timed(std::string_view stage) {
    if (!stage_times_) return std::nullopt;
    return profiler_.time(stage, Backend::Cuda, stream_);
  }

  double last_ms(std::string_view stage) const {
    const auto stage_stats = profiler_.stats(stage);
    return stage_times_ && stage_stats && stage_stats->samples > 0 ? stage_stats->last_ms : 0.0;
  }

  // Pending handed to host_pending_ and left as between steps, queued on `stream`.
  void hand_over_pending(StreamHandle stream) {
    copy_and_clear_pending<<<1, 1, 0, stream>>>(pending_.data(), host_pending_.data());
    RSW_CUDA_CHECK_LAUNCH("launching copy_and_clear_pending");
  }

  // The table's changes since the last step: the per-slot arrays grown (keeping the boxes),
  // the table uploaded when proxies came or went, and the boxes the host wrote scattered.
  void bring_to_device(const TableChanges& changes, StreamHandle stream) {
    const std::size_t slots = table_.slots();
    if (changes.layout || !changes.moved.empty() || generations_.size() != slots)
      tree_built_ = false;
    if (boxes_.size() < slots) boxes_.resize(slots, stream);
    if (changes.layout || generations_.size() != slots) {
      generations_.upload(table_.generations(), stream);
      categories_.upload(table_.categories(), stream);
      masks_.upload(table_.masks(), stream);
      worlds_.upload(table_.worlds(), stream);
      states_.upload(table_.states(), stream);
      moving_.upload(table_.moving(), stream);
      statics_.upload(table_.statics(), stream);
    }
    if (!changes.moved.empty()) {
      staged_slots_.resize_discarding(changes.moved.size());
      staged_boxes_.resize_discarding(changes.moved.size());
      for (std::size_t i = 0; i < changes.moved.size(); ++i) {
        staged_slots_[i] = changes.moved[i];
        staged_boxes_[i] = table_.boxes[changes.moved[i]];
      }
      moved_slots_.upload(staged_slots_.span(), stream);
      moved_boxes_.upload(staged_boxes_.span(), stream);
      scatter_boxes<<<blocks_for(changes.moved.size()), kThreads, 0, stream>>>(
          moved_slots_.data(), moved_boxes_.data(), changes.moved.size(), boxes_.data());
      RSW_CUDA_CHECK_LAUNCH("launching scatter_boxes");
      // The staging buffers are rewritten by the next call: wait until they are read.
      synchronize(stream);
    }
  }

  // The static proxies' cells, rebuilt: summary and plan, listings counted, written, sorted by
  // (small or long, cell, min_s), gathered, and each cell's runs found. Without a valid
  // static, the grid of the moving proxies (plan_moving_grid).
  void list_statics(const WorldOptions& options, StreamHandle stream) {
    statics_built_ = false;
    statics_since_step_ = true;
    const auto count = static_cast<std::uint32_t>(table_.statics().size());
    view_ = {};
    static_excluded_ = 0;
    moving_grid_ = false;
    const BoxSummary summary =
        count > 0 ? summarize(statics_.data(), count, stream) : BoxSummary::empty();
    if (summary.invalid > 0) {
      if (options.invalid_boxes == InvalidBoxes::Reject) {
        throw invalid_proxy(table_.statics()[summary.first_invalid], stream);
      }
      static_excluded_ = summary.invalid;
    }
    if (summary.valid == 0) {
      plan_moving_grid(options, stream);
      statics_built_ = true;
      return;
    }
    StaticCellsView view = plan_view(summary, options);
    listing_counts_.resize_discarding(std::size_t{count} + 1);
    listing_offsets_.resize_discarding(std::size_t{count} + 1);
    count_listings<<<blocks_for(std::size_t{count} + 1), kThreads, 0, stream>>>(
        view, statics_.data(), count, boxes_.data(), categories_.data(), listing_counts_.data());
    RSW_CUDA_CHECK_LAUNCH("launching count_listings");
    const unsigned long long listings = scan(listing_counts_, listing_offsets_, count, stream);
    if (listings > std::uint64_t{kNone}) throw too_many_listings(listings);
    const auto total = static_cast<std::uint32_t>(listings);
    listing_keys_.resize_discarding(total);
    listing_slots_.resize_discarding(total);
    sorted_listing_keys_.resize_discarding(total);
    sorted_listing_slots_.resize_discarding(total);
    write_listing_keys<<<blocks_for(count), kThreads, 0, stream>>>(
        view, cell_bits_, statics_.data(), count, boxes_.data(), categories_.data(),
        listing_offsets_.data(), listing_keys_.data(), listing_slots_.data());
    RSW_CUDA_CHECK_LAUNCH("launching write_listing_keys");
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(
            nullptr, bytes, listing_keys_.data(), sorted_listing_keys_.data(),
            listing_slots_.data(), sorted_listing_slots_.data(), total, 0, 33 + cell_bits_, stream),
        "sizing the sort of the static listings");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    RSW_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(
            temp_.data(), bytes, listing_keys_.data(), sorted_listing_keys_.data(),
            listing_slots_.data(), sorted_listing_slots_.data(), total, 0, 33 + cell_bits_, stream),
        "sorting the static listings");
    listings_.resize_discarding(total);
    gather_listings<<<blocks_for(total), kThreads, 0, stream>>>(
        view, sorted_listing_slots_.data(), total, boxes_.data(), listings_.data());
    RSW_CUDA_CHECK_LAUNCH("launching gather_listings");
    finish_view(view, total, summary, stream);
    statics_built_ = true;
  }

  // With no valid static, a grid planned from the moving proxies' own boxes and no static
  // listings (up to moving_grid_most_ of them): the walk then sweeps the moving proxies in its
  // cells and finds the events as it goes, as with statics. Planned again when it stops
  // serving them (moving_grid_serves).
  void plan_moving_grid(const WorldOptions& options, StreamHandle stream) {
    view_ = {};
    moving_grid_ = true;
    const auto count = static_cast<std::uint32_t>(table_.moving().size());
    planned_moving_ = count;
    if (count == 0 || count > moving_grid_most_) return;
    const BoxSummary summary = summarize(moving_.data(), count, stream);
    if (summary.valid == 0) return;
    finish_view(plan_view(summary, options), 0, summary, stream);
  }

  // Whether the grid planned from the moving proxies still serves them: not seen to serve them
  // badly, at most kMovingPerCell of them a cell and at least one for every four cells, and
  // no more than moving_grid_most_; with none planned, while their number stays. A grid found to
  // serve them badly is planned again after kStepsBetweenMovingPlans steps (the BroadPhase frame
  // meanwhile).
  bool moving_grid_serves() {
    const std::uint64_t moving = table_.moving().size();
    if (view_.cells == 0) return moving == planned_moving_;
    if (!grid_serves_moving_ && steps_to_moving_plan_ > 0) {
      --steps_to_moving_plan_;
      return true;
    }
    return grid_serves_moving_ && moving <= kMovingPerCell * view_.cells &&
           4 * moving >= view_.cells && moving <= moving_grid_most_;
  }

  // The summary of the boxes of `count` slots (statics or moving proxies), read by the host.
  BoxSummary summarize(const std::uint32_t* slots, std::uint32_t count, StreamHandle stream) {
    const auto summaries =
        thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0),
                                        StaticSummary{slots, boxes_.data(), categories_.data()});
    summary_.resize_discarding(1);
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, summaries, summary_.data(), count,
                                             MergeSummaries{}, BoxSummary::empty(), stream),
                   "sizing a summary of proxies");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    RSW_CUDA_CHECK(cub::DeviceReduce::Reduce(temp_.data(), bytes, summaries, summary_.data(), count,
                                             MergeSummaries{}, BoxSummary::empty(), stream),
                   "summarizing proxies");
    BoxSummary summary;
    rsw::detail::copy_device_to_host(&summary, summary_.data(), sizeof(summary), stream);
    synchronize(stream);
    return summary;
  }

  // The axis and grid of the cells, planned from a summary.
  StaticCellsView plan_view(const BoxSummary& summary, const WorldOptions& options) {
    StaticCellsView view;
    view.axis = plan_axis(summary, options.axis);
    view.grid = plan_grid(summary, view.axis);
    view.small_extent = small_extent_of(summary, view.axis);
    view.cells = view.grid.cells();
    cell_bits_ = std::bit_width(view.cells);
    return view;
  }

  // The cells' runs of the `total` static listings (sorted and gathered), their reaches and
  // walk entries; the view becomes the step's.
  void finish_view(StaticCellsView view, std::uint32_t total, const BoxSummary& summary,
                   StreamHandle stream) {
    small_start_.resize_discarding(std::size_t{view.cells} + 1);
    long_start_.resize_discarding(std::size_t{view.cells} + 1);
    find_cell_starts<<<blocks_for(std::size_t{view.cells} + 1), kThreads, 0, stream>>>(
        sorted_listing_keys_.data(), total, view.cells, cell_bits_, small_start_.data(),
        long_start_.data());
    RSW_CUDA_CHECK_LAUNCH("launching find_cell_starts");
    mark_cell_reaches(total, stream);
    static_range_s_ = {sort::float_from_key(summary.low_key[view.axis]),
                       sort::float_from_key(summary.high_key[view.axis])};
    grid_serves_moving_ = true;
    view.small_start = small_start_.data();
    view.long_start = long_start_.data();
    view.listings = listings_.data();
    view_ = view;
    list_walk_entries(total, stream);
  }

  // The walk's entries (WalkEntries) into the small runs of the cells: about one step of s
  // for each listing of a cell, so that few listings before a box's start are walked.
  void list_walk_entries(std::uint32_t listings, StreamHandle stream) {
    const int bits = std::min(16, static_cast<int>(std::bit_width(listings / view_.cells)));
    walk_entries_.steps = s_steps(bits);
    const std::size_t entries = std::size_t{view_.cells} << bits;
    walk_entry_table_.resize_discarding(entries);
    find_walk_entries<<<blocks_for(entries), kThreads, 0, stream>>>(view_, walk_entries_.steps,
                                                                    walk_entry_table_.data());
    RSW_CUDA_CHECK_LAUNCH("launching find_walk_entries");
    walk_entries_.first = walk_entry_table_.data();
  }

  // Each static listing's reach (mark_reaches): the running maximum of max_s over its run (a
  // cell's small or long listings), a scan by key.
  void mark_cell_reaches(std::uint32_t total, StreamHandle stream) {
    if (total == 0) return;
    reaches_.resize_discarding(total);
    const auto runs = thrust::make_transform_iterator(sorted_listing_keys_.data(), RunOfKey{});
    const auto max_s = thrust::make_transform_iterator(listings_.data(), MaxSOf{});
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(nullptr, bytes, runs, max_s, reaches_.data(),
                                                       ::cuda::maximum<>{}, total,
                                                       ::cuda::std::equal_to<>{}, stream),
                   "sizing the scan of the statics' reaches");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    RSW_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(temp_.data(), bytes, runs, max_s,
                                                       reaches_.data(), ::cuda::maximum<>{}, total,
                                                       ::cuda::std::equal_to<>{}, stream),
                   "scanning the statics' reaches");
    set_reaches<<<blocks_for(total), kThreads, 0, stream>>>(listings_.data(), reaches_.data(),
                                                            total);
    RSW_CUDA_CHECK_LAUNCH("launching set_reaches");
  }

  // Exclusive scan of counts[0, items] (counts[items] = 0) into offsets, in 64 bits, queued.
  void scan_queued(const DeviceBuffer<std::uint32_t>& counts,
                   DeviceBuffer<unsigned long long>& offsets, std::uint32_t items,
                   StreamHandle stream) {
    const auto wide = thrust::make_transform_iterator(counts.data(), Widen{});
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, wide, offsets.data(),
                                                 std::size_t{items} + 1, stream),
                   "sizing a count scan");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, wide, offsets.data(),
                                                 std::size_t{items} + 1, stream),
                   "scanning counts");
  }

  // The same, returning the total (waiting for the stream).
  unsigned long long scan(const DeviceBuffer<std::uint32_t>& counts,
                          DeviceBuffer<unsigned long long>& offsets, std::uint32_t items,
                          StreamHandle stream) {
    scan_queued(counts, offsets, items, stream);
    unsigned long long total = 0;
    rsw::detail::copy_device_to_host(&total, offsets.data() + items, sizeof(total), stream);
    synchronize(stream);
    return total;
  }

  StaticCellsView query_view() {
    StaticCellsView view = view_;
    view.categories = categories_.data();
    view.masks = masks_.data();
    view.worlds = worlds_.data();
    return view;
  }

  // The moving proxies' listings in the static cells counted in their buckets, and the
  // buckets' offsets scanned; the first invalid box noted (queued: the total reaches the host
  // with Pending).
  void count_moving_listings(std::uint32_t moving, StreamHandle stream) {
    buckets_ = moving_buckets_for(moving);
    const std::size_t capacity_before = bucket_counts_.capacity();
    bucket_counts_.resize_discarding(std::size_t{buckets_.count} + 1);
    bucket_offsets_.resize_discarding(std::size_t{buckets_.count} + 1);
    if (!buckets_clear_ || bucket_counts_.capacity() != capacity_before) {  // or new memory
      rsw::detail::fill_bytes_zero(bucket_counts_.data(),
                                   bucket_counts_.capacity() * sizeof(std::uint32_t), stream);
    }
    buckets_clear_ = false;  // until write_moving_listings has taken every count down
    count_moving_buckets<<<blocks_for(moving), kThreads, 0, stream>>>(
        view_, buckets_, moving_.data(), moving, listed_boxes(), categories_.data(),
        bucket_counts_.data(), pending_.data());
    RSW_CUDA_CHECK_LAUNCH("launching count_moving_buckets");
    scan_queued(bucket_counts_, bucket_offsets_, buckets_.count, stream);
  }

  // How this step orders the moving listings (MovingBuckets): by cell, then by steps of min_s
  // across the statics' range, at least one for every four moving proxies a cell (so that a
  // moving walk meets few listings of the same step).
  MovingBuckets moving_buckets_for(std::uint32_t moving) const {
    const std::uint32_t per_cell = moving / std::max(view_.cells, 1u);
    int bits = std::max(2, static_cast<int>(std::bit_width(per_cell / 4)));
    while (bits > 0 && (std::uint64_t{view_.cells} << bits) >= kNone)
      --bits;
    return {s_steps(bits), view_.cells << bits};
  }

  // 2^bits steps of the statics' range on s.
  SSteps s_steps(int bits) const {
    const auto [low_s, high_s] = static_range_s_;
    return {bits, low_s,
            static_cast<float>(std::ldexp(1.0, bits) /
                               std::max(double{high_s} - double{low_s}, 1e-30))};
  }

  // The boxes the moving proxies are listed by at this step (see ListedBoxes).
  ListedBoxes listed_boxes() const {
    return {boxes_.data(), {last_step_boxes_.data(), last_slots_}, walked_events_};
  }

  // The moving proxies' listings (room for `listing_room`) written in their buckets, and the
  // pairs of the static cells into cell_pairs_, which holds `pair_room`: (moving, static), and
  // (moving, moving) too with walked_moving_, and found and lost with walked_events_; pending
  // counts them.
  void find_cell_pairs(std::uint32_t moving, std::size_t listing_room, std::size_t pair_room,
                       StreamHandle stream) {
    cell_pairs_.resize_discarding(pair_room);
    moving_records_.resize_discarding(listing_room);
    if (walked_events_) {
      found_buffer_.resize_discarding(pair_room);   // found are pairs of this step
      lost_buffer_.resize_discarding(pair_count_);  // lost, of the last step
    }
    if (view_.cells == 0 || moving == 0 || listing_room == 0) return;
    if (buckets_clear_) count_moving_listings(moving, stream);  // the counts were taken down
    write_moving_listings<<<blocks_for(moving), kThreads, 0, stream>>>(
        view_, buckets_, moving_.data(), moving, listed_boxes(), categories_.data(),
        bucket_offsets_.data(), bucket_counts_.data(), listing_room, moving_records_.data(),
        pending_.data());
    RSW_CUDA_CHECK_LAUNCH("launching write_moving_listings");
    buckets_clear_ = true;
    const std::size_t chunks = (listing_room + 31) / 32;
    const auto blocks = static_cast<unsigned int>(
        std::min<std::size_t>((chunks + kWarps - 1) / kWarps, std::size_t{8192}));
    auto& named_found = named_[static_cast<std::size_t>(PairSet::Found)];
    auto& named_lost = named_[static_cast<std::size_t>(PairSet::Lost)];
    if (names_events_) {
      named_found.resize_discarding(found_buffer_.size());
      named_lost.resize_discarding(lost_buffer_.size());
    }
    const EventsOut events{boxes_.data(),
                           {last_step_boxes_.data(), last_slots_},
                           found_buffer_.data(),
                           found_buffer_.size(),
                           lost_buffer_.data(),
                           lost_buffer_.size(),
                           generations_.data(),
                           names_events_ ? named_found.data() : nullptr,
                           names_events_ ? named_lost.data() : nullptr};
    const auto launch = [&](auto kernel) {
      kernel<<<blocks, kThreads, 0, stream>>>(
          query_view(), walk_entries_, buckets_.steps, moving_records_.data(), pending_.data(),
          listing_room, cell_pairs_.data(), pair_room, events, pending_.data());
      RSW_CUDA_CHECK_LAUNCH("launching cell_pairs");
    };
    const bool filters = table_.filtered() > 0;
    if (walked_events_) {
      filters ? launch(cell_pairs<true, true, true>) : launch(cell_pairs<false, true, true>);
    } else if (filters) {
      walked_moving_ ? launch(cell_pairs<true, true, false>)
                     : launch(cell_pairs<true, false, false>);
    } else {
      walked_moving_ ? launch(cell_pairs<false, true, false>)
                     : launch(cell_pairs<false, false, false>);
    }
  }

  // The step's pairs: the moving proxies looked up in the static cells and, while that grid
  // serves them (see walks_moving), swept among themselves there too; else a BroadPhase frame
  // of the moving proxies. One wait (the sweep's, or Pending's read) brings back what Pending
  // holds.
  Pending find_pairs(const WorldOptions& options, WorldStats& stats, StreamHandle stream) {
    const auto count = static_cast<std::uint32_t>(table_.moving().size());
    walked_moving_ = walks_moving(count);
    // The walk finds the events too when every proxy of the last step is alive and the statics
    // are as they were then.
    walked_events_ = walked_moving_ && !statics_since_step_ && table_.released().empty();
    names_events_ = walked_events_ && !options.sorted_events;
    {
      auto timer = timed("query");
      // Room for the last step's listings and an eighth more (at first four a moving proxy),
      // and for as many pairs as the buffer held (at first eight a moving proxy).
      // Without statics, none.
      std::size_t listing_room = 0;
      std::size_t pair_room = 0;
      if (view_.cells > 0 && count > 0) {
        count_moving_listings(count, stream);
        listing_room = moving_listings_ > 0 ? moving_listings_ + moving_listings_ / 8 + 256
                                            : std::size_t{4} * count;
        pair_room = std::max(cell_pairs_.capacity(), std::size_t{8} * count);
      }
      find_cell_pairs(count, listing_room, pair_room, stream);
      if (walked_moving_) hand_over_pending(stream);
    }
    stats.moving = {};
    stats.moving.backend = Backend::Cuda;
    stats.moving.boxes = count;
    if (walked_moving_) {
      synchronize(stream);
      const Pending pending = host_pending_[0];
      stats.moving.excluded_boxes = pending.excluded;
      walk_stats(pending, stats.moving);
      stats.moving_ms = 0;  // the walk is part of the look-up
      return pending;
    }
    for (auto& array : moving_arrays_)
      array.resize_discarding(count);
    moving_categories_.resize_discarding(count);
    moving_masks_.resize_discarding(count);
    moving_worlds_.resize_discarding(count);
    if (count > 0) {
      auto timer = timed("query");
      gather_moving<<<blocks_for(count), kThreads, 0, stream>>>(
          moving_.data(), count, boxes_.data(), {categories_.data(), masks_.data(), worlds_.data()},
          {{moving_arrays_[0].data(), moving_arrays_[1].data(), moving_arrays_[2].data()},
           {moving_arrays_[3].data(), moving_arrays_[4].data(), moving_arrays_[5].data()},
           moving_categories_.data(),
           moving_masks_.data(),
           moving_worlds_.data()},
          pending_.data());
      RSW_CUDA_CHECK_LAUNCH("launching gather_moving");
    }
    hand_over_pending(stream);
    BoxSource source;
    source.form = BoxSource::Form::Device;
    source.count = count;
    source.device = {moving_arrays_[0].span(), moving_arrays_[1].span(), moving_arrays_[2].span(),
                     moving_arrays_[3].span(), moving_arrays_[4].span(), moving_arrays_[5].span()};
    if (table_.filtered() > 0) {
      source.device_filter.categories = moving_categories_.span();
      source.device_filter.masks = moving_masks_.span();
      source.device_filter.worlds = moving_worlds_.span();
    }
    source.stream = stream;
    try {
      sweep_->run(source,
                  {.axis = options.axis,
                   .mode = SweepMode::Cells,
                   .invalid_boxes = InvalidBoxes::Exclude,  // Reject: named by the step
                   .sort = sort_for_backend(options.sort, Backend::Cuda),
                   .sorted_pairs = false,
                   .stage_times = options.stage_times,
                   .stream = stream},
                  stats.moving);
    } catch (...) {
      sweep_ = make_cuda_sweep();  // its carried state may be half-written
      throw;
    }
    stats.moving.backend = Backend::Cuda;
    stats.moving_ms =
        stats.moving.keys_ms + stats.moving.sort_ms + stats.moving.list_ms + stats.moving.sweep_ms;
    synchronize(stream);  // the sweep waited already; this is free
    return host_pending_[0];
  }

  // The moving proxies' sweep in the static cells, as BroadPhaseStats count a frame's.
  void walk_stats(const Pending& pending, BroadPhaseStats& moving) const {
    moving.candidates = pending.moving_candidates;
    moving.cells = view_.cells;
    moving.cell_entries = pending.moving_listings;
    moving.pairs = pending.moving_pairs;
  }

  // Whether this step sweeps the moving proxies in the static cells rather than in a
  // BroadPhase frame of their own: when statics are listed, their grid has at most
  // kMovingPerCell moving proxies a cell, and it has not been seen to serve them badly (more
  // than kMovingCandidates candidates a moving listing) since it was planned. A grid planned
  // for statics much larger or fewer than the moving proxies fails one or the other.
  bool walks_moving(std::uint32_t moving) const {
    return view_.cells > 0 && moving > 0 && moving <= std::uint64_t{kMovingPerCell} * view_.cells &&
           grid_serves_moving_;
  }

  // "World::step: proxy 7 has ..." from its box on the device.
  Error invalid_proxy(std::uint32_t slot, StreamHandle stream) {
    Aabb box;
    rsw::detail::copy_device_to_host(&box, boxes_.data() + slot, sizeof(box), stream);
    synchronize(stream);
    return table_.invalid_box_error(slot, box);
  }

  const ProxyTable& table_;
  // Ordered with the default stream: device arrays a caller readied there are ready for it.
  Stream own_stream_{StreamOrder::WithDefaultStream};
  StreamHandle stream_ = nullptr;
  bool stage_times_ = true;
  StageProfiler profiler_{{.history_frames = 1}};
  std::unique_ptr<SweepBackend> sweep_;
  // By slot.
  DeviceBuffer<Aabb> boxes_;
  DeviceBuffer<std::uint32_t> generations_;
  DeviceBuffer<std::uint32_t> categories_;
  DeviceBuffer<std::uint32_t> masks_;
  DeviceBuffer<std::uint32_t> worlds_;
  DeviceBuffer<SlotState> states_;
  DeviceBuffer<std::uint32_t> moving_;   // the table's moving list
  DeviceBuffer<std::uint32_t> statics_;  // the table's static list
  // Boxes the host wrote, staged and sent.
  PinnedBuffer<std::uint32_t> staged_slots_;
  PinnedBuffer<Aabb> staged_boxes_;
  DeviceBuffer<std::uint32_t> moved_slots_;
  DeviceBuffer<Aabb> moved_boxes_;
  DeviceBuffer<std::uint32_t> place_slots_;
  // Region and ray queries: the tree, built at the first query after the boxes changed, and
  // the host forms' copies.
  DeviceBoxTree tree_;
  bool tree_built_ = false;
  DeviceBuffer<Aabb> query_regions_;
  std::vector<QueryHit> query_host_hits_;
  std::vector<Pair> query_host_pairs_;  // (region, slot)
  DeviceBuffer<Ray> ray_uploads_;
  std::vector<RayHit> ray_host_hits_;
  std::vector<SlotHit> ray_slot_hits_;
  bool device_moves_ = false;
  DeviceBuffer<Pending> pending_;
  PinnedBuffer<Pending> host_pending_{1};
  // The static cells.
  bool statics_built_ = false;
  std::size_t static_excluded_ = 0;
  StaticCellsView view_;
  int cell_bits_ = 0;  ///< of the static grid's cell ids
  DeviceBuffer<BoxSummary> summary_;
  DeviceBuffer<std::uint32_t> listing_counts_;
  DeviceBuffer<unsigned long long> listing_offsets_;
  DeviceBuffer<std::uint64_t> listing_keys_;
  DeviceBuffer<std::uint32_t> listing_slots_;
  DeviceBuffer<std::uint64_t> sorted_listing_keys_;
  DeviceBuffer<std::uint32_t> sorted_listing_slots_;
  DeviceBuffer<StaticListing> listings_;
  DeviceBuffer<float> reaches_;
  DeviceBuffer<std::uint32_t> small_start_;
  DeviceBuffer<std::uint32_t> long_start_;
  DeviceBuffer<std::uint32_t> walk_entry_table_;
  WalkEntries walk_entries_;  ///< in walk_entry_table_
  // The moving proxies and their pairs.
  std::array<DeviceBuffer<float>, 6> moving_arrays_;
  DeviceBuffer<std::uint32_t> moving_categories_;
  DeviceBuffer<std::uint32_t> moving_masks_;
  DeviceBuffer<std::uint32_t> moving_worlds_;
  // Their listings in the static cells (the last step's number, for the next step's room),
  // and the pairs found there.
  std::pair<float, float> static_range_s_;  ///< the statics' lowest min_s and highest max_s
  MovingBuckets buckets_;                   ///< this step's
  bool grid_serves_moving_ = true;          ///< see walks_moving
  const std::uint64_t moving_grid_most_ = moving_grid_most_from_environment();
  bool moving_grid_ = false;          ///< the grid is planned from the moving proxies (no statics)
  std::uint64_t planned_moving_ = 0;  ///< moving proxies when it was planned
  std::uint32_t steps_to_moving_plan_ = 0;  ///< after it served them badly
  bool walked_moving_ = false;      ///< this step swept the moving proxies in the static cells
  bool walked_events_ = false;      ///< and found its events there (see cell_pairs)
  bool names_events_ = false;       ///< and named them there too (in named_), unsorted
  bool statics_since_step_ = true;  ///< statics listed since the last step that stood
  DeviceBuffer<std::uint32_t> bucket_counts_;  ///< zero between steps (buckets_clear_)
  bool buckets_clear_ = false;                 ///< bucket_counts_ is zero in all its capacity
  DeviceBuffer<unsigned long long> bucket_offsets_;
  DeviceBuffer<StaticListing> moving_records_;
  std::size_t moving_listings_ = 0;
  DeviceBuffer<Pair> cell_pairs_;
  DeviceBuffer<std::uint8_t> temp_;
  // The last step's pairs (in the order found; sorted when asked for) and state, and the
  // pairs of the step being made.
  DeviceBuffer<Pair> pairs_;
  std::size_t pair_count_ = 0;
  DeviceBuffer<Pair> sorted_pairs_;
  bool pairs_sorted_ = false;
  DeviceBuffer<StepBox> last_step_boxes_;
  std::uint32_t last_slots_ = 0;
  DeviceBuffer<StepBox> step_boxes_;
  DeviceBuffer<Pair> next_;
  // The last step's events.
  DeviceBuffer<Pair> found_buffer_;
  DeviceBuffer<Pair> lost_buffer_;
  DeviceBuffer<Pair> sorted_found_;
  DeviceBuffer<Pair> sorted_lost_;
  DeviceBuffer<unsigned long long> event_counts_{2};
  PinnedBuffer<unsigned long long> host_event_counts_{2};
  DeviceSpan<const Pair> found_;
  DeviceSpan<const Pair> lost_;
  std::array<Ready, 3> ready_{};
  std::array<PinnedBuffer<Pair>, 3> host_;
  std::array<DeviceBuffer<ProxyPair>, 3> named_;
};

}  // namespace

std::unique_ptr<WorldBackend> make_cuda_world(const ProxyTable& table) {
  return std::make_unique<CudaWorld>(table);
}

}  // namespace rsw::physics::detail
