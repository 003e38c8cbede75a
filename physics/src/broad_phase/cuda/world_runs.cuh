// The GPU broad phase's frame for worlds that come in runs: each world's boxes together in the
// user's order (as batched simulators lay out their environments), kAllWorlds boxes anywhere.
// Such a frame needs no global sort: one kernel (sweep_world_runs) gives each run a block (a
// warp, for runs of up to 32 boxes), which loads the run's boxes and the shared ones into
// shared memory, sorts them along the axis (a bitonic sort) and sweeps them there. It is the
// sort-and-sweep of Ha et al. 2009, Sec. 6.1, a world at a time, each box read from memory
// once; the host waits once, for the counts.
//
// The runs are found once (WorldRuns::build: mark_world_runs, two selections and
// finish_world_runs), after a frame of the cells has shown the worlds small, and kept while
// the boxes keep them: every frame's blocks check each box's world against its run's (and the
// shared boxes against kAllWorlds), and a frame that finds one changed is done again by the
// cells, which then look for runs anew. Included by sweep_dispatch.cu only.
#pragma once

#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cub/device/device_select.cuh>
#include <optional>
#include <vector>

#include "../frame_plan.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/sort/key_mapping.hpp"
#include "sweep_kernels.cuh"

namespace rsw::physics::detail {
namespace kernels {

/// What the blocks of sweep_world_runs add up in a frame; all zero before it (one memset).
/// The counters the blocks touch once each lie on lines of their own.
struct RunCounters {
  alignas(128) unsigned long long pairs;       ///< pairs found; more than the buffer holds: again
  alignas(128) unsigned long long candidates;  ///< pairs of boxes overlapping along the axis
  alignas(128) unsigned long long invalid;     ///< invalid boxes (NaN, inverted)
  unsigned int first_invalid_flipped;          ///< ~(first invalid box); 0: none
  unsigned int stale;                          ///< a box left its run, or a shared box its kind
  unsigned int shared_seen;                    ///< kAllWorlds boxes met in the runs' stretches
  unsigned int empty_runs;                     ///< runs without a valid box, listed in empty
  float spread[3];  ///< sampled worlds' squared deviations of box centres, per axis
};

/// The runs as the kernels read them.
struct RunTable {
  const std::uint32_t* begin;   ///< runs + 1: block r reads boxes [begin[r], begin[r + 1])
  const std::uint32_t* world;   ///< the world of each run, rising from run to run
  const std::uint32_t* shared;  ///< the kAllWorlds boxes
  std::uint32_t runs;
  std::uint32_t shared_count;
};

/// Why mark_world_runs found the boxes not to be in runs.
constexpr unsigned int kRunsOutOfOrder = 1;     ///< a world's boxes apart, or worlds not rising
constexpr unsigned int kRunsSharedStretch = 2;  ///< more than kRunRoom kAllWorlds boxes in a row

/// Thread i: whether box i starts a run (it is not kAllWorlds, and the nearest box before it
/// that is not has another world, or there is none) and whether it is kAllWorlds. A world
/// lower than the one before it sets kRunsOutOfOrder: rising worlds keep each in one run.
__global__ void mark_world_runs(const std::uint32_t* worlds, std::uint32_t count,
                                std::uint8_t* starts, std::uint8_t* shared, unsigned int* failure) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const std::uint32_t world = worlds[i];
  shared[i] = world == kAllWorlds;
  bool start = false;
  if (world != kAllWorlds) {
    std::uint32_t before = i;  // past the kAllWorlds boxes just before i
    while (before > 0 && worlds[before - 1] == kAllWorlds && i - before <= kRunRoom)
      --before;
    if (i - before > kRunRoom) {
      atomicOr(failure, kRunsSharedStretch);
    } else if (before == 0) {
      start = true;
    } else {
      const std::uint32_t previous = worlds[before - 1];
      start = previous != world;
      if (previous > world) atomicOr(failure, kRunsOutOfOrder);
    }
  }
  starts[i] = start;
}

/// Thread r <= runs: the run table from the selected starts. Run 0's stretch begins at box 0
/// (kAllWorlds boxes before the first run are in it) and the last one's ends at `count`; the
/// longest stretch goes to `widest`.
__global__ void finish_world_runs(const std::uint32_t* worlds, std::uint32_t count,
                                  const std::uint32_t* starts, const std::uint32_t* run_count,
                                  std::uint32_t* begin, std::uint32_t* run_worlds,
                                  unsigned int* widest) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t runs = *run_count;
  if (r > runs) return;
  if (r == runs) {
    begin[runs] = count;
    return;
  }
  const std::uint32_t first = r == 0 ? 0 : starts[r];
  const std::uint32_t end = r + 1 < runs ? starts[r + 1] : count;
  begin[r] = first;
  run_worlds[r] = worlds[starts[r]];
  atomicMax(widest, end - first);
}

