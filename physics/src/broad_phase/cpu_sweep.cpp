// The CPU backend: the same algorithm as the GPU one (sorted keys in last frame's order, a
// gather into sorted order, a forward sweep per box), with the sweep split across threads.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <thread>

#include "frame_plan.hpp"
#include "host_boxes.hpp"
#include "pair_order.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"
#include "rsw/sort/key_mapping.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics::detail {
namespace {

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
  /// Some box's mask leaves a category out. Otherwise every listed pair passes the filter
  /// (listed boxes have a category), and the sweep need not look the bits up.
  bool masked = false;
  /// The boxes' worlds in sorted order, which place their listings (WorldCells); empty:
  /// every box in world 0.
  std::vector<std::uint32_t> worlds;

  /// Whether sorted boxes i and j pass each other's filter bits. (Their worlds meet: two
  /// listings in one cell are of one world, or one of them is of every world.)
  bool admitted(std::size_t i, std::size_t j) const {
    const BoxRecord& p = records[i];
    const BoxRecord& q = records[j];
    return !masked || filters_pass(p.category, p.mask, q.category, q.mask);
  }

  void gather(const HostBoxes& boxes, std::span<const std::uint32_t> order, int threads) {
    const std::size_t count = order.size();
    resize_host(packed, count, "the boxes packed into records");
    resize_host(records, count, "the boxes in sorted order");
    resize_host(ids, count, "the indices of the sorted boxes");
    std::ranges::copy(order, ids.begin());
    masked = std::ranges::any_of(boxes.masks, [](std::uint32_t mask) { return mask != ~0u; });
    for_each_part(
        count, kMinBoxesPerThread,
        [&](std::size_t first, std::size_t last) {
          for (std::size_t box = first; box < last; ++box) {
            packed[box] = {{boxes.min[0][box], boxes.min[1][box], boxes.min[2][box]},
                           {boxes.max[0][box], boxes.max[1][box], boxes.max[2][box]},
                           boxes.categories[box],
                           boxes.masks[box]};
          }
        },
        threads);
    for_each_part(
        count, kMinBoxesPerThread,
        [&](std::size_t first, std::size_t last) {
          for (std::size_t j = first; j < last; ++j)
            records[j] = packed[order[j]];
        },
        threads);
    worlds.clear();
    if (!boxes.worlds.empty()) {
      resize_host(worlds, count, "the worlds of the sorted boxes");
      for (std::size_t j = 0; j < count; ++j)
        worlds[j] = boxes.worlds[order[j]];
    }
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
// (Boxes with worlds are swept in cells: sweep_cells.)
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

// Cells mode, or boxes with worlds: every sorted box j is listed in each cell it covers (of
// its world: see WorldCells), in x order; `cells` and `boxes` hold the listings after a stable
// sort by cell, so each cell's run is x-sorted.
// `records` then holds each listing's box in listing order, so that a sweep reads its
// partners one after another rather than from six arrays at scattered places, and finds in
// them the user's indices of the pairs it reports.
struct CellListing {
  struct Record {
    float min_u, max_u;
    float min_v, max_v;
    float min_s, max_s;  // on the sweep axis
    std::uint32_t id;    // the user's index
    std::uint32_t cell;
  };
  static_assert(sizeof(Record) == 32, "a listing is half a cache line");

  std::vector<std::uint32_t> cells;
  std::vector<std::uint32_t> boxes;  // index into the sorted order
  std::vector<Record> records;
  std::vector<std::uint64_t> offsets;  // per sorted box, where its listings start
  std::size_t first_shared = 0;        // the first listing of a kAllWorlds box (the last slot)
};

// The cells box j covers: u0..u1 by v0..v1.
CellRange cells_of(const CellGrid& grid, const BoxRecord& box) {
  return grid.cells_of(box.min[grid.axis_u], box.max[grid.axis_u], box.min[grid.axis_v],
                       box.max[grid.axis_v]);
}

// The listings in sorted box order: counted, numbered, then written, each on the threads.
void list_boxes_in_cells(const SortedBoxes& sorted, const CellGrid& grid, const WorldCells& worlds,
                         CellListing& listing, int threads) {
  const std::size_t count = sorted.ids.size();
  std::vector<std::uint64_t>& offsets = listing.offsets;
  resize_host(offsets, count + 1, "the offsets of the cell listings");
  for_each_part(
      count, kMinBoxesPerThread,
      [&](std::size_t first, std::size_t last) {
        for (std::size_t j = first; j < last; ++j) {
          const BoxRecord& box = sorted.records[j];
          offsets[j] = box.category == 0 ? 0 : cells_of(grid, box).size();  // 0: pairs with nothing
        }
      },
      threads);
  offsets[count] = 0;
  std::exclusive_scan(offsets.begin(), offsets.end(), offsets.begin(), std::uint64_t{0});
  const std::uint64_t entries = offsets[count];
  if (entries > std::uint64_t{BoxSummary::kNoBox}) {
    throw too_many_listings(entries);
  }
  resize_host(listing.cells, entries, "the cells of the listings");
  resize_host(listing.boxes, entries, "the boxes of the listings");
  for_each_part(
      count, kMinBoxesPerThread,
      [&](std::size_t first, std::size_t last) {
        for (std::size_t j = first; j < last; ++j) {
          if (offsets[j] == offsets[j + 1]) continue;
          const CellRange range = cells_of(grid, sorted.records[j]);
          const std::uint32_t world = sorted.worlds.empty() ? 0u : sorted.worlds[j];
          std::uint64_t next = offsets[j];
          for (std::uint32_t u = range.u0; u <= range.u1; ++u) {
            for (std::uint32_t v = range.v0; v <= range.v1; ++v, ++next) {
              listing.cells[next] = worlds.cell(grid.cell_id(u, v), world);
              listing.boxes[next] = static_cast<std::uint32_t>(j);
            }
          }
        }
      },
      threads);
}

// The records of the (cell-sorted) listings.
void gather_listings(const SortedBoxes& sorted, const CellGrid& grid, int axis,
                     CellListing& listing, int threads) {
  const std::size_t entries = listing.cells.size();
  resize_host(listing.records, entries, "the records of the listings");
  const int u = grid.axis_u;
  const int v = grid.axis_v;
  for_each_part(
      entries, kMinBoxesPerThread,
      [&](std::size_t first, std::size_t last) {
        for (std::size_t e = first; e < last; ++e) {
          const std::uint32_t j = listing.boxes[e];
          const BoxRecord& box = sorted.records[j];
          listing.records[e] = {box.min[u],    box.max[u],    box.min[v],    box.max[v],
                                box.min[axis], box.max[axis], sorted.ids[j], listing.cells[e]};
        }
      },
      threads);
}

// Whether listings r and q, which overlap, meet in their pair's home cell: the grid cell of
// (max of the min u, max of the min v), which both boxes cover. Reporting a pair only there
// reports it once.
bool in_home_cell(const CellGrid& grid, const WorldCells& worlds, const CellListing::Record& r,
                  const CellListing::Record& q) {
  const std::uint32_t home = grid.cell_id(grid.cell_u(std::max(r.min_u, q.min_u)),
                                          grid.cell_v(std::max(r.min_v, q.min_v)));
  return home == worlds.grid_cell(r.cell);
}

bool overlap_across(const CellListing::Record& r, const CellListing::Record& q) {
  return q.min_u <= r.max_u && r.min_u <= q.max_u && q.min_v <= r.max_v && r.min_v <= q.max_v;
}

// Sweeps listings [first, last) forward inside their cell, reporting pairs in their home cell.
void sweep_cells(const SortedBoxes& sorted, const CellGrid& grid, const WorldCells& worlds,
                 const CellListing& listing, std::size_t first, std::size_t last,
                 SweepResult& result) {
  const std::size_t entries = listing.records.size();
  const CellListing::Record* records = listing.records.data();
  for (std::size_t e = first; e < last; ++e) {
    const CellListing::Record r = records[e];
    for (std::size_t f = e + 1; f < entries; ++f) {
      const CellListing::Record& q = records[f];
      if (q.cell != r.cell || q.min_s > r.max_s) break;
      ++result.candidates;
      if (!overlap_across(r, q) || !in_home_cell(grid, worlds, r, q)) continue;
      if (!sorted.admitted(listing.boxes[e], listing.boxes[f])) continue;
      result.pairs.push_back(r.id < q.id ? Pair{r.id, q.id} : Pair{q.id, r.id});
    }
  }
}

// The boxes of a world listed in [first, last) against the kAllWorlds boxes: each listing
// walks the shared slot's listings of its grid cell (found by a binary search) up to its
// maximum on the sweep axis, and reports the pairs whose home that cell is.
void meet_shared(const SortedBoxes& sorted, const CellGrid& grid, const WorldCells& worlds,
                 const CellListing& listing, std::size_t first, std::size_t last,
                 SweepResult& result) {
  const std::size_t entries = listing.records.size();
  const CellListing::Record* records = listing.records.data();
  const auto shared_begin =
      listing.cells.begin() + static_cast<std::ptrdiff_t>(listing.first_shared);
  for (std::size_t e = first; e < std::min(last, listing.first_shared); ++e) {
    const CellListing::Record r = records[e];
    const std::uint32_t cell = worlds.shared_cell(worlds.grid_cell(r.cell));
    auto f = static_cast<std::size_t>(std::lower_bound(shared_begin, listing.cells.end(), cell) -
                                      listing.cells.begin());
    for (; f < entries; ++f) {
      const CellListing::Record& q = records[f];
      if (q.cell != cell || q.min_s > r.max_s) break;
      ++result.candidates;
      if (q.max_s < r.min_s || !overlap_across(r, q) || !in_home_cell(grid, worlds, r, q)) {
        continue;
      }
      if (!sorted.admitted(listing.boxes[e], listing.boxes[f])) continue;
      result.pairs.push_back(r.id < q.id ? Pair{r.id, q.id} : Pair{q.id, r.id});
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
    stats.excluded_boxes = load_boxes(source, request.invalid_boxes, boxes_, max_threads_);
    const BoxSummary summary = summarize(boxes_, max_threads_);
    const bool world_ids = !boxes_.worlds.empty();
    const FramePlan plan = plan_frame(summary, request.axis, request.mode, world_ids);
    const double load_ms = ms_since(start);
    stats.sweep_axis = plan.axis;
    std::vector<Pair>& pairs = pairs_.rewrite();
    sort_and_sweep(boxes_, plan, request.mode, request.sort, pairs, stats);
    stats.keys_ms += load_ms;  // validation and the plan count with the keys
    const Clock::time_point sort_start = Clock::now();
    std::vector<std::uint32_t>& offsets = offsets_.rewrite();
    offsets.clear();
    if (request.group_by_world) {
      group_pairs_by_world(pairs, boxes_.worlds, worlds_present(summary, world_ids), offsets,
                           pair_sorter_);
    } else if (request.sorted_pairs) {
      sort_pairs_lexicographically(pairs, pair_sorter_);
    }
    stats.pair_sort_ms = ms_since(sort_start);
  }

  std::span<const Pair> host_pairs(BroadPhaseStats&) override { return pairs_.host(); }
  DeviceSpan<const Pair> device_pairs() override { return pairs_.device(); }
  std::span<const std::uint32_t> host_world_offsets() override { return offsets_.host(); }
  DeviceSpan<const std::uint32_t> device_world_offsets() override { return offsets_.device(); }
  std::vector<std::uint32_t> export_order() override { return order_; }
  void import_order(std::vector<std::uint32_t> order) override { order_ = std::move(order); }

 private:
  // Keys, sort, listings and the sweep, each timed as its stage. Boxes are listed in cells in
  // SweepMode::Cells, and when they carry worlds (each world's cells apart; one grid cell in
  // SweepMode::AxisSweep).
  void sort_and_sweep(const HostBoxes& boxes, const FramePlan& plan, SweepMode mode,
                      sort::Algorithm sort_algorithm, std::vector<Pair>& pairs,
                      BroadPhaseStats& stats) {
    const std::size_t count = boxes.size();
    const int axis = plan.axis;
    const WorldCells& worlds = plan.worlds;
    const CellGrid* grid = mode == SweepMode::Cells || worlds.on ? &plan.grid : nullptr;
    if (order_.size() != count) {  // first frame, or boxes added or removed: start afresh
      resize_host(order_, count, "the sort order of the boxes");
      std::iota(order_.begin(), order_.end(), 0u);
    }

    Clock::time_point start = Clock::now();
    resize_host(keys_, count, "the sort keys of the boxes");
    for_each_part(
        count, kMinBoxesPerThread,
        [&](std::size_t first, std::size_t last) {
          for (std::size_t j = first; j < last; ++j)
            keys_[j] = sort::ordered_key(boxes.min[axis][order_[j]]);
        },
        max_threads_);
    stats.keys_ms = ms_since(start);

    start = Clock::now();
    sorter_.sort_pairs(keys_, order_, {.algorithm = sort_algorithm});
    stats.sort = sorter_.last_stats();
    stats.sort_ms = ms_since(start);

    start = Clock::now();
    sorted_.gather(boxes, order_, max_threads_);
    std::size_t work = count;  // boxes, or listings in cells mode
    if (grid != nullptr) {
      list_boxes_in_cells(sorted_, *grid, worlds, listing_, max_threads_);
      // Stable: inside a cell the listings stay in x order.
      const int cell_bits = worlds.on ? worlds.cell_bits() : grid->cell_bits();
      cell_sorter_.sort_pairs(listing_.cells, listing_.boxes,
                              {.algorithm = sort::Algorithm::Cpu, .end_bit = cell_bits});
      gather_listings(sorted_, *grid, axis, listing_, max_threads_);
      work = listing_.cells.size();
      listing_.first_shared = work;
      if (worlds.on) {
        listing_.first_shared = static_cast<std::size_t>(
            std::ranges::lower_bound(listing_.cells, worlds.shared_cell(0)) -
            listing_.cells.begin());
      }
      if (mode == SweepMode::Cells) stats.cells = grid->cells();
      stats.cell_entries = work;
    }
    stats.list_ms = ms_since(start);

    start = Clock::now();
    const int threads = static_cast<int>(std::clamp<std::size_t>(
        work / kMinBoxesPerThread, 1, static_cast<std::size_t>(max_threads_)));
    results_.resize(static_cast<std::size_t>(threads));
    // Interleaved blocks of boxes per thread: long sweeps (big boxes) are spread out.
    const auto sweep_part = [&](int thread) {
      SweepResult& result = results_[static_cast<std::size_t>(thread)];
      result.pairs.clear();
      result.candidates = 0;
      constexpr std::size_t kBlock = 1024;
      try {
        for (std::size_t first = static_cast<std::size_t>(thread) * kBlock; first < work;
             first += static_cast<std::size_t>(threads) * kBlock) {
          const std::size_t last = std::min(work, first + kBlock);
          if (grid != nullptr) {
            sweep_cells(sorted_, *grid, worlds, listing_, first, last, result);
            meet_shared(sorted_, *grid, worlds, listing_, first, last, result);
          } else {
            sweep_range(sorted_, axis, first, last, result);
          }
        }
      } catch (const std::bad_alloc&) {  // the thread's pair list could not grow
        throw host_allocation_error("the pairs of one sweep thread, past the " +
                                        std::to_string(result.pairs.size()) + " it had found",
                                    2 * result.pairs.capacity() * sizeof(Pair));
      }
    };
    run_on_threads(threads, sweep_part);
    // The threads' pairs one after another, each copied by its own thread.
    std::vector<std::size_t> offsets(results_.size() + 1, 0);
    stats.candidates = 0;
    for (std::size_t part = 0; part < results_.size(); ++part) {
      offsets[part + 1] = offsets[part] + results_[part].pairs.size();
      stats.candidates += results_[part].candidates;
    }
    resize_host(pairs, offsets.back(), "the pairs");
    for_each_part(
        results_.size(), 1,
        [&](std::size_t first, std::size_t last) {
          for (std::size_t part = first; part < last; ++part)
            std::ranges::copy(results_[part].pairs,
                              pairs.begin() + static_cast<std::ptrdiff_t>(offsets[part]));
        },
        threads);
    stats.pairs = pairs.size();
    stats.sweep_ms = ms_since(start);
  }

  int max_threads_;
  HostBoxes boxes_;
  sort::Sorter pair_sorter_;
  sort::Sorter sorter_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> keys_;
  SortedBoxes sorted_;
  CellListing listing_;
  sort::Sorter cell_sorter_;
  std::vector<SweepResult> results_;
  HostPairs pairs_;
  HostOffsets offsets_;
};

}  // namespace

std::unique_ptr<SweepBackend> make_cpu_sweep(int threads) {
  return std::make_unique<CpuSweep>(threads);
}

}  // namespace rsw::physics::detail
