// The CPU backend: the same algorithm as the GPU one (sorted keys in last frame's order, a
// gather into sorted order, a forward sweep per box), with the sweep split across threads.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "frame_plan.hpp"
#include "host_boxes.hpp"
#include "parallel.hpp"
#include "rsw/sort/key_mapping.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics::detail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Below this many boxes per thread, threads cost more than they save.
constexpr std::size_t kMinBoxesPerThread = 16 * 1024;

/// A box as the sweep reads it: 32 bytes, so that each box is one read wherever it lies.
struct BoxRecord {
  float min[3];
  float max[3];
  std::uint32_t category;
  std::uint32_t mask;
};
static_assert(sizeof(BoxRecord) == 32, "a box is half a cache line");

/// Boxes in sorted order along the sweep axis, with their original indices. The boxes are
/// packed into records in the user's order first (reading the arrays in order), then gathered
/// into sorted order record by record: one scattered read per box, not eight.
struct SortedBoxes {
  std::vector<BoxRecord> packed;   // the user's order
  std::vector<BoxRecord> records;  // sorted order
  std::vector<std::uint32_t> ids;

  void gather(const HostBoxes& boxes, std::span<const std::uint32_t> order, int threads) {
    const std::size_t count = order.size();
    packed.resize(count);
    records.resize(count);
    ids.assign(order.begin(), order.end());
    for_each_part(count, kMinBoxesPerThread, [&](std::size_t first, std::size_t last) {
      for (std::size_t box = first; box < last; ++box) {
        packed[box] = {{boxes.min[0][box], boxes.min[1][box], boxes.min[2][box]},
                       {boxes.max[0][box], boxes.max[1][box], boxes.max[2][box]},
                       boxes.categories[box],
                       boxes.masks[box]};
      }
    }, threads);
    for_each_part(count, kMinBoxesPerThread, [&](std::size_t first, std::size_t last) {
      for (std::size_t j = first; j < last; ++j)
        records[j] = packed[order[j]];
    }, threads);
  }
};

struct SweepResult {
  std::vector<Pair> pairs;
  std::size_t candidates = 0;
};

// Whether boxes p and q overlap on axes u and v (they do on the sweep axis).
bool overlap_across(const BoxRecord& p, const BoxRecord& q, int u, int v) {
  return q.min[u] <= p.max[u] && p.min[u] <= q.max[u] && q.min[v] <= p.max[v] &&
         p.min[v] <= q.max[v];
}

// Adds the pair of sorted boxes i and j, by original index, if their filter bits admit it.
void report_if_admitted(const SortedBoxes& sorted, std::size_t i, std::size_t j,
                        SweepResult& result) {
  const BoxRecord& p = sorted.records[i];
  const BoxRecord& q = sorted.records[j];
  if (!filters_pass(p.category, p.mask, q.category, q.mask)) return;
  const std::uint32_t a = sorted.ids[i];
  const std::uint32_t b = sorted.ids[j];
  result.pairs.push_back(a < b ? Pair{a, b} : Pair{b, a});
}

// Sweeps boxes [first, last) of the sorted order forward along `axis`.
void sweep_range(const SortedBoxes& sorted, int axis, std::size_t first, std::size_t last,
                 SweepResult& result) {
  const int other_a = (axis + 1) % 3;
  const int other_b = (axis + 2) % 3;
  const std::size_t count = sorted.ids.size();
  const BoxRecord* records = sorted.records.data();
  for (std::size_t i = first; i < last; ++i) {
    const BoxRecord p = records[i];
    if (p.category == 0) continue;  // excluded, or a category no mask admits
    for (std::size_t j = i + 1; j < count && records[j].min[axis] <= p.max[axis]; ++j) {
      ++result.candidates;
      if (overlap_across(p, records[j], other_a, other_b)) report_if_admitted(sorted, i, j, result);
    }
  }
}

// Cells mode: every sorted box j is listed in each cell it covers, in x order; `cells` and
// `boxes` hold the listings after a stable sort by cell, so each cell's run is x-sorted.
// `records` then holds each listing's box in listing order, so that a sweep reads its
// partners one after another rather than from six arrays at scattered places.
struct CellListing {
  struct Record {
    float min_u, max_u;
    float min_v, max_v;
    float min_s, max_s;  // on the sweep axis
    std::uint32_t box;   // index into the sorted order
    std::uint32_t cell;
  };
  static_assert(sizeof(Record) == 32, "a listing is half a cache line");