/// Sorts `count` (a power of two) items in shared memory, ascending: a bitonic sort, the
/// kWidth threads of a block or a warp (`thread` among them) taking its compare-exchanges a
/// pair each per step.
template <int kWidth>
__device__ void bitonic_sort(std::uint64_t* items, std::uint32_t count, std::uint32_t thread) {
  for (std::uint32_t size = 2; size <= count; size *= 2) {
    for (std::uint32_t stride = size / 2; stride > 0; stride /= 2) {
      for (std::uint32_t t = thread; t < count / 2; t += kWidth) {
        const std::uint32_t low = 2 * t - (t & (stride - 1));  // t with a 0 inserted at stride
        const std::uint32_t high = low + stride;
        const bool ascending = (low & size) == 0;
        const std::uint64_t a = items[low];
        const std::uint64_t b = items[high];
        if ((a > b) == ascending) {
          items[low] = b;
          items[high] = a;
        }
      }
      if constexpr (kWidth == 32) {
        __syncwarp();
      } else {
        __syncthreads();
      }
    }
  }
}

/// A block's boxes in shared memory, as structure of arrays of `room` each: bounds, category
/// and mask bits, and for an unsorted box the user's index, for a sorted one where it was
/// before the sort (its unsorted index). 72 bytes a box, and 8 a sort item. Arrays are found
/// by arithmetic, so that an axis known only at run time costs no local memory.
struct RunBoxes {
  std::uint32_t* words;
  std::uint32_t room;

  __device__ float& low(int axis, std::uint32_t k) const {
    return reinterpret_cast<float*>(words)[axis * room + k];
  }
  __device__ float& high(int axis, std::uint32_t k) const {
    return reinterpret_cast<float*>(words)[(3 + axis) * room + k];
  }
  __device__ std::uint32_t& category(std::uint32_t k) const { return words[6 * room + k]; }
  __device__ std::uint32_t& mask(std::uint32_t k) const { return words[7 * room + k]; }
  __device__ std::uint32_t& index(std::uint32_t k) const { return words[8 * room + k]; }
  static constexpr std::uint32_t kWords = 9;
};

/// Shared memory a run of sweep_world_runs takes beside its pair buffers: `room` boxes
/// unsorted and sorted, and the sort's items (room rounded up to a power of two).
constexpr std::size_t run_shared_bytes(std::uint32_t room) {
  return std::size_t{std::bit_ceil(std::max(room, 1u))} * sizeof(std::uint64_t) +
         2 * std::size_t{room} * RunBoxes::kWords * sizeof(std::uint32_t);
}

/// Pairs a warp of sweep_world_runs holds before it appends them with one atomic.
constexpr std::uint32_t kRunWarpPairs = 128;

/// What the threads of a run share besides its boxes.
struct RunState {
  unsigned int placed;       ///< boxes in unsorted
  unsigned int seen_shared;  ///< kAllWorlds boxes in the run's stretch
  unsigned int invalid;
  unsigned int first_invalid;
  unsigned int stale;
};

