// The CUDA backend: upload, keys in last frame's order, four-way (or chosen) sort, gather
// into sorted order, then the sweep twice: once to count each box's pairs, once (after an
// exclusive scan of the counts sizes the pair buffer exactly) to write them. No pair can be
// dropped: the buffer is as large as the count.
//
// Axis sweep: one thread sweeps one box forward (Sec. 6.1 of Ha et al. 2009). Cells: each box
// is listed in the grid cells it covers (in x order), the listings are sorted by cell (stable,
// so x order holds inside a cell), and one thread sweeps one listing forward in its cell.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include "host_boxes.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/sort/key_mapping.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics::detail {
namespace {

constexpr int kThreads = 256;

struct BoxArrays {
  const float* min[3];
  const float* max[3];
  const std::uint32_t* categories;
  const std::uint32_t* masks;
};

struct SortedArrays {
  float* min[3];
  float* max[3];
  std::uint32_t* categories;
  std::uint32_t* masks;
  std::uint32_t* ids;
};

unsigned int blocks_for(std::size_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

__global__ void build_keys(const float* sweep_min, const std::uint32_t* order, std::uint32_t* keys,
                           std::uint32_t count) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) keys[j] = sort::ordered_key(sweep_min[order[j]]);
}

__global__ void gather_sorted(BoxArrays boxes, const std::uint32_t* order, SortedArrays sorted,
                              std::uint32_t count) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const std::uint32_t box = order[j];
#pragma unroll
  for (int axis = 0; axis < 3; ++axis) {
    sorted.min[axis][j] = boxes.min[axis][box];
    sorted.max[axis][j] = boxes.max[axis][box];
  }
  sorted.categories[j] = boxes.categories[box];
  sorted.masks[j] = boxes.masks[box];
  sorted.ids[j] = box;
}

// Sweeps sorted box i forward along `axis`; calls emit(j) for every overlapping, admitted
// partner and returns the number of candidates (boxes overlapping i on the sweep axis).
template <class Emit>
__device__ std::uint32_t sweep_box(const SortedArrays& sorted, int axis, std::uint32_t i,
                                   std::uint32_t count, Emit&& emit) {
  if (sorted.categories[i] == 0) return 0;
  const int other_a = axis == 0 ? 1 : 0;
  const int other_b = axis == 2 ? 1 : 2;
  const float reach = sorted.max[axis][i];
  const float a_low = sorted.min[other_a][i];
  const float a_high = sorted.max[other_a][i];
  const float b_low = sorted.min[other_b][i];
  const float b_high = sorted.max[other_b][i];
  const std::uint32_t category = sorted.categories[i];
  const std::uint32_t mask = sorted.masks[i];
  std::uint32_t candidates = 0;
  for (std::uint32_t j = i + 1; j < count && sorted.min[axis][j] <= reach; ++j) {
    ++candidates;
    if (sorted.min[other_a][j] > a_high || a_low > sorted.max[other_a][j] ||
        sorted.min[other_b][j] > b_high || b_low > sorted.max[other_b][j]) {
      continue;
    }
    if ((category & sorted.masks[j]) == 0 || (sorted.categories[j] & mask) == 0) continue;
    emit(j);
  }
  return candidates;
}

// Cells mode: (cell, sorted box) listings, sorted by cell with boxes in x order in each.
struct Listings {
  std::uint32_t* cells;
  std::uint32_t* boxes;
};

// The cells sorted box j covers (none when it is excluded): a rectangle of the grid.
struct CellRange {
  std::uint32_t u0, u1, v0, v1;
  __device__ std::uint32_t size() const { return (u1 - u0 + 1) * (v1 - v0 + 1); }
};

__device__ CellRange cells_of(const SortedArrays& sorted, const CellGrid& grid, std::uint32_t j) {
  return {grid.cell_u(sorted.min[grid.axis_u][j]), grid.cell_u(sorted.max[grid.axis_u][j]),
          grid.cell_v(sorted.min[grid.axis_v][j]), grid.cell_v(sorted.max[grid.axis_v][j])};
}

__global__ void count_listings(SortedArrays sorted, CellGrid grid, std::uint32_t count,
                               std::uint32_t* listing_counts) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count)
    listing_counts[j] = sorted.categories[j] == 0 ? 0 : cells_of(sorted, grid, j).size();
}

__global__ void fill_listings(SortedArrays sorted, CellGrid grid, std::uint32_t count,
                              const std::uint32_t* listing_offsets, Listings listings) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count || sorted.categories[j] == 0) return;
  const CellRange range = cells_of(sorted, grid, j);
  std::uint32_t next = listing_offsets[j];
  for (std::uint32_t u = range.u0; u <= range.u1; ++u) {
    for (std::uint32_t v = range.v0; v <= range.v1; ++v) {
      listings.cells[next] = grid.cell_id(u, v);
      listings.boxes[next] = j;
      ++next;
    }
  }
}

