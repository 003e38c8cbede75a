// The CPU backends of World. The CPU one runs the GPU's algorithm on threads: the static cells
// rebuilt only when statics change (static_cells.hpp), the moving proxies swept among
// themselves by BroadPhase's CPU sweep, each moving proxy looked up in the static cells, the
// pairs sorted and compared with the last step's. Brute force tests every pair that holds a
// moving proxy: the oracle.
#include <algorithm>
#include <bit>
#include <string>
#include <thread>

#include "../broad_phase/sweep_backend.hpp"
#include "pair_events.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"
#include "static_cells.hpp"
#include "world_backend.hpp"

namespace rsw::physics::detail {
namespace {

// Below this many moving proxies per thread, threads cost more than they save.
constexpr std::size_t kMinProxiesPerThread = 4 * 1024;

// The static proxies listed in the cells of their own grid, in host memory.
class HostStaticCells {
 public:
  // Lists the live statics (invalid ones excluded, or an error under Reject); returns the
  // number excluded.
  std::size_t build(const ProxyTable& table, const WorldOptions& options) {
    std::size_t excluded = 0;
    BoxSummary summary = BoxSummary::empty();
    listed_.clear();
    for (const std::uint32_t slot : table.statics()) {
      float low[3];
      float high[3];
      corners(table.boxes[slot], low, high);
      if (!box_is_valid(low, high)) {
        if (options.invalid_boxes == InvalidBoxes::Reject)
          throw table.invalid_box_error(slot, table.boxes[slot]);
        ++excluded;
        continue;
      }
      if (table.categories()[slot] == 0) continue;  // pairs with nothing
      summary.add(low, high);
      listed_.push_back(slot);
    }
    view_ = {};
    if (listed_.empty()) return excluded;
    view_.axis = plan_axis(summary, options.axis);
    view_.grid = plan_grid(summary, view_.axis);
    view_.small_extent = small_extent_of(summary, view_.axis);
    view_.cells = view_.grid.cells();
    const int cell_bits = std::bit_width(view_.cells);

    keyed_.clear();
    for (const std::uint32_t slot : listed_) {
      float low[3];
      float high[3];
      corners(table.boxes[slot], low, high);
      const StaticListing listing = make_listing(view_, low, high, slot);
      const bool small = is_small_static(listing.min_s, listing.max_s, view_.small_extent);
      const CellRange range =
          view_.grid.cells_of(listing.min_u, listing.max_u, listing.min_v, listing.max_v);
      for (std::uint32_t u = range.u0; u <= range.u1; ++u) {
        for (std::uint32_t v = range.v0; v <= range.v1; ++v) {
          const std::uint32_t cell = view_.grid.cell_id(u, v);
          keyed_.push_back({listing_key(small, cell, cell_bits, listing.min_s), listing});
        }
      }
    }
    if (keyed_.size() > std::uint64_t{BoxSummary::kNoBox}) throw too_many_listings(keyed_.size());
    std::ranges::sort(keyed_, {}, &Keyed::key);
    resize_host(listings_, keyed_.size(), "the static listings");
    std::ranges::transform(keyed_, listings_.begin(), &Keyed::listing);
    resize_host(small_start_, std::size_t{view_.cells} + 1, "the starts of the static cells");
    resize_host(long_start_, std::size_t{view_.cells} + 1, "the starts of the static cells");
    for (std::uint32_t cell = 0; cell <= view_.cells; ++cell) {
      const auto start = [&](bool small) {
        const auto at =
            std::ranges::lower_bound(keyed_, first_key_of(small, cell, cell_bits), {}, &Keyed::key);
        return static_cast<std::uint32_t>(at - keyed_.begin());
      };
      small_start_[cell] = start(true);
      long_start_[cell] = start(false);
    }
    for (std::uint32_t cell = 0; cell < view_.cells; ++cell)
      mark_reaches(listings_.data(), small_start_[cell], small_start_[cell + 1]);
    view_.small_start = small_start_.data();
    view_.long_start = long_start_.data();
    view_.listings = listings_.data();
    return excluded;
  }

