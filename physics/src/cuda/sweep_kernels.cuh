// Device code of the GPU broad phase (launched by sweep_dispatch.cu). One frame:
//
//   summarize_boxes -> plan -> build_keys -> [rsw::sort] -> gather_boxes -> scan
//   -> fill_listings -> [rsw::sort by cell] -> gather_listings -> sweep_extents -> scan
//   -> test_candidates
//
// The sort and sweep follow Ha et al. 2009, Sec. 6.1: keys are the boxes' minima on the sweep
// axis in last frame's order, sorted with the box indices; each box sweeps forward while the
// next minimum is <= its maximum. Two changes make it scale. The sweep runs inside the cells
// of a coarse grid over the other two axes (each box listed in every cell it covers; a pair
// reported only in the cell holding the larger of the two minimum corners), so the work stays
// near n + pairs. And the sweep is split in two: sweep_extents finds each listing's run of
// candidates by a galloping search (the listings of a cell are sorted by minimum), a scan of
// the run lengths numbers every candidate, and test_candidates gives each thread the same
// number of candidates however long a box's run is: a warp tests consecutive partners,
// reading them coalesced, and a giant box's run is spread over many blocks rather than one
// thread.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "../frame_plan.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/sort/key_mapping.hpp"

namespace rsw::physics::detail::kernels {

constexpr int kThreads = 256;
/// Candidates each thread of test_candidates tests per round: a block takes 2048 at a time,
/// enough that the block's one atomic append is rare next to the tests.
constexpr int kCandidatesPerThread = 8;

/// The user's boxes wherever they came from: six float arrays with a stride (1 for
/// structure-of-arrays, 6 for Aabb records copied as they are), and filter bits.
struct BoxView {
  const float* min[3];
  const float* max[3];
  std::uint32_t stride;
  const std::uint32_t* categories;  // nullptr: every box in category 1
  const std::uint32_t* masks;       // nullptr: every mask all ones

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
};

/// Device state of one frame, read back by the host at its two waits.
struct FrameCounters {
  BoxSummary summary;
  FramePlan plan;
  unsigned long long listings;    ///< (cell, box) entries
  unsigned long long candidates;  ///< pairs overlapping on the sweep axis in a shared cell
  unsigned long long pairs;       ///< pairs found; more than the buffer holds means: again
};

/// Boxes in sorted order (index j), as the sweep reads them: the minimum on the sweep axis s
/// alone (the searches read only it), the bounds on the other two axes {min_u, max_u, min_v,
/// max_v} (all a candidate test reads unless the boxes overlap), and {max_s bits, id,
/// category, mask}. A category of 0 marks a box that pairs with nothing (invalid, or the
/// user's category 0): it is listed in no cell.
struct SweepBoxes {
  float* min;
  float4* bounds;
  uint4* rest;
};

/// The same records per listing (index e), in cell order, with the cell of each.
struct Listings {
  const std::uint32_t* cells;
  const float* min;
  const float4* bounds;
  const uint4* rest;
};

/// One thread, before anything else of the frame: the identity of the summary, no pairs.
__global__ void begin_frame(FrameCounters* frame) {
  frame->summary = BoxSummary::empty();
  frame->plan = {};
  frame->listings = 0;
  frame->candidates = 0;
  frame->pairs = 0;
}

/// Whole grid, persistent blocks: each thread summarises a strided share of the boxes,
/// a block merges its threads' summaries in shared memory, and its first thread merges the
/// block's into the frame with atomics (one set per block).
__global__ void __launch_bounds__(kThreads)
    summarize_boxes(BoxView boxes, std::uint32_t count, FrameCounters* frame) {
  __shared__ BoxSummary block_summary[kThreads];
  BoxSummary summary = BoxSummary::empty();
  for (std::uint32_t box = blockIdx.x * blockDim.x + threadIdx.x; box < count;
       box += gridDim.x * blockDim.x) {
    float low[3];
    float high[3];
    boxes.load(box, low, high);
    if (box_is_valid(low, high)) {
      summary.add(low, high);
    } else {
      ++summary.invalid;
      summary.first_invalid = box < summary.first_invalid ? box : summary.first_invalid;
    }
  }
  block_summary[threadIdx.x] = summary;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) block_summary[threadIdx.x].merge(block_summary[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  const BoxSummary& total = block_summary[0];
  BoxSummary& out = frame->summary;
  for (int axis = 0; axis < 3; ++axis) {
    atomicMin(&out.low_key[axis], total.low_key[axis]);
    atomicMax(&out.high_key[axis], total.high_key[axis]);
    atomicAdd(&out.extent_sum[axis], total.extent_sum[axis]);
    atomicAdd(&out.centre_sum[axis], total.centre_sum[axis]);
    atomicAdd(&out.centre_square_sum[axis], total.centre_square_sum[axis]);
  }
  atomicAdd(&out.valid, total.valid);
  atomicAdd(&out.invalid, total.invalid);
  atomicMin(&out.first_invalid, total.first_invalid);
}

/// One thread: the axis and grid of the frame, from its summary (the host's function).
__global__ void plan(FrameCounters* frame, SweepAxis axis, SweepMode mode) {
  frame->plan = plan_frame(frame->summary, axis, mode);
}

/// Thread j: the sort key of the box at position j of last frame's order.
__global__ void build_keys(BoxView boxes, const std::uint32_t* order, std::uint32_t count,
                           const FrameCounters* frame, std::uint32_t* keys) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const int axis = frame->plan.axis;
  keys[j] = sort::ordered_key(boxes.min[axis][std::size_t{order[j]} * boxes.stride]);
}

/// The rectangle of cells a box covers.
struct CellRange {
  std::uint32_t u0, u1, v0, v1;
  __device__ std::uint32_t size() const { return (u1 - u0 + 1) * (v1 - v0 + 1); }
};

__device__ inline CellRange cells_of(const CellGrid& grid, float min_u, float max_u, float min_v,
                                     float max_v) {
  return {grid.cell_u(min_u), grid.cell_u(max_u), grid.cell_v(min_v), grid.cell_v(max_v)};
}

/// Thread j: gathers sorted box j into the sweep's records and counts its cells (0 for a
/// box that pairs with nothing).
__global__ void gather_boxes(BoxView boxes, const std::uint32_t* order, std::uint32_t count,
                             const FrameCounters* frame, SweepBoxes sorted,
                             unsigned long long* listing_counts) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const FramePlan& plan = frame->plan;
  const std::uint32_t box = order[j];
  float low[3];
  float high[3];
  boxes.load(box, low, high);
  const std::uint32_t category = box_is_valid(low, high) ? boxes.category(box) : 0u;
  const int s = plan.axis;
  const int u = plan.grid.axis_u;
  const int v = plan.grid.axis_v;
  sorted.min[j] = low[s];
  sorted.bounds[j] = make_float4(low[u], high[u], low[v], high[v]);
  sorted.rest[j] = make_uint4(__float_as_uint(high[s]), box, category, boxes.mask(box));
  listing_counts[j] =
      category == 0 ? 0 : cells_of(plan.grid, low[u], high[u], low[v], high[v]).size();
}