// Sweeps listing e forward inside its cell; a pair is reported only in the cell holding
// (max of the min u, max of the min v), which both boxes cover when they overlap.
template <class Emit>
__device__ std::uint32_t sweep_listing(const SortedArrays& sorted, const CellGrid& grid, int axis,
                                       const Listings& listings, std::uint32_t e,
                                       std::uint32_t entries, Emit&& emit) {
  const std::uint32_t cell = listings.cells[e];
  const std::uint32_t i = listings.boxes[e];
  const int u = grid.axis_u;
  const int v = grid.axis_v;
  const float reach = sorted.max[axis][i];
  const float u_low = sorted.min[u][i];
  const float u_high = sorted.max[u][i];
  const float v_low = sorted.min[v][i];
  const float v_high = sorted.max[v][i];
  const std::uint32_t category = sorted.categories[i];
  const std::uint32_t mask = sorted.masks[i];
  std::uint32_t candidates = 0;
  for (std::uint32_t f = e + 1; f < entries && listings.cells[f] == cell; ++f) {
    const std::uint32_t j = listings.boxes[f];
    if (sorted.min[axis][j] > reach) break;
    ++candidates;
    if (sorted.min[u][j] > u_high || u_low > sorted.max[u][j] || sorted.min[v][j] > v_high ||
        v_low > sorted.max[v][j]) {
      continue;
    }
    const std::uint32_t home = grid.cell_id(grid.cell_u(fmaxf(u_low, sorted.min[u][j])),
                                            grid.cell_v(fmaxf(v_low, sorted.min[v][j])));
    if (home != cell) continue;
    if ((category & sorted.masks[j]) == 0 || (sorted.categories[j] & mask) == 0) continue;
    emit(i, j);
  }
  return candidates;
}

// One work item: sorted box i (axis sweep) or listing i (cells); calls emit(box, partner).
template <bool kCells, class Emit>
__device__ std::uint32_t sweep_item(const SortedArrays& sorted, const CellGrid& grid, int axis,
                                    const Listings& listings, std::uint32_t item,
                                    std::uint32_t items, Emit&& emit) {
  if constexpr (kCells) {
    return sweep_listing(sorted, grid, axis, listings, item, items, emit);
  } else {
    return sweep_box(sorted, axis, item, items, [&](std::uint32_t j) { emit(item, j); });
  }
}

template <bool kCells>
__global__ void count_pairs(SortedArrays sorted, CellGrid grid, int axis, Listings listings,
                            std::uint32_t items, std::uint32_t* pair_counts,
                            unsigned long long* candidates) {
  const std::uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t found = 0;
  std::uint32_t tested = 0;
  if (item < items) {
    tested = sweep_item<kCells>(sorted, grid, axis, listings, item, items,
                                [&](std::uint32_t, std::uint32_t) { ++found; });
    pair_counts[item] = found;
  }
  const std::uint32_t warp_tested = __reduce_add_sync(0xFFFFFFFFu, tested);
  if (threadIdx.x % 32 == 0 && warp_tested != 0) atomicAdd(candidates, warp_tested);
}

template <bool kCells>
__global__ void write_pairs(SortedArrays sorted, CellGrid grid, int axis, Listings listings,
                            std::uint32_t items, const std::uint32_t* offsets, Pair* pairs) {
  const std::uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
  if (item >= items) return;
  std::uint32_t next = offsets[item];
  sweep_item<kCells>(sorted, grid, axis, listings, item, items,
                     [&](std::uint32_t i, std::uint32_t j) {
                       const std::uint32_t a = sorted.ids[i];
                       const std::uint32_t b = sorted.ids[j];
                       pairs[next++] = a < b ? Pair{a, b} : Pair{b, a};
                     });
}

class CudaSweep final : public SweepBackend {
 public:
  CudaSweep() { stream_ = Stream(); }