  /// The listings, reading the filter bits from `table` (whose arrays move as it grows).
  StaticCellsView view(const ProxyTable& table) const {
    StaticCellsView view = view_;
    view.categories = table.categories().data();
    view.masks = table.masks().data();
    view.worlds = table.worlds().data();
    return view;
  }
  std::size_t listings() const { return listings_.size(); }

 private:
  struct Keyed {
    std::uint64_t key;
    StaticListing listing;
  };
  StaticCellsView view_;
  std::vector<std::uint32_t> listed_;
  std::vector<Keyed> keyed_;
  std::vector<StaticListing> listings_;
  std::vector<std::uint32_t> small_start_;
  std::vector<std::uint32_t> long_start_;
};

class CpuWorld final : public WorldBackend {
 public:
  CpuWorld(const ProxyTable& table, bool brute_force)
      : table_(table),
        brute_force_(brute_force),
        sweep_(brute_force ? make_brute_force_sweep() : make_cpu_sweep(0)),
        threads_(std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 16)) {}

  void step(const TableChanges& changes, const WorldOptions& options, WorldStats& stats) override {
    if (!changes.moved.empty() || changes.layout) tree_built_ = false;
    Clock::time_point start = Clock::now();
    if (!brute_force_ && (changes.statics || first_step_)) {
      static_excluded_ = statics_.build(table_, options);
      stats.statics_listed = true;
    }
    stats.statics_ms = ms_since(start);

    start = Clock::now();
    sweep_moving(options, stats);
    stats.moving_ms = ms_since(start);

    start = Clock::now();
    if (brute_force_) {
      test_statics_by_brute_force(options);
    } else {
      query_statics(options);
    }
    stats.query_ms = ms_since(start);

    start = Clock::now();
    const std::span<const Pair> moving_pairs = sweep_->host_pairs(stats.moving);
    const std::span<const std::uint32_t> moving = table_.moving();
    const std::size_t static_pairs = keys_.size();
    resize_host(keys_, static_pairs + moving_pairs.size(), "the keys of the pairs");
    std::ranges::transform(moving_pairs, keys_.begin() + static_cast<std::ptrdiff_t>(static_pairs),
                           [&](const Pair& p) { return pair_key(moving[p.a], moving[p.b], 32); });
    std::ranges::sort(keys_);
    resize_host(next_, keys_.size(), "the pairs");
    std::ranges::transform(keys_, next_.begin(),
                           [](std::uint64_t key) { return pair_of_key(key, 32); });
    stats.pair_sort_ms = ms_since(start);

    start = Clock::now();
    find_pair_events(pairs_, next_, found_, lost_);
    stats.events_ms = ms_since(start);

    pairs_.swap(next_);
    first_step_ = false;
    device_ready_ = {};
    stats.excluded_proxies = static_excluded_ + stats.moving.excluded_boxes;
    stats.candidates = stats.moving.candidates + candidates_;
    stats.moving_pairs = moving_pairs.size();
    stats.static_pairs = static_pairs;
    stats.pairs = pairs_.size();
    stats.found = found_.size();
    stats.lost = lost_.size();
  }

  std::span<const Pair> host_pairs(PairSet set) override { return set_of(set); }

  DeviceSpan<const ProxyPair> device_pairs(PairSet set) override {
    const auto index = static_cast<std::size_t>(set);
    if (!device_ready_[index]) {
      const std::span<const Pair> pairs = set_of(set);
      resize_host(named_, pairs.size(), "the pairs named by their proxies");
      std::ranges::transform(pairs, named_.begin(), [&](const Pair& p) {
        return ProxyPair{table_.id_of(p.a), table_.id_of(p.b)};
      });
      device_[index].upload(named_);
      synchronize(nullptr);
      device_ready_[index] = true;
    }
    return device_[index].span();
  }

