// Host side of the four-way sort: temp storage, the calibrated tuning, and the launch of the
// pass loop, as a CUDA graph whose while-node the kernels end themselves (no host round trip
// between passes, none at all for an early exit), or as plain launches on the stream
// (RSW_SORT_LAUNCH=stream: compute-sanitizer's racecheck stops on the conditional nodes).
//
// Index:
//   [SECTION] Tunings
//   [SECTION] Graph building
//   [SECTION] FourWaySorter
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "developer_overrides.hpp"
#include "four_way_kernels.cuh"
#include "gpu_sort_host.cuh"
#include "gpu_sorter.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "sort_policy.hpp"

namespace rsw::sort::detail {
namespace four_way {
namespace {

// [SECTION] Tunings
// The kernels of each tuning in sort_policy.hpp: one pair per key/pair mode. calibrate() times
// them all once per device and mode and keeps the fastest.
struct Tuning {
  int threads;
  int items;
  void (*split_keys)(const Problem*, const Control*);
  void (*split_pairs)(const Problem*, const Control*);
  void (*map_keys)(const Problem*, const Control*);
  void (*map_pairs)(const Problem*, const Control*);

  int tile() const { return threads * items; }
  std::string name() const { return std::to_string(threads) + "x" + std::to_string(items); }
};

template <int kThreads, int kItems>
constexpr Tuning make_tuning() {
  return {kThreads,
          kItems,
          split_tiles<kThreads, kItems, false>,
          split_tiles<kThreads, kItems, true>,
          map_tiles<kThreads, kItems, false>,
          map_tiles<kThreads, kItems, true>};
}

template <std::size_t... kIndex>
constexpr auto make_tunings(std::index_sequence<kIndex...>) {
  constexpr auto& shapes = policy::kFourWayTunings;
  return std::array<Tuning, sizeof...(kIndex)>{
      make_tuning<shapes[kIndex].threads, shapes[kIndex].items>()...};
}

const auto kTunings = make_tunings(std::make_index_sequence<std::size(policy::kFourWayTunings)>{});
constexpr std::size_t kDefaultTuning = policy::kFourWayDefaultTuning;

// [SECTION] Graph building
/// What a graph is built for; the problem's pointers and sizes are read from device memory,
/// so one graph serves every sort of this shape.
struct GraphShape {
  std::size_t tuning;
  bool with_values;
  std::uint32_t num_tiles;
  unsigned int check_blocks;
  bool operator==(const GraphShape&) const = default;
};

// [SECTION] FourWaySorter
class FourWaySorter final : public GpuSorter {
 public:
  FourWaySorter()
      : overrides_(DeveloperOverrides::from_environment()),
        forced_tuning_(tuning_named(overrides_.four_way_tuning, tuning_names(kTunings),
                                    "RSW_FOUR_WAY_TUNING")) {
    resolve_backend(Backend::Cuda);
    RSW_CUDA_CHECK(cudaGetDevice(&device_), "reading the current device");
    RSW_CUDA_CHECK(
        cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_),
        "reading the multiprocessor count");
    problem_.resize_discarding(1);
    control_.resize_discarding(1);
  }