  void run(const HostBoxes& boxes, int axis, const CellGrid* grid, sort::Algorithm sort_algorithm,
           BroadPhaseStats& stats) override {
    const auto count = static_cast<std::uint32_t>(boxes.size());
    const StreamHandle stream = stream_.handle();
    if (order_.size() != count) {  // first frame, or boxes added or removed: start afresh
      std::vector<std::uint32_t> identity(count);
      for (std::uint32_t i = 0; i < count; ++i)
        identity[i] = i;
      order_.upload(identity, stream);
    }
    {
      auto timer = profiler_.time("upload", Backend::Cuda, stream);
      for (int a = 0; a < 3; ++a) {
        min_[a].upload(boxes.min[a], stream);
        max_[a].upload(boxes.max[a], stream);
      }
      categories_.upload(boxes.categories, stream);
      masks_.upload(boxes.masks, stream);
    }
    keys_.resize_discarding(count);
    if (count > 0) {
      auto timer = profiler_.time("keys", Backend::Cuda, stream);
      build_keys<<<blocks_for(count), kThreads, 0, stream>>>(min_[axis].data(), order_.data(),
                                                             keys_.data(), count);
      RSW_CUDA_CHECK_LAUNCH("launching build_keys");
    }
    {
      auto timer = profiler_.time("sort", Backend::Cuda, stream);
      sorter_.sort_pairs(keys_.span(), order_.span(),
                         {.algorithm = sort_algorithm, .stream = stream});
    }
    {
      auto timer = profiler_.time("sweep", Backend::Cuda, stream);
      sweep(count, axis, grid, sort_algorithm, stream);
    }
    {
      auto timer = profiler_.time("download", Backend::Cuda, stream);
      host_pairs_.resize_discarding(pair_count_);
      if (pair_count_ > 0) pairs_.download(host_pairs_.span(), stream);
    }
    synchronize(stream);
    profiler_.end_frame();
    profiler_.flush();  // the stream is idle: nothing waits
    stats.sort = sorter_.last_stats();
    stats.candidates = static_cast<std::size_t>(host_candidates_[0]);
    stats.pairs = pair_count_;
    if (grid != nullptr) {
      stats.cells = grid->cells();
      stats.cell_entries = listing_count_;
    }
    stats.upload_ms = last_ms("upload");
    stats.keys_ms = last_ms("keys");
    stats.sort_ms = last_ms("sort");
    stats.sweep_ms = last_ms("sweep");
    stats.download_ms = last_ms("download");
  }

  std::span<Pair> pairs() override { return host_pairs_.span(); }

  std::vector<std::uint32_t> export_order() override { return order_.to_vector(stream_.handle()); }
  void import_order(std::vector<std::uint32_t> order) override {
    order_.upload(order, stream_.handle());
  }

 private:
  double last_ms(std::string_view stage) const {
    const auto stage_stats = profiler_.stats(stage);
    return stage_stats && stage_stats->samples > 0 ? stage_stats->last_ms : 0.0;
  }