  void place(std::span<const std::uint32_t>, DeviceSpan<const Aabb>, const TableChanges&,
             StreamHandle) override {
    throw Error(ErrorKind::InvalidArgument, "the CPU world keeps no boxes on the device");
  }
  void move(DeviceSpan<const ProxyId>, DeviceSpan<const Aabb>, const TableChanges&,
            StreamHandle) override {
    throw Error(ErrorKind::InvalidArgument, "the CPU world keeps no boxes on the device");
  }
  bool on_device() const noexcept override { return false; }

  std::span<const Pair> query(std::span<const Aabb> regions, const QueryOptions& options,
                              const WorldOptions&, const TableChanges& changes) override {
    const LeafFilter filter{options.mask, options.world, table_.worlds().data()};
    if (brute_force_) {
      query_by_brute_force(regions, filter);
    } else {
      overlap_regions(ready_tree(changes), regions, filter, query_pairs_);
    }
    return query_pairs_;
  }
  DeviceSpan<const QueryHit> query(DeviceSpan<const Aabb>, const QueryOptions&, const WorldOptions&,
                                   const TableChanges&, std::optional<std::uint32_t>&) override {
    throw Error(ErrorKind::InvalidArgument, "the CPU world keeps no boxes on the device");
  }

  std::span<const SlotHit> raycast(std::span<const Ray> rays, const RaycastOptions& options,
                                   const WorldOptions&, const TableChanges& changes) override {
    const LeafFilter filter{options.mask, options.world, table_.worlds().data()};
    if (brute_force_) {
      cast_by_brute_force(rays, filter, options.all_hits);
      return ray_hits_;
    }
    cast_rays(ready_tree(changes), rays, filter, options.all_hits, ray_hits_);
    return ray_hits_;
  }
  DeviceSpan<const RayHit> raycast(DeviceSpan<const Ray>, const RaycastOptions&,
                                   const WorldOptions&, const TableChanges&,
                                   std::optional<std::uint32_t>&) override {
    throw Error(ErrorKind::InvalidArgument, "the CPU world keeps no boxes on the device");
  }

 private:
  // The tree of the slots' boxes as they are now: built again when the boxes changed since it
  // was (the changes since the last step are those the table lists; a step with changes
  // marks it old).
  TreeView ready_tree(const TableChanges& changes) {
    if (!tree_built_ || !changes.moved.empty() || changes.layout) {
      tree_built_ = false;
      resize_host(tree_categories_, table_.slots(), "the tree's categories");
      for (std::size_t slot = 0; slot < table_.slots(); ++slot)
        tree_categories_[slot] = category_of(slot);
      tree_.build(table_.boxes, tree_categories_);
      tree_built_ = true;
    }
    return tree_.view();
  }

  // A slot's category for the queries: 0 (met by nothing) for a free slot.
  std::uint32_t category_of(std::size_t slot) const {
    return table_.states()[slot] == SlotState::Free ? 0u : table_.categories()[slot];
  }

  // A slot's box as a leaf (met by nothing for a free slot or an invalid box).
  TreeLeaf leaf_of(std::size_t slot) const {
    return make_leaf(table_.boxes[slot], static_cast<std::uint32_t>(slot), category_of(slot));
  }

  // Every region against every live proxy's box: the oracle.
  void query_by_brute_force(std::span<const Aabb> regions, const LeafFilter& filter) {
    query_pairs_.clear();
    for (std::size_t q = 0; q < regions.size(); ++q) {
      TreeBounds region;
      corners(regions[q], region.low, region.high);
      for (std::size_t slot = 0; slot < table_.slots(); ++slot) {
        const TreeLeaf leaf = leaf_of(slot);
        if (filter.passes(leaf) && bounds_overlap(region, leaf.bounds))
          query_pairs_.push_back({static_cast<std::uint32_t>(q), leaf.slot});
      }
    }
  }