/// The world-runs frame: kGroup threads a run (a block, or for runs of at most 32 boxes with
/// the shared ones a warp, several to a block). Run r < runs: the boxes of its stretch whose
/// world is the run's (another world marks the frame stale; kAllWorlds boxes are counted, and
/// met through the shared list) and the shared boxes, valid and of a category, into shared
/// memory; sorted by their minimum on `axis` (key, unsorted index) and gathered in that order;
/// then a lane a box walks the boxes after it while their minimum is at most its maximum and
/// tests each on the other two axes and the filter bits, leaving pairs of two shared boxes to
/// run `runs`, which does the same for the shared boxes alone and checks that each still is
/// one. Pairs gather in a warp buffer and are appended a buffer at a time; pairs past
/// `capacity` are counted, not written. Every `sample_every`-th run adds its boxes' spread
/// about their mean to the counters (for the next frame's axis); a run with no valid box is
/// listed in `empty_runs`.
template <int kBlock, int kGroup, bool kFilters>
__global__ void __launch_bounds__(kBlock)
    sweep_world_runs(RunTable table, BoxView boxes, int axis, std::uint32_t room,
                     std::uint32_t sample_every, RunCounters* counters, std::uint32_t* empty_runs,
                     Pair* pairs, unsigned long long capacity) {
  static_assert(kGroup == kBlock || kGroup == 32, "a run takes the block or a warp");
  constexpr int kGroups = kBlock / kGroup;
  constexpr unsigned int kAll = 0xFFFFFFFFu;
  extern __shared__ std::uint64_t memory[];
  __shared__ Pair buffer[kBlock / 32][kRunWarpPairs];
  __shared__ RunState states[kGroups];
  __shared__ unsigned long long block_candidates;
  const std::uint32_t items = std::bit_ceil(std::max(room, 1u));
  const auto group = static_cast<std::uint32_t>(threadIdx.x / kGroup);
  const auto thread = static_cast<std::uint32_t>(threadIdx.x % kGroup);
  const std::uint32_t run = blockIdx.x * kGroups + group;
  std::uint64_t* sort_items = memory + group * (run_shared_bytes(room) / sizeof(std::uint64_t));
  auto* words = reinterpret_cast<std::uint32_t*>(sort_items + items);
  const RunBoxes unsorted{words, room};
  const RunBoxes sorted{words + RunBoxes::kWords * room, room};
  RunState& state = states[group];
  const auto sync = [] {
    if constexpr (kGroup == 32) {
      __syncwarp();
    } else {
      __syncthreads();
    }
  };
  if (thread == 0) state = {0, 0, 0, BoxSummary::kNoBox, 0};
  if (threadIdx.x == 0) block_candidates = 0;
  __syncthreads();

  const unsigned int lane = threadIdx.x % 32;
  const unsigned int lanes_below = (1u << lane) - 1;
  const std::uint32_t warp_first = thread / 32 * 32;  // the warp's first thread in the run
  const bool shared_run = run == table.runs;
  const bool present = run < table.runs || (shared_run && table.shared_count > 0);
  // A box's bounds, category and mask bits, all loads issued together.
  struct Loaded {
    float low[3];
    float high[3];
    std::uint32_t category;
    std::uint32_t mask;
  };
  const auto load = [&](std::uint32_t box) {
    Loaded loaded;
    boxes.load(box, loaded.low, loaded.high);
    loaded.category = boxes.category(box);
    loaded.mask = kFilters ? boxes.mask(box) : kAll;
    return loaded;
  };
  // Places the lanes' boxes that `keep` theirs in unsorted: the warp's lanes together, one
  // atomic a warp.
  const auto place = [&](bool keep, std::uint32_t box, const Loaded& loaded) {
    const unsigned int kept = __ballot_sync(kAll, keep);
    if (kept == 0) return;
    std::uint32_t first = 0;
    if (lane == 0) first = atomicAdd(&state.placed, static_cast<unsigned int>(__popc(kept)));
    first = __shfl_sync(kAll, first, 0);
    if (!keep) return;
    const std::uint32_t k = first + __popc(kept & lanes_below);
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      unsorted.low(a, k) = loaded.low[a];
      unsorted.high(a, k) = loaded.high[a];
    }
    if constexpr (kFilters) {  // else every box has the default bits, never read
      unsorted.category(k) = loaded.category;
      unsorted.mask(k) = loaded.mask;
    }
    unsorted.index(k) = box;
  };
  // Whether a loaded box is valid and of a category; an invalid one is counted when `counted`.
  const auto placeable = [&](std::uint32_t box, const Loaded& loaded, bool counted) {
    if (!box_is_valid(loaded.low, loaded.high)) {
      if (counted) {
        atomicAdd(&state.invalid, 1u);
        atomicMin(&state.first_invalid, box);
      }
      return false;
    }
    return loaded.category != 0;  // category 0 pairs with nothing
  };

  std::uint32_t world = kAllWorlds;
  std::uint32_t world_boxes = 0;
  std::uint32_t candidates = 0;
  Pair* buffered = buffer[threadIdx.x / 32];
  std::uint32_t held = 0;  // the same in every lane of the warp
  if (present) {
    if (!shared_run) {
      world = table.world[run];
      const std::uint32_t end = table.begin[run + 1];
      for (std::uint32_t base = table.begin[run] + warp_first; base < end; base += kGroup) {
        const std::uint32_t i = base + lane;
        bool keep = false;
        Loaded loaded{};
        if (i < end) {
          const std::uint32_t box_world = boxes.worlds[i];
          loaded = load(i);
          if (box_world == kAllWorlds) {
            atomicAdd(&state.seen_shared, 1u);
          } else if (box_world != world) {
            atomicOr(&state.stale, 1u);
          } else {
            keep = placeable(i, loaded, true);
          }
        }
        place(keep, i, loaded);
      }
    }
    sync();
    // The world's boxes are unsorted[0, world_boxes); the shared ones follow (in the shared
    // run, they are its world).
    world_boxes = state.placed;
    if (shared_run || world_boxes > 0) {
      for (std::uint32_t base = warp_first; base < table.shared_count; base += kGroup) {
        const std::uint32_t s = base + lane;
        bool keep = false;
        std::uint32_t box = 0;
        Loaded loaded{};
        if (s < table.shared_count) {
          box = table.shared[s];
          loaded = load(box);
          if (shared_run && boxes.worlds[box] != kAllWorlds) atomicOr(&state.stale, 1u);
          keep = placeable(box, loaded, shared_run);
        }
        place(keep, box, loaded);
      }
    }
    sync();
    const std::uint32_t count = state.placed;
    const std::uint32_t own = shared_run ? count : world_boxes;  // boxes not shared here
    if (count > 1) {
      for (std::uint32_t k = thread; k < items; k += kGroup) {
        sort_items[k] = k < count
                            ? std::uint64_t{sort::ordered_key(unsorted.low(axis, k))} << 32 | k
                            : ~std::uint64_t{0};
      }
      sync();
      bitonic_sort<kGroup>(sort_items, items, thread);
      for (std::uint32_t p = thread; p < count; p += kGroup) {
        const auto k = static_cast<std::uint32_t>(sort_items[p]);
#pragma unroll
        for (int a = 0; a < 3; ++a) {
          sorted.low(a, p) = unsorted.low(a, k);
          sorted.high(a, p) = unsorted.high(a, k);
        }
        if constexpr (kFilters) {
          sorted.category(p) = unsorted.category(k);
          sorted.mask(p) = unsorted.mask(k);
        }
        sorted.index(p) = k;
      }
      sync();
    }

    // The sweep: rows of 32 sorted boxes a warp, a lane a box.
    const int u = (axis + 1) % 3;
    const int v = (axis + 2) % 3;
    const float* along = &sorted.low(axis, 0);
    for (std::uint32_t row = warp_first; count > 1 && row < count; row += kGroup) {
      const std::uint32_t e = row + lane;
      bool active = e < count;
      float reach = 0;
      float e_low_u = 0;
      float e_high_u = 0;
      float e_low_v = 0;
      float e_high_v = 0;
      std::uint32_t e_category = 0;
      std::uint32_t e_mask = 0;
      std::uint32_t e_index = 0;
      if (active) {
        reach = sorted.high(axis, e);
        e_low_u = sorted.low(u, e);
        e_high_u = sorted.high(u, e);
        e_low_v = sorted.low(v, e);
        e_high_v = sorted.high(v, e);
        if constexpr (kFilters) {
          e_category = sorted.category(e);
          e_mask = sorted.mask(e);
        }
        e_index = sorted.index(e);
      }
      const bool e_shared = e_index >= own;
      std::uint32_t f = e + 1;
      while (__any_sync(kAll, active)) {
        bool hit = false;
        std::uint32_t f_index = 0;
        if (active) {
          if (f < count && along[f] <= reach) {
            ++candidates;
            f_index = sorted.index(f);
            hit = (!e_shared || f_index < own) && sorted.low(u, f) <= e_high_u &&
                  e_low_u <= sorted.high(u, f) && sorted.low(v, f) <= e_high_v &&
                  e_low_v <= sorted.high(v, f);
            if constexpr (kFilters) {
              hit = hit && (e_category & sorted.mask(f)) != 0 && (sorted.category(f) & e_mask) != 0;
            }
            ++f;
          } else {
            active = false;
          }
        }
        const unsigned int hits = __ballot_sync(kAll, hit);
        if (hit) {
          const std::uint32_t a = unsorted.index(e_index);
          const std::uint32_t b = unsorted.index(f_index);
          buffered[held + __popc(hits & lanes_below)] = a < b ? Pair{a, b} : Pair{b, a};
        }
        held += __popc(hits);
        if (held > kRunWarpPairs - 32)
          flush_pairs(buffered, held, &counters->pairs, pairs, capacity);
      }
    }
    if (!shared_run && world_boxes > 0 && run % sample_every == 0 && thread < 32) {
      // The spread of the world's boxes about their mean, by the run's first warp: means first.
      float mean[3] = {0, 0, 0};
      float deviation[3] = {0, 0, 0};
      for (int pass = 0; pass < 2; ++pass) {
        float sums[3] = {0, 0, 0};
        for (std::uint32_t k = lane; k < world_boxes; k += 32) {
#pragma unroll
          for (int a = 0; a < 3; ++a) {
            const float centre = 0.5f * (unsorted.low(a, k) + unsorted.high(a, k));
            sums[a] += pass == 0 ? centre : (centre - mean[a]) * (centre - mean[a]);
          }
        }
#pragma unroll
        for (int a = 0; a < 3; ++a) {
          for (int offset = 16; offset > 0; offset /= 2)
            sums[a] += __shfl_xor_sync(kAll, sums[a], offset);
          if (pass == 0) mean[a] = sums[a] / static_cast<float>(world_boxes);
          deviation[a] = sums[a];
        }
      }
      if (lane == 0) {
        for (int a = 0; a < 3; ++a)
          atomicAdd(&counters->spread[a], deviation[a]);
      }
    }
  }
  flush_pairs(buffered, held, &counters->pairs, pairs, capacity);

  // The block's candidates in one atomic; what a run's host checks need (rare), by its first
  // thread.
  auto sum = static_cast<unsigned long long>(candidates);
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(kAll, sum, offset);
  if (lane == 0 && sum > 0) atomicAdd(&block_candidates, sum);
  __syncthreads();
  if (threadIdx.x == 0 && block_candidates > 0) atomicAdd(&counters->candidates, block_candidates);
  if (thread != 0 || !present) return;
  if (state.seen_shared > 0) atomicAdd(&counters->shared_seen, state.seen_shared);
  if (state.stale != 0) atomicOr(&counters->stale, 1u);
  if (state.invalid > 0) {
    atomicAdd(&counters->invalid, static_cast<unsigned long long>(state.invalid));
    atomicMax(&counters->first_invalid_flipped, ~state.first_invalid);
  }
  if (!shared_run && world_boxes == 0) {
    // No box of the run placed: whether any was valid (those of category 0 are).
    const std::uint32_t end = table.begin[run + 1];
    bool any_valid = false;
    for (std::uint32_t i = table.begin[run]; i < end && !any_valid; ++i) {
      if (boxes.worlds[i] != world) continue;
      float low[3];
      float high[3];
      boxes.load(i, low, high);
      any_valid = box_is_valid(low, high);
    }
    if (!any_valid) empty_runs[atomicAdd(&counters->empty_runs, 1u)] = run;
  }
}

}  // namespace kernels