  // Exclusive scan of counts[0, items) into offsets[0, items]; returns the total (one wait).
  std::uint32_t scan_counts(DeviceBuffer<std::uint32_t>& counts,
                            DeviceBuffer<std::uint32_t>& offsets, std::uint32_t items,
                            StreamHandle stream) {
    std::size_t scan_bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.data(), offsets.data(),
                                                 items + 1, stream),
                   "sizing a count scan");
    scan_temp_.resize_discarding(std::max(scan_temp_.size(), scan_bytes));
    RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.data(), scan_bytes, counts.data(),
                                                 offsets.data(), items + 1, stream),
                   "scanning counts");
    rsw::detail::copy_device_to_host(host_total_.data(), offsets.data() + items,
                                     sizeof(std::uint32_t), stream);
    synchronize(stream);
    return host_total_[0];
  }

  // Sizes a count buffer for `items` counts plus the 0 the scan's total lands on. The count
  // kernels write every other entry, so only that last one is cleared.
  static void prepare_counts(DeviceBuffer<std::uint32_t>& counts,
                             DeviceBuffer<std::uint32_t>& offsets, std::uint32_t items,
                             StreamHandle stream) {
    counts.resize_discarding(std::size_t{items} + 1);
    offsets.resize_discarding(std::size_t{items} + 1);
    rsw::detail::fill_bytes_zero(counts.data() + items, sizeof(std::uint32_t), stream);
  }

  void sweep(std::uint32_t count, int axis, const CellGrid* grid, sort::Algorithm sort_algorithm,
             StreamHandle stream) {
    for (int a = 0; a < 3; ++a) {
      sorted_min_[a].resize_discarding(count);
      sorted_max_[a].resize_discarding(count);
    }
    sorted_categories_.resize_discarding(count);
    sorted_masks_.resize_discarding(count);
    sorted_ids_.resize_discarding(count);
    candidates_.resize_discarding(1);
    candidates_.fill_zero(stream);

    const BoxArrays boxes{{min_[0].data(), min_[1].data(), min_[2].data()},
                          {max_[0].data(), max_[1].data(), max_[2].data()},
                          categories_.data(),
                          masks_.data()};
    const SortedArrays sorted{{sorted_min_[0].data(), sorted_min_[1].data(), sorted_min_[2].data()},
                              {sorted_max_[0].data(), sorted_max_[1].data(), sorted_max_[2].data()},
                              sorted_categories_.data(),
                              sorted_masks_.data(),
                              sorted_ids_.data()};
    if (count > 0) {
      gather_sorted<<<blocks_for(count), kThreads, 0, stream>>>(boxes, order_.data(), sorted,
                                                                count);
      RSW_CUDA_CHECK_LAUNCH("launching gather_sorted");
    }

    std::uint32_t items = count;
    Listings listings{nullptr, nullptr};
    const CellGrid cell_grid = grid != nullptr ? *grid : CellGrid{};
    if (grid != nullptr) {
      prepare_counts(listing_counts_, listing_offsets_, count, stream);
      if (count > 0) {
        count_listings<<<blocks_for(count), kThreads, 0, stream>>>(sorted, cell_grid, count,
                                                                   listing_counts_.data());
        RSW_CUDA_CHECK_LAUNCH("launching count_listings");
      }
      listing_count_ = scan_counts(listing_counts_, listing_offsets_, count, stream);
      listing_cells_.resize_discarding(listing_count_);
      listing_boxes_.resize_discarding(listing_count_);
      listings = {listing_cells_.data(), listing_boxes_.data()};
      if (listing_count_ > 0) {
        fill_listings<<<blocks_for(count), kThreads, 0, stream>>>(
            sorted, cell_grid, count, listing_offsets_.data(), listings);
        RSW_CUDA_CHECK_LAUNCH("launching fill_listings");
        // Stable: inside a cell the listings stay in x order.
        cell_sorter_.sort_pairs(
            listing_cells_.span(), listing_boxes_.span(),
            {.algorithm = sort_algorithm, .end_bit = grid->cell_bits(), .stream = stream});
      }
      items = listing_count_;
    }

    if (grid != nullptr) {
      count_and_write_pairs<true>(sorted, cell_grid, axis, listings, items, stream);
    } else {
      count_and_write_pairs<false>(sorted, cell_grid, axis, listings, items, stream);
    }
  }

  // Count pass, scan, then the write pass into a buffer of exactly the counted size: the
  // pair buffer cannot overflow, so no pair is ever dropped.
  template <bool kCells>
  void count_and_write_pairs(const SortedArrays& sorted, const CellGrid& grid, int axis,
                             const Listings& listings, std::uint32_t items, StreamHandle stream) {
    prepare_counts(pair_counts_, offsets_, items, stream);
    if (items > 0) {
      count_pairs<kCells><<<blocks_for(items), kThreads, 0, stream>>>(
          sorted, grid, axis, listings, items, pair_counts_.data(), candidates_.data());
      RSW_CUDA_CHECK_LAUNCH("launching the sweep's count pass");
    }
    rsw::detail::copy_device_to_host(host_candidates_.data(), candidates_.data(),
                                     sizeof(unsigned long long), stream);
    pair_count_ = scan_counts(pair_counts_, offsets_, items, stream);
    pairs_.resize_discarding(pair_count_);
    if (pair_count_ > 0) {
      write_pairs<kCells><<<blocks_for(items), kThreads, 0, stream>>>(
          sorted, grid, axis, listings, items, offsets_.data(), pairs_.data());
      RSW_CUDA_CHECK_LAUNCH("launching the sweep's write pass");
    }
  }

  Stream stream_;
  StageProfiler profiler_{{.history_frames = 1}};
  sort::Sorter sorter_;
  std::array<DeviceBuffer<float>, 3> min_;
  std::array<DeviceBuffer<float>, 3> max_;
  DeviceBuffer<std::uint32_t> categories_;
  DeviceBuffer<std::uint32_t> masks_;
  DeviceBuffer<std::uint32_t> order_;
  DeviceBuffer<std::uint32_t> keys_;
  std::array<DeviceBuffer<float>, 3> sorted_min_;
  std::array<DeviceBuffer<float>, 3> sorted_max_;
  DeviceBuffer<std::uint32_t> sorted_categories_;
  DeviceBuffer<std::uint32_t> sorted_masks_;
  DeviceBuffer<std::uint32_t> sorted_ids_;
  DeviceBuffer<std::uint32_t> listing_counts_;
  DeviceBuffer<std::uint32_t> listing_offsets_;
  DeviceBuffer<std::uint32_t> listing_cells_;
  DeviceBuffer<std::uint32_t> listing_boxes_;
  sort::Sorter cell_sorter_;
  std::size_t listing_count_ = 0;
  DeviceBuffer<std::uint32_t> pair_counts_;
  DeviceBuffer<std::uint32_t> offsets_;
  DeviceBuffer<unsigned long long> candidates_;
  DeviceBuffer<std::uint8_t> scan_temp_;
  DeviceBuffer<Pair> pairs_;
  PinnedBuffer<std::uint32_t> host_total_{1};
  PinnedBuffer<unsigned long long> host_candidates_{1};
  PinnedBuffer<Pair> host_pairs_;
  std::size_t pair_count_ = 0;
};

}  // namespace

std::unique_ptr<SweepBackend> make_cuda_sweep() {
  return std::make_unique<CudaSweep>();
}

}  // namespace rsw::physics::detail