  // Every ray against every live proxy's box: the oracle.
  void cast_by_brute_force(std::span<const Ray> rays, const LeafFilter& filter, bool all_hits) {
    ray_hits_.clear();
    for (std::size_t r = 0; r < rays.size(); ++r) {
      const std::size_t first = ray_hits_.size();
      const RayProbe probe = probe_of(rays[r]);
      for (std::size_t slot = 0; slot < table_.slots(); ++slot) {
        const TreeLeaf leaf = leaf_of(slot);
        float t;
        if (filter.passes(leaf) && ray_entry(probe, leaf.bounds, t))
          ray_hits_.push_back({static_cast<std::uint32_t>(r), leaf.slot, t});
      }
      const auto begin = ray_hits_.begin() + static_cast<std::ptrdiff_t>(first);
      std::sort(begin, ray_hits_.end(), [](const SlotHit& a, const SlotHit& b) {
        return a.t != b.t ? a.t < b.t : a.slot < b.slot;
      });
      if (!all_hits && begin != ray_hits_.end()) ray_hits_.erase(begin + 1, ray_hits_.end());
    }
  }

  std::span<const Pair> set_of(PairSet set) const {
    switch (set) {
      case PairSet::Found: return found_;
      case PairSet::Lost: return lost_;
      case PairSet::Pairs: break;
    }
    return pairs_;
  }

  // The moving proxies' boxes and filter bits, gathered, and their frame.
  void sweep_moving(const WorldOptions& options, WorldStats& stats) {
    const std::span<const std::uint32_t> moving = table_.moving();
    resize_host(moving_boxes_, moving.size(), "the moving boxes");
    resize_host(moving_categories_, moving.size(), "the moving filter bits");
    resize_host(moving_masks_, moving.size(), "the moving filter bits");
    resize_host(moving_worlds_, moving.size(), "the moving proxies' worlds");
    for (std::size_t i = 0; i < moving.size(); ++i) {
      moving_boxes_[i] = table_.boxes[moving[i]];
      moving_categories_[i] = table_.categories()[moving[i]];
      moving_masks_[i] = table_.masks()[moving[i]];
      moving_worlds_[i] = table_.worlds()[moving[i]];
    }
    const std::size_t count = moving.size();
    const FilterArrays filter{moving_categories_, moving_masks_, moving_worlds_};
    try {
      sweep_->run({.form = BoxSource::Form::HostAos,
                   .count = count,
                   .host_aos = moving_boxes_,
                   .host_filter = filter},
                  {.axis = options.axis,
                   .mode = SweepMode::Cells,
                   .invalid_boxes = options.invalid_boxes,
                   .sort = sort_for_backend(options.sort, Backend::Cpu),
                   .sorted_pairs = false,
                   .stage_times = true},
                  stats.moving);
    } catch (const Error& error) {
      sweep_ = brute_force_ ? make_brute_force_sweep() : make_cpu_sweep(0);
      if (error.kind() != ErrorKind::InvalidArgument) throw;
      // A moving box is invalid (from device arrays): name its proxy.
      for (std::size_t i = 0; i < count; ++i) {
        float low[3];
        float high[3];
        corners(moving_boxes_[i], low, high);
        if (!box_is_valid(low, high))
          throw table_.invalid_box_error(moving[i], table_.boxes[moving[i]]);
      }
      throw;
    }
    stats.moving.backend = Backend::Cpu;
  }