/// The run table of a scene and the world-runs frame (see the top of this file).
class WorldRuns {
 public:
  /// What a frame of runs found, for the host's checks and stats.
  struct Frame {
    unsigned long long pairs = 0;
    unsigned long long candidates = 0;
    BoxSummary summary;  ///< valid and invalid boxes, the first invalid, the worlds' range
    int axis = 0;
  };

  /// Whether a table of runs is kept for scenes of `count` boxes.
  bool ready(std::uint32_t count) const { return ready_ && count == count_; }

  /// Looks for runs in the boxes' worlds: true, and the table kept, when every world's boxes
  /// lie together, the worlds rise from run to run and each run's stretch with the shared
  /// boxes fits a block (kRunRoom). `axis` is the first frame's sweep axis. Waits for the device.
  bool build(const kernels::BoxView& boxes, std::uint32_t count, int axis, StreamHandle stream) {
    ready_ = false;
    if (count == 0 || boxes.worlds == nullptr) return false;
    // The search's scratch, a box's worth each, freed when it ends: the table keeps a run's.
    DeviceBuffer<std::uint8_t> start_flags(count);
    DeviceBuffer<std::uint8_t> shared_flags(count);
    DeviceBuffer<std::uint32_t> starts(count);
    DeviceBuffer<std::uint32_t> shared(count);
    build_counts_.resize_discarding(4);  // runs, shared boxes, failure, widest
    build_counts_.fill_zero(stream);
    std::uint32_t* const run_count = build_counts_.data();
    kernels::mark_world_runs<<<kernels::blocks_for(count), kernels::kThreads, 0, stream>>>(
        boxes.worlds, count, start_flags.data(), shared_flags.data(), build_counts_.data() + 2);
    RSW_CUDA_CHECK_LAUNCH("launching mark_world_runs");
    select(start_flags.data(), starts.data(), run_count, count, stream);
    select(shared_flags.data(), shared.data(), build_counts_.data() + 1, count, stream);
    host_counts_.copy_small_from_device(build_counts_.data(), 3, stream);
    synchronize(stream);
    const std::uint32_t runs = host_counts_[0];
    const std::uint32_t shared_total = host_counts_[1];
    if (host_counts_[2] != 0 || runs == 0 || shared_total > kRunRoom) return false;
    begin_.resize_discarding(std::size_t{runs} + 1);
    worlds_.resize_discarding(runs);
    shared_.resize_discarding(shared_total);
    if (shared_total > 0) {
      rsw::detail::copy_device_to_device(shared_.data(), shared.data(),
                                         shared_total * sizeof(std::uint32_t), stream);
    }
    kernels::finish_world_runs<<<kernels::blocks_for(std::size_t{runs} + 1), kernels::kThreads, 0,
                                 stream>>>(boxes.worlds, count, starts.data(), run_count,
                                           begin_.data(), worlds_.data(), build_counts_.data() + 3);
    RSW_CUDA_CHECK_LAUNCH("launching finish_world_runs");
    host_counts_.copy_small_from_device(build_counts_.data() + 3, 1, stream);
    synchronize(stream);
    const std::uint32_t widest = host_counts_[0];
    if (std::uint64_t{widest} + shared_total > kRunRoom) return false;
    runs_ = runs;
    shared_count_ = shared_total;
    room_ = widest + shared_total;
    count_ = count;
    axis_ = axis;
    host_worlds_.resize(runs);
    worlds_.download(std::span(host_worlds_), stream);  // waits
    empty_.resize_discarding(runs);
    ready_ = true;
    return true;
  }

