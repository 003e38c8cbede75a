// The brute-force backend: every pair of boxes tested, O(n^2), on the host. The oracle that
// the tests hold the sweeps to; it shares their loading and validation, and nothing else.
#include <string>

#include "host_boxes.hpp"
#include "pair_order.hpp"
#include "rsw/engine/memory.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics::detail {
namespace {

// Every overlapping pair of `boxes` whose filter bits and worlds admit it, in (a, b) order.
void test_every_pair(const HostBoxes& boxes, std::vector<Pair>& pairs) {
  pairs.clear();
  const std::size_t count = boxes.size();
  try {
    for (std::size_t a = 0; a < count; ++a) {
      for (std::size_t b = a + 1; b < count; ++b) {
        bool overlap = true;
        for (int axis = 0; axis < 3 && overlap; ++axis) {
          overlap =
              boxes.min[axis][a] <= boxes.max[axis][b] && boxes.min[axis][b] <= boxes.max[axis][a];
        }
        if (overlap &&
            filters_pass(boxes.categories[a], boxes.masks[a], boxes.categories[b],
                         boxes.masks[b]) &&
            boxes.worlds_meet(a, b)) {
          pairs.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
        }
      }
    }
  } catch (const std::bad_alloc&) {
    throw host_allocation_error(
        "the brute-force pairs, past the " + std::to_string(pairs.size()) + " found",
        2 * pairs.capacity() * sizeof(Pair));
  }
}

class BruteForceSweep final : public SweepBackend {
 public:
  void run(const BoxSource& source, const FrameRequest& request, BroadPhaseStats& stats) override {
    Clock::time_point start = Clock::now();
    stats.excluded_boxes = load_boxes(source, request.invalid_boxes, boxes_);
    stats.keys_ms = ms_since(start);
    start = Clock::now();
    test_every_pair(boxes_, pairs_.rewrite());
    stats.pairs = pairs_.host().size();
    stats.sweep_ms = ms_since(start);
    // The pairs come out in (a, b) order already: sorted_pairs asks nothing more.
    std::vector<std::uint32_t>& offsets = offsets_.rewrite();
    offsets.clear();
    if (request.group_by_world) {
      start = Clock::now();
      const std::uint32_t worlds = worlds_present(summarize(boxes_), !boxes_.worlds.empty());
      group_pairs_by_world(pairs_.rewrite(), boxes_.worlds, worlds, offsets, pair_sorter_);
      stats.pair_sort_ms = ms_since(start);
    }
  }

  std::span<const Pair> host_pairs(BroadPhaseStats&) override { return pairs_.host(); }
  DeviceSpan<const Pair> device_pairs() override { return pairs_.device(); }
  std::span<const std::uint32_t> host_world_offsets() override { return offsets_.host(); }
  DeviceSpan<const std::uint32_t> device_world_offsets() override { return offsets_.device(); }

  // Brute force needs no order, and keeps the one it was given for the sweep that follows.
  std::vector<std::uint32_t> export_order() override { return order_; }
  void import_order(std::vector<std::uint32_t> order) override { order_ = std::move(order); }

 private:
  HostBoxes boxes_;
  HostPairs pairs_;
  HostOffsets offsets_;
  sort::Sorter pair_sorter_;
  std::vector<std::uint32_t> order_;
};

}  // namespace

std::unique_ptr<SweepBackend> make_brute_force_sweep() {
  return std::make_unique<BruteForceSweep>();
}

}  // namespace rsw::physics::detail