/// Thread j: writes the (cell, j) listings of sorted box j, in cell order, from its offset.
__global__ void fill_listings(const SweepBoxes sorted, std::uint32_t count, CellGrid grid,
                              const unsigned long long* listing_offsets, std::uint32_t* cells,
                              std::uint32_t* boxes) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count || listing_offsets[j] == listing_offsets[j + 1]) return;
  const float4 bounds = sorted.bounds[j];
  const CellRange range = cells_of(grid, bounds.x, bounds.y, bounds.z, bounds.w);
  auto next = static_cast<std::uint32_t>(listing_offsets[j]);
  for (std::uint32_t cu = range.u0; cu <= range.u1; ++cu) {
    for (std::uint32_t cv = range.v0; cv <= range.v1; ++cv) {
      cells[next] = grid.cell_id(cu, cv);
      boxes[next] = j;
      ++next;
    }
  }
}

/// Thread e: copies the records of the sorted box listing e names into listing order.
__global__ void gather_listings(const SweepBoxes sorted, const std::uint32_t* listing_boxes,
                                std::uint32_t listings, float* min, float4* bounds, uint4* rest) {
  const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= listings) return;
  const std::uint32_t j = listing_boxes[e];
  min[e] = sorted.min[j];
  bounds[e] = sorted.bounds[j];
  rest[e] = sorted.rest[j];
}