  /// The frame: sweep_world_runs into `pairs` (grown to the count and run again when they did
  /// not fit) and one wait. Nothing, and the table dropped, when a box left its run: the caller
  /// runs the frame by the cells.
  std::optional<Frame> sweep(const kernels::BoxView& boxes, SweepAxis requested,
                             DeviceBuffer<Pair>& pairs, StreamHandle stream) {
    pairs.resize_discarding(std::max<std::size_t>(pairs.capacity(), 4 * std::size_t{count_}));
    counters_.resize_discarding(1);
    const kernels::RunTable table{begin_.data(), worlds_.data(), shared_.data(), runs_,
                                  shared_count_};
    const std::uint32_t sample_every = std::max(1u, runs_ / kSampledRuns);
    const kernels::RunCounters* counters = nullptr;
    for (;;) {
      counters_.fill_zero(stream);
      launch(boxes.filtered(), table, boxes, sample_every, pairs, stream);
      host_counters_.copy_small_from_device(counters_.data(), 1, stream);
      synchronize(stream);
      counters = &host_counters_[0];
      if (counters->stale != 0 || counters->shared_seen != shared_count_) {
        ready_ = false;
        return std::nullopt;
      }
      if (counters->pairs <= pairs.size()) break;
      pairs.resize_discarding(counters->pairs);
    }
    Frame frame;
    frame.pairs = counters->pairs;
    frame.candidates = counters->candidates;
    frame.axis = axis_;
    frame.summary = summary(*counters, stream);
    axis_ = plan_run_axis(counters->spread, requested, axis_);
    return frame;
  }