  void sort(const GpuSortRequest& request) override {
    const int passes_total = (request.end_bit - request.begin_bit + kRadixBits - 1) / kRadixBits;
    const bool with_values = request.values != nullptr;
    const bool trivial = request.count <= 1 || passes_total == 0;  // sorted as it is
    // Before anything else: the first sort of a kind calibrates, which runs sorts itself.
    std::size_t tuning_index = kDefaultTuning;
    if (calibrating_tuning_) {
      tuning_index = *calibrating_tuning_;
    } else if (forced_tuning_ && !trivial) {
      tuning_index = *forced_tuning_;
    } else if (!trivial) {
      tuning_index = tuning_for(with_values, request.stream);
    }
    pending_ = Pending{.count = request.count, .passes_total = passes_total, .launched = false};
    if (trivial) return;

    const Tuning& tuning = kTunings[tuning_index];
    const auto count = static_cast<std::uint32_t>(request.count);
    const std::uint32_t num_tiles = (count + tuning.tile() - 1) / tuning.tile();
    reserve(count, num_tiles, with_values);

    const Problem problem{
        .keys = request.keys,
        .values = request.values,
        .tile_keys = tile_keys_.data(),
        .tile_values = with_values ? tile_values_.data() : nullptr,
        .tile_counts = tile_counts_.data(),
        .tile_offsets = tile_offsets_.data(),
        .count = count,
        .num_tiles = num_tiles,
        .order_mask = order_mask_of(request.begin_bit, request.end_bit),
        .begin_bit = request.begin_bit,
        .end_bit = request.end_bit,
        .num_passes = passes_total,
        .descending = request.descending ? 1 : 0,
    };
    // A frame loop sorts the same buffers every frame: upload only what changed.
    if (!uploaded_problem_ || std::memcmp(&*uploaded_problem_, &problem, sizeof problem) != 0) {
      uploaded_problem_ = problem;
      store_on_device(problem_.data(), problem, request.stream,
                      "uploading the four-way sort's problem");
    }
    report_.start(request.stream);
    const GraphShape shape{tuning_index, with_values, num_tiles, check_blocks(count)};
    if (overrides_.launch == LaunchMode::Graph) {
      const cudaGraphExec_t graph =
          graphs_.get(shape, [this](const GraphShape& wanted) { return build_graph(wanted); });
      RSW_CUDA_CHECK(cudaGraphLaunch(graph, request.stream),
                     "launching the four-way sort graph for " + std::to_string(count) + " keys");
    } else {
      launch_on_stream(shape, passes_total, request.stream);
    }
    report_.finish(control_.data(), request.stream);
    pending_.launched = true;
    pending_.tuning = tuning_index;
  }

  SortStats read_stats() override {
    SortStats stats{.algorithm = Algorithm::FourWay,
                    .count = pending_.count,
                    .passes_total = pending_.passes_total};
    if (!pending_.launched) {
      stats.passes_skipped = pending_.passes_total;
      stats.early_exit = pending_.passes_total > 0;
      return stats;
    }
    report_.read(stats, "four-way");
    stats.block_threads = kTunings[pending_.tuning].threads;
    stats.items_per_thread = kTunings[pending_.tuning].items;
    return stats;
  }

  std::size_t temp_bytes() const noexcept override {
    return scratch_bytes() +
           (tile_keys_.capacity() + tile_values_.capacity()) * sizeof(std::uint32_t);
  }

  std::size_t scratch_bytes() const noexcept override {
    return (tile_counts_.capacity() + tile_offsets_.capacity()) * sizeof(std::uint32_t) +
           sizeof(Problem) + sizeof(Control);
  }

 private:
  struct Pending {
    std::size_t count = 0;
    int passes_total = 0;
    bool launched = false;
    std::size_t tuning = kDefaultTuning;
  };

  void reserve(std::uint32_t count, std::uint32_t num_tiles, bool with_values) {
    tile_keys_.resize_discarding(std::max<std::size_t>(tile_keys_.size(), count));
    if (with_values) {
      tile_values_.resize_discarding(std::max<std::size_t>(tile_values_.size(), count));
    }
    const std::size_t sums = std::size_t{kDigits} * num_tiles;
    tile_counts_.resize_discarding(std::max(tile_counts_.size(), sums));
    tile_offsets_.resize_discarding(std::max(tile_offsets_.size(), sums));
  }

  unsigned int check_blocks(std::uint32_t count) const {
    const std::uint32_t per_block = kCheckThreads * kCheckKeys;
    const std::uint32_t wanted = (count + per_block - 1) / per_block;
    return std::max(1u, std::min(wanted, static_cast<std::uint32_t>(multiprocessors_) * 8u));
  }

  void launch_on_stream(const GraphShape& shape, int passes, StreamHandle stream) {
    const Tuning& tuning = kTunings[shape.tuning];
    Problem* problem = problem_.data();
    Control* control = control_.data();
    begin_sort<<<1, 1, 0, stream>>>(problem, control);
    for (int pass = 0; pass < passes; ++pass) {
      quick_check_order<<<1, kQuickCheckThreads, 0, stream>>>(problem, control, {}, {}, 0);
      check_order<<<shape.check_blocks, kCheckThreads, 0, stream>>>(problem, control, {}, 0);
      (shape.with_values
           ? tuning.split_pairs
           : tuning.split_keys)<<<shape.num_tiles, tuning.threads, 0, stream>>>(problem, control);
      scan_tile_counts<<<1, kScanThreads, 0, stream>>>(problem, control);
      (shape.with_values
           ? tuning.map_pairs
           : tuning.map_keys)<<<shape.num_tiles, tuning.threads, 0, stream>>>(problem, control);
      end_pass<<<1, 1, 0, stream>>>(problem, control, cudaGraphConditionalHandle{}, 0);
    }
    RSW_CUDA_CHECK_LAUNCH("launching the four-way sort's passes");
  }

