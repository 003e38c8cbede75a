// Host side of the Onesweep sort: temp storage (the 2 MiB circular look-back table and a
// control block, constant in n, plus the alternate buffer of n keys or 2n words for key-value
// sorts), the calibrated tuning, and the launch: one CUDA graph of three kernels (the histogram
// read, its recount, and the passes, which read the plan the histogram kernel left in device
// memory, so the host never waits), or the same kernels launched on the stream
// (RSW_SORT_LAUNCH=stream); or, for small n, a single block.
//
// Index:
//   [SECTION] Tunings and histograms
//   [SECTION] OnesweepSorter
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "developer_overrides.hpp"
#include "gpu_sort_host.cuh"
#include "gpu_sorter.hpp"
#include "onesweep_kernels.cuh"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "sort_policy.hpp"

namespace rsw::sort::detail {
namespace onesweep {
namespace {

bool is_aligned(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

// [SECTION] Tunings and histograms
// The pass kernel of each tuning in sort_policy.hpp (calibrate() times them once per device,
// payload and size class), and the upfront histogram kernels.
using PassKernel = void (*)(const Problem*, Control*, std::uint64_t*, std::uint32_t*);

/// What the passes move: keys, or keys and values as two arrays or as records (PassBuffers).
enum class Payload { Keys, PairArrays, PairRecords };

struct Tuning {
  int threads;
  int items;
  int min_blocks;  // blocks per multiprocessor the register budget is set for
  PassKernel passes_keys;
  PassKernel passes_pair_arrays;   // key-value passes that move key and value arrays
  PassKernel passes_pair_records;  // and records (PassBuffers)
  unsigned int shared_keys;        // dynamic shared memory of each
  unsigned int shared_pairs;

  std::uint32_t tile() const { return static_cast<std::uint32_t>(threads * items); }
  std::string name() const {
    return std::to_string(threads) + "x" + std::to_string(items) + "/" + std::to_string(min_blocks);
  }
  PassKernel kernel(Payload payload) const {
    switch (payload) {
      case Payload::Keys: return passes_keys;
      case Payload::PairArrays: return passes_pair_arrays;
      case Payload::PairRecords: return passes_pair_records;
    }
    return passes_keys;
  }
  unsigned int shared_bytes(Payload payload) const {
    return payload == Payload::Keys ? shared_keys : shared_pairs;
  }
};

template <int kThreads, int kItems, int kMinBlocks>
constexpr Tuning make_tuning() {
  return {kThreads,
          kItems,
          kMinBlocks,
          onesweep_passes<kThreads, kItems, kMinBlocks, false, false>,
          onesweep_passes<kThreads, kItems, kMinBlocks, true, false>,
          onesweep_passes<kThreads, kItems, kMinBlocks, true, true>,
          sizeof(typename PassShape<kThreads, kItems, false>::Shared),
          sizeof(typename PassShape<kThreads, kItems, true>::Shared)};
}

template <std::size_t... kIndex>
constexpr auto make_tunings(std::index_sequence<kIndex...>) {
  constexpr auto& shapes = policy::kOnesweepTunings;
  return std::array<Tuning, sizeof...(kIndex)>{
      make_tuning<shapes[kIndex].threads, shapes[kIndex].items, shapes[kIndex].min_blocks>()...};
}

const auto kTunings = make_tunings(std::make_index_sequence<std::size(policy::kOnesweepTunings)>{});
constexpr std::size_t kDefaultTuning = policy::kOnesweepDefaultTuning;

// What the passes of a sort of `count` keys move, unless an override says.
Payload payload_for(bool with_values, std::size_t count, std::optional<PairLayout> forced) {
  if (!with_values) return Payload::Keys;
  const PairLayout layout = forced.value_or(
      count >= policy::kOnesweepRecordsKeys ? PairLayout::Records : PairLayout::Arrays);
  return layout == PairLayout::Records ? Payload::PairRecords : Payload::PairArrays;
}

using CountKernel = void (*)(const Problem*, Control*);

/// The upfront histogram kernels of one CountShape, for 1 to 4 passes.
struct Histogram {
  int threads;
  int blocks_per_multiprocessor;
  std::uint32_t chunk;
  std::array<CountKernel, kMaxPasses> counts;    // count_digits
  std::array<CountKernel, kMaxPasses> recounts;  // its follow-up for chunks left uncounted
  std::array<unsigned int, kMaxPasses> shared;   // dynamic shared memory of both

  CountKernel count(int passes) const { return counts[static_cast<std::size_t>(passes - 1)]; }
  CountKernel recount(int passes) const { return recounts[static_cast<std::size_t>(passes - 1)]; }
  unsigned int shared_bytes(int passes) const {
    return shared[static_cast<std::size_t>(passes - 1)];
  }
};

template <class Shape, std::size_t... kPasses>
constexpr Histogram make_histogram(std::index_sequence<kPasses...>) {
  return {Shape::kThreads,
          Shape::kBlocksPerMultiprocessor,
          Shape::kChunk,
          {count_digits<Shape, kPasses + 1>...},
          {recount_digits<Shape, kPasses + 1>...},
          {static_cast<unsigned int>(Shape::shared_bytes(kPasses + 1))...}};
}

/// Indexed by HistogramKind.
const std::array<Histogram, 2> kHistograms = {
    make_histogram<CountByDigit>(std::make_index_sequence<kMaxPasses>{}),
    make_histogram<CountByLane>(std::make_index_sequence<kMaxPasses>{}),
};

// The histogram kernel for `count` keys, unless an override says.
HistogramKind histogram_for(std::uint32_t count, std::optional<HistogramKind> forced) {
  return forced.value_or(count >= policy::kOnesweepByLaneKeys ? HistogramKind::ByLane
                                                              : HistogramKind::ByDigit);
}

const Histogram& histogram_of(HistogramKind kind) {
  return kHistograms[static_cast<std::size_t>(kind)];
}

/// What a graph is built for; pointers and sizes are read from device memory, so one graph
/// serves every sort of this shape.
struct GraphShape {
  std::size_t tuning;
  Payload payload;
  std::uint32_t pass_blocks;  // persistent blocks of a pass: at most what is resident
  HistogramKind histogram;
  unsigned int count_blocks;
  int num_passes;
  bool operator==(const GraphShape&) const = default;
};

// [SECTION] OnesweepSorter
class OnesweepSorter final : public GpuSorter {
 public:
  OnesweepSorter()
      : overrides_(DeveloperOverrides::from_environment()),
        forced_tuning_(tuning_named(overrides_.onesweep_tuning, tuning_names(kTunings),
                                    "RSW_ONESWEEP_TUNING")) {
    resolve_backend(Backend::Cuda);
    RSW_CUDA_CHECK(cudaGetDevice(&device_), "reading the current device");
    RSW_CUDA_CHECK(
        cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_),
        "reading the multiprocessor count");
    for (const Histogram& histogram : kHistograms) {
      for (int passes = 1; passes <= kMaxPasses; ++passes) {
        const auto shared = static_cast<int>(histogram.shared_bytes(passes));
        for (const CountKernel kernel : {histogram.count(passes), histogram.recount(passes)}) {
          RSW_CUDA_CHECK(
              cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared),
              "allowing the Onesweep histogram kernels " + std::to_string(shared) +
                  " bytes of shared memory");
        }
      }
    }
    problem_.resize_discarding(1);
    control_.resize_discarding(1);
    table_.resize_discarding(std::size_t{kTableTiles} * kBins);
    // Zero once: the kernels leave the control block zero again, and a zero entry has no flag.
    rsw::detail::fill_bytes_zero(control_.data(), sizeof(Control), nullptr);
    rsw::detail::fill_bytes_zero(table_.data(), table_.size_bytes(), nullptr);
    synchronize(nullptr);
  }