  std::vector<std::uint32_t> cells;
  std::vector<std::uint32_t> boxes;  // index into the sorted order
  std::vector<Record> records;
};

void list_boxes_in_cells(const SortedBoxes& sorted, const CellGrid& grid, CellListing& listing) {
  const std::size_t count = sorted.ids.size();
  listing.cells.clear();
  listing.boxes.clear();
  for (std::size_t j = 0; j < count; ++j) {
    const BoxRecord& box = sorted.records[j];
    if (box.category == 0) continue;  // pairs with nothing: list it nowhere
    const std::uint32_t u0 = grid.cell_u(box.min[grid.axis_u]);
    const std::uint32_t u1 = grid.cell_u(box.max[grid.axis_u]);
    const std::uint32_t v0 = grid.cell_v(box.min[grid.axis_v]);
    const std::uint32_t v1 = grid.cell_v(box.max[grid.axis_v]);
    for (std::uint32_t u = u0; u <= u1; ++u) {
      for (std::uint32_t v = v0; v <= v1; ++v) {
        listing.cells.push_back(grid.cell_id(u, v));
        listing.boxes.push_back(static_cast<std::uint32_t>(j));
      }
    }
  }
}

// The records of the (cell-sorted) listings.
void gather_listings(const SortedBoxes& sorted, const CellGrid& grid, int axis,
                     CellListing& listing, int threads) {
  const std::size_t entries = listing.cells.size();
  listing.records.resize(entries);
  const int u = grid.axis_u;
  const int v = grid.axis_v;
  for_each_part(entries, kMinBoxesPerThread, [&](std::size_t first, std::size_t last) {
    for (std::size_t e = first; e < last; ++e) {
      const std::uint32_t j = listing.boxes[e];
      const BoxRecord& box = sorted.records[j];
      listing.records[e] = {box.min[u],    box.max[u],    box.min[v], box.max[v],
                            box.min[axis], box.max[axis], j,          listing.cells[e]};
    }
  }, threads);
}

// Sweeps listings [first, last) forward inside their cell; a pair is reported only in the
// cell of (max of the min u, max of the min v), which both boxes cover when they overlap.
void sweep_cells(const SortedBoxes& sorted, const CellGrid& grid, const CellListing& listing,
                 std::size_t first, std::size_t last, SweepResult& result) {
  const std::size_t entries = listing.records.size();
  const CellListing::Record* records = listing.records.data();
  for (std::size_t e = first; e < last; ++e) {
    const CellListing::Record r = records[e];
    for (std::size_t f = e + 1; f < entries; ++f) {
      const CellListing::Record& q = records[f];
      if (q.cell != r.cell || q.min_s > r.max_s) break;
      ++result.candidates;
      if (!(q.min_u <= r.max_u && r.min_u <= q.max_u && q.min_v <= r.max_v &&
            r.min_v <= q.max_v)) {
        continue;
      }
      const std::uint32_t home = grid.cell_id(grid.cell_u(std::max(r.min_u, q.min_u)),
                                              grid.cell_v(std::max(r.min_v, q.min_v)));
      if (home == r.cell) report_if_admitted(sorted, r.box, q.box, result);  // else: another cell's
    }
  }
}

class CpuSweep final : public SweepBackend {
 public:
  explicit CpuSweep(int threads)
      : max_threads_(threads > 0 ? threads
                                 : std::clamp(static_cast<int>(std::thread::hardware_concurrency()),
                                              1, 16)) {}

  void run(const BoxSource& source, const FrameRequest& request, BroadPhaseStats& stats) override {
    const Clock::time_point start = Clock::now();
    stats.excluded_boxes = load_boxes(source, request.invalid_boxes, boxes_);
    const FramePlan plan = plan_frame(summarize(boxes_), request.axis, request.mode);
    const double load_ms = ms_since(start);
    stats.sweep_axis = plan.axis;
    const CellGrid* grid = request.mode == SweepMode::Cells ? &plan.grid : nullptr;
    sweep(boxes_, plan.axis, grid, request.sort, stats);
    stats.keys_ms += load_ms;  // validation and the plan count with the keys
    if (request.sorted_pairs) {
      const Clock::time_point sort_start = Clock::now();
      sort_pairs_lexicographically(pairs_, pair_sorter_);
      stats.sweep_ms += ms_since(sort_start);
    }
    device_pairs_valid_ = false;
  }