  // begin_sort -> while (!done) {
  //   quick check -> if (it found no disorder) { check the rest }
  //   -> if (disorder found) { split -> scan -> map } -> end_pass (sets the while condition)
  // }
  Graph build_graph(const GraphShape& shape) {
    const Tuning& tuning = kTunings[shape.tuning];
    Problem* problem = problem_.data();
    Control* control = control_.data();
    Graph graph;
    const cudaGraphConditionalHandle loop =
        make_condition(graph.get(), 1, cudaGraphCondAssignDefault);
    const cudaGraphNode_t begin =
        add_kernel(graph.get(), nullptr, begin_sort, 1, 1, 0, problem, control);
    const cudaGraph_t body =
        add_conditional(graph.get(), begin, loop, cudaGraphCondTypeWhile).second;

    const cudaGraphConditionalHandle check_rest = make_condition(body, 0, 0);
    const cudaGraphConditionalHandle run_pass = make_condition(body, 0, 0);
    const cudaGraphNode_t quick =
        add_kernel(body, nullptr, quick_check_order, 1, kQuickCheckThreads, 0, problem, control,
                   check_rest, run_pass, 1);
    const auto [check_node, check_body] =
        add_conditional(body, quick, check_rest, cudaGraphCondTypeIf);
    add_kernel(check_body, nullptr, check_order, shape.check_blocks, kCheckThreads, 0, problem,
               control, run_pass, 1);
    const auto [pass_node, pass_body] =
        add_conditional(body, check_node, run_pass, cudaGraphCondTypeIf);
    const cudaGraphNode_t split =
        add_kernel(pass_body, nullptr, shape.with_values ? tuning.split_pairs : tuning.split_keys,
                   shape.num_tiles, tuning.threads, 0, problem, control);
    const cudaGraphNode_t scan =
        add_kernel(pass_body, split, scan_tile_counts, 1, kScanThreads, 0, problem, control);
    add_kernel(pass_body, scan, shape.with_values ? tuning.map_pairs : tuning.map_keys,
               shape.num_tiles, tuning.threads, 0, problem, control);
    add_kernel(body, pass_node, end_pass, 1, 1, 0, problem, control, loop, 1);
    return graph;
  }

  // The tuning for keys-only or key-value sorts on this device, calibrated on first use.
  std::size_t tuning_for(bool with_values, StreamHandle stream) {
    static CalibrationTable calibrated;
    return calibrated.tuning(device_, with_values ? 1 : 0, kCalibrationKeys,
                             [&] { return calibrate(with_values, stream); });
  }

  // The fastest tuning on kCalibrationKeys random keys; runs once per device and mode.
  std::size_t calibrate(bool with_values, StreamHandle stream) {
    const std::size_t best = fastest_tuning(
        kTunings.size(), with_values, kCalibrationKeys, stream,
        [&](std::size_t tuning, std::uint32_t* keys, std::uint32_t* values) {
          {
            const CalibratingAs calibrating(calibrating_tuning_, tuning);
            sort({.keys = keys, .values = values, .count = kCalibrationKeys, .stream = stream});
          }
          return read_stats().milliseconds;
        });
    return best;
  }

  DeveloperOverrides overrides_;
  std::optional<std::size_t> forced_tuning_;  // RSW_FOUR_WAY_TUNING
  int device_ = 0;
  int multiprocessors_ = 0;
  DeviceBuffer<Problem> problem_;
  DeviceBuffer<Control> control_;
  DeviceBuffer<std::uint32_t> tile_keys_;
  DeviceBuffer<std::uint32_t> tile_values_;
  DeviceBuffer<std::uint32_t> tile_counts_;
  DeviceBuffer<std::uint32_t> tile_offsets_;
  std::optional<Problem> uploaded_problem_;
  GraphCache<GraphShape> graphs_;
  SortReport<Control> report_;
  Pending pending_;
  std::optional<std::size_t> calibrating_tuning_;
};

}  // namespace
}  // namespace four_way

std::unique_ptr<GpuSorter> make_four_way_sorter() {
  return std::make_unique<four_way::FourWaySorter>();
}

}  // namespace rsw::sort::detail