  void sort(const GpuSortRequest& request) override {
    const int passes_total = (request.end_bit - request.begin_bit + kRadixBits - 1) / kRadixBits;
    const bool with_values = request.values != nullptr;
    const bool trivial = request.count <= 1 || passes_total == 0;  // sorted as it is
    const bool single_tile = request.count <= kSingleTileKeys;
    // A calibration's sorts move what the sort that calibrates will.
    const Payload payload =
        calibrating_ ? calibrating_->payload
                     : payload_for(with_values, request.count, overrides_.onesweep_layout);
    // Before anything else: the first sort of a kind calibrates, which runs sorts itself.
    std::size_t tuning_index = kDefaultTuning;
    if (calibrating_) {
      tuning_index = calibrating_->tuning;
    } else if (forced_tuning_) {
      tuning_index = *forced_tuning_;
    } else if (!trivial && !single_tile) {
      tuning_index = tuning_for(payload, request.count, request.stream);
    }
    pending_ = Pending{.count = request.count,
                       .passes_total = passes_total,
                       .counted_on_device = request.device_count != nullptr};
    if (trivial) return;

    const Tuning& tuning = kTunings[tuning_index];
    const auto count = static_cast<std::uint32_t>(request.count);
    const std::uint32_t num_tiles = (count + tuning.tile() - 1) / tuning.tile();
    if (!single_tile) reserve(count, with_values);
    const Problem problem{
        .keys = request.keys,
        .values = request.values,
        .alternate = single_tile ? nullptr : alternate_.data(),
        .count = count,
        .num_tiles = num_tiles,
        .order_mask = order_mask_of(request.begin_bit, request.end_bit),
        .begin_bit = request.begin_bit,
        .end_bit = request.end_bit,
        .num_passes = passes_total,
        .descending = request.descending ? 1 : 0,
        .records = payload == Payload::PairRecords ? 1 : 0,
        .caller_records = payload == Payload::PairRecords &&
                                  is_aligned(request.keys, sizeof(std::uint64_t)) &&
                                  is_aligned(request.values, sizeof(std::uint64_t))
                              ? 1
                              : 0};
    if (request.device_count != nullptr) {
      store_counted_problem<<<1, 1, 0, request.stream>>>(
          problem_.data(), problem, request.device_count, tuning.tile(), control_.data());
      RSW_CUDA_CHECK_LAUNCH("storing the Onesweep sort's problem, counted on the device");
      uploaded_problem_.reset();  // the device's count is not the host's
    } else {
      upload(problem, request.stream);
    }

    report_.start(request.stream);
    const bool presort = request.nearly_sorted && !single_tile;
    if (presort) launch_presort(count, with_values, request.stream);
    if (single_tile) {
      (with_values ? sort_single_tile<true>
                   : sort_single_tile<false>)<<<1, kSingleTileThreads, 0, request.stream>>>(
          problem_.data(), control_.data(), report_.kernel_words());
      RSW_CUDA_CHECK_LAUNCH("launching the single-tile Onesweep sort");
    } else {
      const HistogramKind histogram = histogram_for(count, overrides_.onesweep_histogram);
      const GraphShape shape{tuning_index,
                             payload,
                             std::min(num_tiles, resident_blocks(tuning, payload)),
                             histogram,
                             count_blocks(count, histogram_of(histogram)),
                             passes_total};
      if (overrides_.launch == LaunchMode::Graph) {
        const cudaGraphExec_t graph =
            graphs_.get(shape, [this](const GraphShape& wanted) { return build_graph(wanted); });
        RSW_CUDA_CHECK(cudaGraphLaunch(graph, request.stream),
                       "launching the Onesweep sort graph for " + std::to_string(count) + " keys");
      } else {
        launch_on_stream(shape, request.stream);
      }
    }
    report_.finish_written(request.stream);  // the last kernel wrote the report
    pending_.launched = true;
    pending_.presorted = presort;
    pending_.single_tile = single_tile;
    pending_.tuning = tuning_index;
  }