  // Each moving proxy looked up in the static cells, on the threads; the pairs' keys into
  // keys_, in moving order.
  void query_statics(const WorldOptions& options) {
    const std::span<const std::uint32_t> moving = table_.moving();
    const std::size_t count = moving.size();
    const StaticCellsView statics = statics_.view(table_);
    const int parts = static_cast<int>(std::clamp<std::size_t>(count / kMinProxiesPerThread, 1,
                                                               static_cast<std::size_t>(threads_)));
    found_by_part_.resize(static_cast<std::size_t>(parts));
    candidates_by_part_.assign(static_cast<std::size_t>(parts), 0);
    run_on_threads(parts, [&](int part) {
      std::vector<std::uint64_t>& keys = found_by_part_[static_cast<std::size_t>(part)];
      keys.clear();
      std::size_t candidates = 0;
      const std::size_t first = count * static_cast<std::size_t>(part) / parts;
      const std::size_t last = count * static_cast<std::size_t>(part + 1) / parts;
      for (std::size_t i = first; i < last; ++i) {
        const std::uint32_t slot = moving[i];
        float low[3];
        float high[3];
        corners(table_.boxes[slot], low, high);
        if (options.invalid_boxes == InvalidBoxes::Exclude && !box_is_valid(low, high)) continue;
        const MovingQuery query = make_query(statics, low, high, table_.categories()[slot],
                                             table_.masks()[slot], table_.worlds()[slot]);
        candidates += query_static_cells(statics, query, [&](std::uint32_t other) {
          keys.push_back(pair_key(slot, other, 32));
        });
      }
      candidates_by_part_[static_cast<std::size_t>(part)] = candidates;
    });
    keys_.clear();
    candidates_ = 0;
    for (int part = 0; part < parts; ++part) {
      const std::vector<std::uint64_t>& keys = found_by_part_[static_cast<std::size_t>(part)];
      keys_.insert(keys_.end(), keys.begin(), keys.end());
      candidates_ += candidates_by_part_[static_cast<std::size_t>(part)];
    }
  }

  // Every (moving, static) pair tested.
  void test_statics_by_brute_force(const WorldOptions& options) {
    keys_.clear();
    candidates_ = 0;
    static_excluded_ = 0;
    const auto valid = [&](std::uint32_t slot) {
      float low[3];
      float high[3];
      corners(table_.boxes[slot], low, high);
      return box_is_valid(low, high);
    };
    for (const std::uint32_t slot : table_.statics()) {
      if (valid(slot)) continue;
      if (options.invalid_boxes == InvalidBoxes::Reject)
        throw table_.invalid_box_error(slot, table_.boxes[slot]);
      ++static_excluded_;
    }
    for (const std::uint32_t m : table_.moving()) {
      if (!valid(m)) continue;  // the moving sweep has rejected or excluded it
      for (const std::uint32_t s : table_.statics()) {
        if (!valid(s)) continue;
        if (overlaps(table_.boxes[m], table_.boxes[s]) &&
            filters_pass(table_.categories()[m], table_.masks()[m], table_.categories()[s],
                         table_.masks()[s]) &&
            worlds_meet(table_.worlds()[m], table_.worlds()[s])) {
          keys_.push_back(pair_key(m, s, 32));
        }
      }
    }
  }

  const ProxyTable& table_;
  bool brute_force_;
  std::unique_ptr<SweepBackend> sweep_;
  int threads_;
  bool first_step_ = true;
  HostStaticCells statics_;
  std::size_t static_excluded_ = 0;
  std::vector<Aabb> moving_boxes_;
  std::vector<std::uint32_t> moving_categories_;
  std::vector<std::uint32_t> moving_masks_;
  std::vector<std::uint32_t> moving_worlds_;
  std::vector<std::vector<std::uint64_t>> found_by_part_;
  std::vector<std::size_t> candidates_by_part_;
  std::size_t candidates_ = 0;
  std::vector<std::uint64_t> keys_;
  std::vector<Pair> pairs_;  // the last step's
  std::vector<Pair> next_;   // this step's, until it succeeds
  std::vector<Pair> found_;
  std::vector<Pair> lost_;
  std::vector<ProxyPair> named_;  // a set on its way to the device
  std::array<DeviceBuffer<ProxyPair>, 3> device_;
  std::array<bool, 3> device_ready_{};
  // Region and ray queries: the tree, built at the first query after the boxes changed.
  HostBoxTree tree_;
  bool tree_built_ = false;
  std::vector<std::uint32_t> tree_categories_;
  std::vector<Pair> query_pairs_;  // (region, slot)
  std::vector<SlotHit> ray_hits_;
};

}  // namespace

std::unique_ptr<WorldBackend> make_cpu_world(const ProxyTable& table, bool brute_force) {
  return std::make_unique<CpuWorld>(table, brute_force);
}

}  // namespace rsw::physics::detail