 private:
  /// Runs sampled for the next frame's axis, about.
  static constexpr std::uint32_t kSampledRuns = 128;
  /// Runs of a warp each to a block: more warps resident on a multiprocessor than blocks of
  /// one warp allow (32 blocks at most).
  static constexpr int kWarpRunsPerBlock = 4;

  // The indices of the flagged boxes, and their count on the device.
  void select(const std::uint8_t* flags, std::uint32_t* out, std::uint32_t* selected,
              std::uint32_t count, StreamHandle stream) {
    const thrust::counting_iterator<std::uint32_t> indices(0);
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(
        cub::DeviceSelect::Flagged(nullptr, bytes, indices, flags, out, selected, count, stream),
        "sizing a selection of runs");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    RSW_CUDA_CHECK(cub::DeviceSelect::Flagged(temp_.data(), bytes, indices, flags, out, selected,
                                              count, stream),
                   "selecting runs");
  }

  // sweep_world_runs with kGroup threads a run, kBlock a block, over every run and the shared
  // one; its dynamic shared memory allowed once, for the widest runs.
  template <int kBlock, int kGroup, bool kFilters>
  void launch_width(const kernels::RunTable& table, const kernels::BoxView& boxes,
                    std::uint32_t sample_every, DeviceBuffer<Pair>& pairs, StreamHandle stream) {
    constexpr std::uint32_t kGroups = kBlock / kGroup;
    const auto kernel = kernels::sweep_world_runs<kBlock, kGroup, kFilters>;
    const std::size_t bytes = kGroups * kernels::run_shared_bytes(room_);
    int& allowed =
        allowed_bytes_[std::countr_zero(static_cast<unsigned int>(kGroup)) - 5][kFilters];
    if (bytes > static_cast<std::size_t>(allowed)) {
      const std::size_t most = kGroups * kernels::run_shared_bytes(kRunRoom);
      RSW_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(most)),
                     "allowing sweep_world_runs its shared memory");
      allowed = static_cast<int>(most);
    }
    const std::uint32_t runs = runs_ + (shared_count_ > 0 ? 1 : 0);
    const unsigned int blocks = (runs + kGroups - 1) / kGroups;
    kernel<<<blocks, kBlock, bytes, stream>>>(table, boxes, axis_, room_, sample_every,
                                              counters_.data(), empty_.data(), pairs.data(),
                                              pairs.size());
    RSW_CUDA_CHECK_LAUNCH("launching sweep_world_runs");
  }

  // Runs of up to a warp's boxes take a warp each, kWarpRunsPerBlock to a block (more warps
  // resident than blocks of one warp allow); wider ones a block each, as wide as they need.
  void launch(bool filters, const kernels::RunTable& table, const kernels::BoxView& boxes,
              std::uint32_t sample_every, DeviceBuffer<Pair>& pairs, StreamHandle stream) {
    const auto with = [&](auto filter_bits) {
      constexpr bool kFilters = decltype(filter_bits)::value;
      switch (run_block_threads(room_)) {
        case 32:
          return launch_width<32 * kWarpRunsPerBlock, 32, kFilters>(table, boxes, sample_every,
                                                                    pairs, stream);
        case 64: return launch_width<64, 64, kFilters>(table, boxes, sample_every, pairs, stream);
        case 128:
          return launch_width<128, 128, kFilters>(table, boxes, sample_every, pairs, stream);
        default: return launch_width<256, 256, kFilters>(table, boxes, sample_every, pairs, stream);
      }
    };
    if (filters) {
      with(std::true_type{});
    } else {
      with(std::false_type{});
    }
  }

  // The frame's summary as the rest of the frame reads it: valid and invalid boxes, the first
  // invalid, and the range of worlds with a valid box (from the runs, those listed empty aside).
  BoxSummary summary(const kernels::RunCounters& counters, StreamHandle stream) {
    BoxSummary summary = BoxSummary::empty();
    summary.invalid = counters.invalid;
    summary.valid = count_ - counters.invalid;
    if (counters.first_invalid_flipped != 0)
      summary.first_invalid = ~counters.first_invalid_flipped;
    std::vector<std::uint32_t> empty(counters.empty_runs);
    empty_.download(std::span(empty), stream);  // rare: a run whose every box is invalid
    std::ranges::sort(empty);
    const auto is_empty = [&](std::uint32_t run) { return std::ranges::binary_search(empty, run); };
    for (std::uint32_t run = 0; run < runs_; ++run) {
      if (is_empty(run)) continue;
      summary.world_low = host_worlds_[run];
      break;
    }
    for (std::uint32_t run = runs_; run-- > 0;) {
      if (is_empty(run)) continue;
      summary.world_high = host_worlds_[run];
      break;
    }
    return summary;
  }

  bool ready_ = false;
  std::uint32_t count_ = 0;
  std::uint32_t runs_ = 0;
  std::uint32_t shared_count_ = 0;
  std::uint32_t room_ = 0;        // the widest stretch and the shared boxes
  int axis_ = 0;                  // this frame's sweep axis
  int allowed_bytes_[4][2] = {};  // dynamic shared memory each kernel may take, by width
  DeviceBuffer<std::uint32_t> build_counts_;
  PinnedBuffer<std::uint32_t> host_counts_{4};
  DeviceBuffer<std::uint8_t> temp_;
  // The table.
  DeviceBuffer<std::uint32_t> begin_;
  DeviceBuffer<std::uint32_t> worlds_;
  DeviceBuffer<std::uint32_t> shared_;
  std::vector<std::uint32_t> host_worlds_;
  // A frame's counts.
  DeviceBuffer<kernels::RunCounters> counters_;
  PinnedBuffer<kernels::RunCounters> host_counters_{1};
  DeviceBuffer<std::uint32_t> empty_;
};

}  // namespace rsw::physics::detail