  SortStats read_stats() override {
    SortStats stats{.algorithm = Algorithm::Onesweep,
                    .count = pending_.count,
                    .passes_total = pending_.passes_total};
    if (!pending_.launched) {
      stats.passes_skipped = pending_.passes_total;
      stats.early_exit = pending_.passes_total > 0;
      return stats;
    }
    report_.read(stats, "Onesweep");
    if (pending_.counted_on_device) stats.count = report_.word(offsetof(Control, count));
    stats.presorted = pending_.presorted;
    stats.block_threads =
        pending_.single_tile ? kSingleTileThreads : kTunings[pending_.tuning].threads;
    stats.items_per_thread =
        pending_.single_tile ? kSingleTileItems : kTunings[pending_.tuning].items;
    return stats;
  }

  std::size_t temp_bytes() const noexcept override {
    return scratch_bytes() + alternate_.capacity() * sizeof(std::uint32_t);
  }

  std::size_t scratch_bytes() const noexcept override {
    return table_.capacity() * sizeof(std::uint64_t) + sizeof(Problem) + sizeof(Control);
  }

 private:
  struct Pending {
    std::size_t count = 0;
    int passes_total = 0;
    bool counted_on_device = false;  // count is the room; the sorted count is read back
    bool launched = false;
    bool presorted = false;
    bool single_tile = false;
    std::size_t tuning = kDefaultTuning;
  };