  std::span<const Pair> host_pairs(BroadPhaseStats&) override { return pairs_; }
  DeviceSpan<const Pair> device_pairs() override {
    if (!device_pairs_valid_) {
      device_pairs_.upload(pairs_);
      synchronize(nullptr);
      device_pairs_valid_ = true;
    }
    return device_pairs_.span();
  }
  std::vector<std::uint32_t> export_order() override { return order_; }
  void import_order(std::vector<std::uint32_t> order) override { order_ = std::move(order); }

 private:
  void sweep(const HostBoxes& boxes, int axis, const CellGrid* grid, sort::Algorithm sort_algorithm,
             BroadPhaseStats& stats) {
    const std::size_t count = boxes.size();
    if (order_.size() != count) {  // first frame, or boxes added or removed: start afresh
      order_.resize(count);
      std::iota(order_.begin(), order_.end(), 0u);
    }

    Clock::time_point start = Clock::now();
    keys_.resize(count);
    for (std::size_t j = 0; j < count; ++j)
      keys_[j] = sort::ordered_key(boxes.min[axis][order_[j]]);
    stats.keys_ms = ms_since(start);

    start = Clock::now();
    sorter_.sort_pairs(keys_, order_, {.algorithm = sort_algorithm});
    stats.sort = sorter_.last_stats();
    stats.sort_ms = ms_since(start);

    start = Clock::now();
    sorted_.gather(boxes, order_, max_threads_);
    std::size_t work = count;  // boxes, or listings in cells mode
    if (grid != nullptr) {
      list_boxes_in_cells(sorted_, *grid, listing_);
      // Stable: inside a cell the listings stay in x order.
      cell_sorter_.sort_pairs(listing_.cells, listing_.boxes,
                              {.algorithm = sort::Algorithm::Cpu, .end_bit = grid->cell_bits()});
      gather_listings(sorted_, *grid, axis, listing_, max_threads_);
      work = listing_.cells.size();
      stats.cells = grid->cells();
      stats.cell_entries = work;
    }
    const int threads = static_cast<int>(std::clamp<std::size_t>(
        work / kMinBoxesPerThread, 1, static_cast<std::size_t>(max_threads_)));
    results_.resize(static_cast<std::size_t>(threads));
    // Interleaved blocks of boxes per thread: long sweeps (big boxes) are spread out.
    const auto sweep_part = [&](int thread) {
      SweepResult& result = results_[static_cast<std::size_t>(thread)];
      result.pairs.clear();
      result.candidates = 0;
      constexpr std::size_t kBlock = 1024;
      for (std::size_t first = static_cast<std::size_t>(thread) * kBlock; first < work;
           first += static_cast<std::size_t>(threads) * kBlock) {
        const std::size_t last = std::min(work, first + kBlock);
        if (grid != nullptr) {
          sweep_cells(sorted_, *grid, listing_, first, last, result);
        } else {
          sweep_range(sorted_, axis, first, last, result);
        }
      }
    };
    {
      std::vector<std::jthread> workers;
      for (int thread = 1; thread < threads; ++thread)
        workers.emplace_back(sweep_part, thread);
      sweep_part(0);
    }
    pairs_.clear();
    stats.candidates = 0;
    for (const SweepResult& result : results_) {
      pairs_.insert(pairs_.end(), result.pairs.begin(), result.pairs.end());
      stats.candidates += result.candidates;
    }
    stats.pairs = pairs_.size();
    stats.sweep_ms = ms_since(start);
  }

  int max_threads_;
  HostBoxes boxes_;
  sort::Sorter pair_sorter_;
  DeviceBuffer<Pair> device_pairs_;
  bool device_pairs_valid_ = false;
  sort::Sorter sorter_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> keys_;
  SortedBoxes sorted_;
  CellListing listing_;
  sort::Sorter cell_sorter_;
  std::vector<SweepResult> results_;
  std::vector<Pair> pairs_;
};

}  // namespace

std::unique_ptr<SweepBackend> make_cpu_sweep(int threads) {
  return std::make_unique<CpuSweep>(threads);
}

}  // namespace rsw::physics::detail