/// Thread e: the number of listings after e in its cell whose minimum is <= e's maximum (its
/// candidates). They are a run, since a cell's listings are sorted by minimum: a galloping
/// search finds its end in O(log run) reads however long the run is.
__global__ void sweep_extents(Listings listings, std::uint32_t count,
                              unsigned long long* candidate_counts) {
  const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const std::uint32_t cell = listings.cells[e];
  const float reach = __uint_as_float(listings.rest[e].x);
  const auto in_run = [&](std::uint64_t f) {
    return listings.cells[f] == cell && listings.min[f] <= reach;
  };
  std::uint64_t inside = e;  // the last listing known to be in the run (e itself: trivially)
  std::uint64_t step = 1;
  std::uint64_t outside = e + step;  // the first listing known not to be, once found
  while (outside < count && in_run(outside)) {
    inside = outside;
    step *= 2;
    outside = e + step;
  }
  if (outside > count) outside = count;
  while (outside - inside > 1) {
    const std::uint64_t middle = inside + (outside - inside) / 2;
    if (in_run(middle)) {
      inside = middle;
    } else {
      outside = middle;
    }
  }
  candidate_counts[e] = inside - e;
}

/// The listing whose candidates include number t: the last e in [low, high] with
/// offsets[e] <= t (offsets[low] <= t is known). `offsets` may be a shared-memory window.
template <class Offsets>
__device__ inline std::uint32_t listing_of(const Offsets& offsets, std::uint32_t low,
                                           std::uint32_t high, unsigned long long t) {
  while (low < high) {
    const std::uint32_t middle = low + (high - low + 1) / 2;
    if (offsets[middle] <= t) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return low;
}

/// Candidate offsets of listings [first, first + size) in shared memory, indexed by listing.
struct OffsetWindow {
  const unsigned long long* shared;
  std::uint32_t first;
  __device__ unsigned long long operator[](std::uint32_t e) const { return shared[e - first]; }
};

/// Whether listings e and f (same cell, overlapping on the sweep axis) overlap on u and v,
/// are reported in this cell, and pass each other's filter bits.
template <bool kCells>
__device__ bool is_pair(const Listings& listings, const CellGrid& grid, std::uint32_t e,
                        std::uint32_t f, const float4& box_e, const uint4& rest_e) {
  const float4 box_f = listings.bounds[f];
  if (box_f.x > box_e.y || box_e.x > box_f.y || box_f.z > box_e.w || box_e.z > box_f.w) {
    return false;
  }
  if constexpr (kCells) {
    const std::uint32_t home =
        grid.cell_id(grid.cell_u(fmaxf(box_e.x, box_f.x)), grid.cell_v(fmaxf(box_e.z, box_f.z)));
    if (home != listings.cells[e]) return false;  // another cell reports it
  }
  const uint4 rest_f = listings.rest[f];
  return (rest_e.z & rest_f.w) != 0 && (rest_f.z & rest_e.w) != 0;
}

/// Persistent blocks; a block takes candidates [base, base + 2048) at a time, thread i the
/// candidates base + i, base + i + 256, ... (a warp reads consecutive partners: coalesced).
/// The block finds its first and last listings by binary search over the candidate offsets
/// and, when they are few, copies their offsets into shared memory; a thread searches again
/// only when it passes the end of its listing (in a long sweep it never does). The block's
/// pairs are numbered by a block scan and appended with one atomic; pairs past `capacity` are
/// counted but not written (the host grows the buffer to the count and runs this again).
template <bool kCells>
__global__ void __launch_bounds__(kThreads)
    test_candidates(Listings listings, std::uint32_t count, CellGrid grid,
                    const unsigned long long* candidate_offsets, FrameCounters* frame, Pair* pairs,
                    unsigned long long capacity) {
  using BlockScan = cub::BlockScan<std::uint32_t, kThreads>;
  constexpr unsigned long long kChunk = kThreads * kCandidatesPerThread;
  constexpr std::uint32_t kWindow = 2 * kThreads;  // offsets held in shared memory
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ unsigned long long window[kWindow];
  __shared__ std::uint32_t chunk_listings[2];
  __shared__ unsigned long long chunk_out;
  const unsigned long long total = frame->candidates;
  for (unsigned long long base = blockIdx.x * kChunk; base < total; base += gridDim.x * kChunk) {
    const unsigned long long end = base + kChunk < total ? base + kChunk : total;
    if (threadIdx.x == 0) chunk_listings[0] = listing_of(candidate_offsets, 0, count - 1, base);
    if (threadIdx.x == 32) chunk_listings[1] = listing_of(candidate_offsets, 0, count - 1, end - 1);
    __syncthreads();
    const std::uint32_t first = chunk_listings[0];
    const std::uint32_t last = chunk_listings[1];
    const bool windowed = last - first + 2 <= kWindow;  // offsets[first .. last + 1]
    if (windowed) {
      for (std::uint32_t k = threadIdx.x; k < last - first + 2; k += kThreads)
        window[k] = candidate_offsets[first + k];
    }
    __syncthreads();
    const OffsetWindow shared_offsets{window, first};
    const auto offset = [&](std::uint32_t e) {
      return windowed ? shared_offsets[e] : candidate_offsets[e];
    };
    const auto find = [&](std::uint32_t low, unsigned long long t) {
      return windowed ? listing_of(shared_offsets, low, last, t)
                      : listing_of(candidate_offsets, low, last, t);
    };

    Pair found[kCandidatesPerThread];
    std::uint32_t found_count = 0;
    std::uint32_t e = first;
    unsigned long long e_begin = 0;
    unsigned long long e_end = 0;  // forces a search for the first candidate
    float4 box_e;
    uint4 rest_e;
#pragma unroll
    for (int k = 0; k < kCandidatesPerThread; ++k) {
      const unsigned long long t = base + k * kThreads + threadIdx.x;
      if (t >= end) break;
      if (t >= e_end) {  // on to a later listing (skipping those without candidates)
        e = find(e, t);
        e_begin = offset(e);
        e_end = offset(e + 1);
        box_e = listings.bounds[e];
        rest_e = listings.rest[e];
      }
      const auto f = static_cast<std::uint32_t>(e + 1 + (t - e_begin));
      if (is_pair<kCells>(listings, grid, e, f, box_e, rest_e)) {
        const std::uint32_t a = rest_e.y;
        const std::uint32_t b = listings.rest[f].y;
        found[found_count++] = a < b ? Pair{a, b} : Pair{b, a};
      }
    }
    std::uint32_t first_out = 0;
    std::uint32_t chunk_found = 0;
    BlockScan(scan_storage).ExclusiveSum(found_count, first_out, chunk_found);
    if (threadIdx.x == 0) chunk_out = chunk_found > 0 ? atomicAdd(&frame->pairs, chunk_found) : 0;
    __syncthreads();
    const unsigned long long out = chunk_out + first_out;
    for (std::uint32_t k = 0; k < found_count; ++k) {
      if (out + k < capacity) pairs[out + k] = found[k];
    }
    __syncthreads();  // the window, chunk_listings, chunk_out and scan_storage are reused
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