  // The alternate buffer: n keys, or 2n words: n records {key, value}, or n keys then n values
  // (PassBuffers).
  void reserve(std::uint32_t count, bool with_values) {
    const std::size_t words = std::size_t{count} * (with_values ? 2 : 1);
    alternate_.resize_discarding(std::max(alternate_.size(), words));
  }

  // A frame loop sorts the same buffers every frame: upload only what changed.
  void upload(const Problem& problem, StreamHandle stream) {
    if (uploaded_problem_ && std::memcmp(&*uploaded_problem_, &problem, sizeof problem) == 0) {
      return;
    }
    uploaded_problem_ = problem;
    store_on_device(problem_.data(), problem, stream, "uploading the Onesweep sort's problem");
  }

  unsigned int count_blocks(std::uint32_t count, const Histogram& histogram) const {
    const std::uint32_t wanted = (count + histogram.chunk - 1) / histogram.chunk;
    const std::uint32_t most = std::min(
        kMaxCountBlocks,
        static_cast<std::uint32_t>(multiprocessors_ * histogram.blocks_per_multiprocessor));
    return std::max(1u, std::min(wanted, most));
  }

  // SortOptions::nearly_sorted: tiles of kSingleTileKeys sorted in place, then the runs that
  // meet at each tile boundary merged.
  void launch_presort(std::uint32_t count, bool with_values, StreamHandle stream) {
    const std::uint32_t tiles = (count + kSingleTileKeys - 1) / kSingleTileKeys;
    (with_values ? presort_tiles<true>
                 : presort_tiles<false>)<<<tiles, kSingleTileThreads, 0, stream>>>(problem_.data());
    (with_values ? presort_merge_halves<true>
                 : presort_merge_halves<false>)<<<tiles - 1, kSingleTileThreads, 0, stream>>>(
        problem_.data());
    RSW_CUDA_CHECK_LAUNCH("launching the Onesweep tile presort");
  }

  void launch_on_stream(const GraphShape& shape, StreamHandle stream) {
    const Tuning& tuning = kTunings[shape.tuning];
    const Histogram& histogram = histogram_of(shape.histogram);
    const unsigned int count_shared = histogram.shared_bytes(shape.num_passes);
    histogram.count(
        shape.num_passes)<<<shape.count_blocks, histogram.threads, count_shared, stream>>>(
        problem_.data(), control_.data());
    histogram.recount(
        shape.num_passes)<<<shape.count_blocks, histogram.threads, count_shared, stream>>>(
        problem_.data(), control_.data());
    tuning.kernel(shape.payload)<<<shape.pass_blocks, tuning.threads,
                                   tuning.shared_bytes(shape.payload), stream>>>(
        problem_.data(), control_.data(), table_.data(), report_.kernel_words());
    RSW_CUDA_CHECK_LAUNCH("launching the Onesweep sort's kernels");
  }

  // Blocks of a tuning's pass kernel that fit on the device at once (its persistent grid).
  std::uint32_t resident_blocks(const Tuning& tuning, Payload payload) {
    const PassKernel kernel = tuning.kernel(payload);
    const auto found = resident_.find(kernel);
    if (found != resident_.end()) return found->second;
    const int shared_bytes = static_cast<int>(tuning.shared_bytes(payload));
    RSW_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes),
        "allowing the Onesweep pass kernel " + std::to_string(shared_bytes) +
            " bytes of shared memory");
    int per_multiprocessor = 0;
    RSW_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                       &per_multiprocessor, kernel, tuning.threads, tuning.shared_bytes(payload)),
                   "reading the Onesweep pass kernel's occupancy");
    const auto blocks =
        static_cast<std::uint32_t>(std::max(1, per_multiprocessor) * multiprocessors_);
    resident_.emplace(kernel, blocks);
    return blocks;
  }

  // count_digits -> recount_digits -> onesweep_passes, each launched while the one before
  // ends (and waiting for it before it reads what that one wrote).
  Graph build_graph(const GraphShape& shape) {
    const Tuning& tuning = kTunings[shape.tuning];
    Problem* problem = problem_.data();
    Control* control = control_.data();
    const Histogram& histogram = histogram_of(shape.histogram);
    const unsigned int count_shared = histogram.shared_bytes(shape.num_passes);
    Graph graph;
    cudaGraphNode_t previous =
        add_kernel(graph.get(), nullptr, histogram.count(shape.num_passes), shape.count_blocks,
                   histogram.threads, count_shared, problem, control);
    previous =
        add_kernel(graph.get(), previous, Follows::launch, histogram.recount(shape.num_passes),
                   shape.count_blocks, histogram.threads, count_shared, problem, control);
    add_kernel(graph.get(), previous, Follows::launch, tuning.kernel(shape.payload),
               shape.pass_blocks, tuning.threads, tuning.shared_bytes(shape.payload), problem,
               control, table_.data(), report_.kernel_words());
    return graph;
  }

  // The tuning for sorts of `count` keys moving `payload` on this device, calibrated on first
  // use for the count's size class (policy::onesweep_calibration_keys), with that payload.
  std::size_t tuning_for(Payload payload, std::size_t count, StreamHandle stream) {
    static CalibrationTable calibrated;
    const std::size_t calibration_keys = policy::onesweep_calibration_keys(count);
    return calibrated.tuning(device_, static_cast<int>(payload), calibration_keys,
                             [&] { return calibrate(payload, calibration_keys, stream); });
  }

  // The fastest tuning on `calibration_keys` random keys; runs once per device, payload and
  // size class.
  std::size_t calibrate(Payload payload, std::size_t calibration_keys, StreamHandle stream) {
    const std::size_t best = fastest_tuning(
        kTunings.size(), payload != Payload::Keys, calibration_keys, stream,
        [&](std::size_t tuning, std::uint32_t* keys, std::uint32_t* values) {
          {
            const CalibratingAs calibrating(calibrating_, {.tuning = tuning, .payload = payload});
            sort({.keys = keys, .values = values, .count = calibration_keys, .stream = stream});
          }
          return read_stats().milliseconds;
        });
    // The calibration's alternate buffer is not this sorter's size: let the sort size it.
    synchronize(stream);
    alternate_ = {};
    return best;
  }

  DeveloperOverrides overrides_;
  std::optional<std::size_t> forced_tuning_;  // RSW_ONESWEEP_TUNING
  int device_ = 0;
  int multiprocessors_ = 0;
  DeviceBuffer<Problem> problem_;
  DeviceBuffer<Control> control_;
  DeviceBuffer<std::uint64_t> table_;
  DeviceBuffer<std::uint32_t> alternate_;  // PassBuffers: n keys, or 2n words
  std::optional<Problem> uploaded_problem_;
  std::map<PassKernel, std::uint32_t> resident_;  // per kernel, its limit raised once
  GraphCache<GraphShape> graphs_;
  SortReport<Control> report_;
  Pending pending_;
  struct Calibrating {
    std::size_t tuning;
    Payload payload;
  };
  std::optional<Calibrating> calibrating_;  // while calibrate() runs its sorts
};

}  // namespace
}  // namespace onesweep

std::unique_ptr<GpuSorter> make_onesweep_sorter() {
  return std::make_unique<onesweep::OnesweepSorter>();
}

}  // namespace rsw::sort::detail
