// Host side of the Onesweep sort: temp storage (the 2 MiB circular look-back table and a
// control block, constant in n, plus the alternate buffer of n keys or 2n words for key-value
// sorts), the calibrated tuning, and the launch: one CUDA graph of three kernels (the histogram
// read, its recount, and the passes, which read the plan the histogram kernel left in device
// memory, so the host never waits); or, for small n, a single block.
//
// Index:
//   [SECTION] Tunings and calibration
//   [SECTION] OnesweepSorter
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "gpu_sort_host.cuh"
#include "gpu_sorter.hpp"
#include "onesweep_kernels.cuh"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::sort::detail {
namespace onesweep {
namespace {

bool is_aligned(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

// [SECTION] Tunings and calibration
// Threads per block and keys per thread of the pass kernel: larger tiles write longer runs
// per digit (better coalescing) but keep fewer blocks resident to hide the look-back. The
// best differs by GPU and by keys vs pairs; calibrate() times them once per device and mode.
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

// Measured on an H100 at 2^24 keys (ms, keys / pairs): 256x20/3 0.54 / 0.77, 256x20/2 0.59 /
// 0.72, 384x16/2 0.52 / 0.67, 384x20/2 0.48 / 0.68; 256x16/3 (0.62 / 0.81) and 384x20/1
// (0.66 / 0.81) were dropped. Two resident blocks of 384 threads hide the look-back best.
// 384x24/2 came once the count's digits stopped holding registers (count_in_warp): H200, ms,
// keys 2^24 / 2^26 / 2^28 0.3649 / 1.2667 / 4.8547 against 384x20/2's 0.3800 / 1.3439 /
// 5.1875. 384x22/2 falls between for keys, but key-value arrays take it from 2^24 (their 384x24
// spills): H200, forced, ms, 384x20 / 384x22 / 384x24, 2^24 0.5016 / 0.5013 / 0.5161 and
// 0.5047 / 0.5000 (two machines), 20 Mi 0.6183 / 0.6130 / 0.6296 (384x23: 0.4994 and 0.6129).
// 384x21/2 is for records: 2^26 1.7121 -> 1.6974 against 384x20, 2^24 and 20 Mi within 0.3%
// (its 2081 tiles a pass at 2^24 are 7.9 rounds of an H200's 264 blocks, 384x20's 8.3).
// Three blocks a multiprocessor lost at 2^24 pairs: 256x22/3 0.5617, 256x24/3 0.5704 (spills),
// 384x16/3 0.6034 and 384x18/3 0.6111 (56 registers, spills) against 384x22/2's 0.4991 ms.
const std::array<Tuning, 7> kTunings = {
    make_tuning<256, 20, 3>(), make_tuning<256, 20, 2>(), make_tuning<384, 16, 2>(),
    make_tuning<384, 20, 2>(), make_tuning<384, 21, 2>(), make_tuning<384, 22, 2>(),
    make_tuning<384, 24, 2>(),
};
constexpr std::size_t kDefaultTuning = 3;  // 384x20/2, until calibrated

// Sorts of kLargeCalibrationKeys keys or more take the tuning calibrated on that many keys,
// those below kMediumKeys the tuning calibrated on kSmallCalibrationKeys, the others the
// tuning calibrated on kCalibrationKeys: the best tile differs with n. (A large class's
// calibration keys then take no more memory than the caller's.) H200, key-value sorts:
// calibrated on 2^22 keys, 256x20/2 wins, which at 2^24 took 0.6037 ms against 384x20/2's
// 0.5891, and at 2^26 2.2395 against 2.1237. Keys-only sorts take 384x20/2 at both. Below
// 2^21 keys a pass has about as many tiles as resident blocks or fewer, and the calibration
// on 2^20 keys picks smaller tiles (256 x 20 where 2^22 picks 384 x 20): ms, keys / pairs,
// 2^16 0.0459 -> 0.0427 / 0.0485 -> 0.0457, 2^18 0.0589 -> 0.0447 / 0.0650 -> 0.0573, 2^20
// 0.0659 -> 0.0611 / 0.0789 -> 0.0742; 2^21 and 2^22 the same.
constexpr std::size_t kLargeCalibrationKeys = std::size_t{1} << 24;
constexpr std::size_t kMediumKeys = std::size_t{1} << 21;
constexpr std::size_t kSmallCalibrationKeys = std::size_t{1} << 20;

std::size_t calibration_keys_for(std::size_t count) {
  if (count < kMediumKeys) return kSmallCalibrationKeys;
  return count < kLargeCalibrationKeys ? kCalibrationKeys : kLargeCalibrationKeys;
}

// Key-value sorts of kRecordsKeys keys or more move records between passes, smaller ones
// arrays: reading a record loads its key and then copies its value, so each crosses from L2
// twice, which costs more than the records' shorter write runs save until the sort is bound by
// DRAM. H200, 384 x 20 (calibrated), ms, arrays / records: 2^22 0.1614 / 0.1964, 2^24 0.5230 /
// 0.5359, 2^25 0.9774 / 0.9608, 2^26 1.9200 / 1.8062. Later, with the plan in one barrier
// (H200, forced, ms, arrays at 384 x 22 / records at 384 x 20): 2^24 0.5000 / 0.5035, 20 Mi
// 0.6130 / 0.6065, 24 Mi 0.7255 / 0.7082, 2^25 0.9509 / 0.9100. Once a record was copied whole
// and its key's line kept in L1 (calibrated, three calls, medians): 2^24 0.5007 / 0.4986, 20
// Mi 0.6158 / 0.6084; below 2^24 it varies with the tile rounds: 14 Mi 0.4448 / 0.4560, 12 Mi
// 0.3920 / 0.3840, 8 Mi 0.2774 / 0.2940. Records pay only in passes between the first and the
// last, and which passes run is known on the device alone: from 2^24, 16-bit pairs (two passes)
// took 0.2874 ms against arrays' 0.2691, so the threshold stays at 20 Mi. (Arrays for one or
// two passes inside the records kernel made it spill: 16-64 bytes at 384 x 20.)
constexpr std::size_t kRecordsKeys = std::size_t{20} << 20;

// RSW_ONESWEEP_LAYOUT=arrays|records forces the key-value passes' layout (for tests and
// measurements).
Payload payload_for(bool with_values, std::size_t count) {
  if (!with_values) return Payload::Keys;
  const char* setting = std::getenv("RSW_ONESWEEP_LAYOUT");
  if (setting == nullptr) return count >= kRecordsKeys ? Payload::PairRecords : Payload::PairArrays;
  if (std::string(setting) == "arrays") return Payload::PairArrays;
  if (std::string(setting) == "records") return Payload::PairRecords;
  throw Error(ErrorKind::InvalidArgument,
              std::string("RSW_ONESWEEP_LAYOUT=") + setting + " (arrays, records)");
}

// RSW_ONESWEEP_TUNING=256x20/3 forces a tuning and skips the calibration (for profiling).
std::optional<std::size_t> forced_tuning() {
  const char* setting = std::getenv("RSW_ONESWEEP_TUNING");
  if (setting == nullptr) return std::nullopt;
  for (std::size_t index = 0; index < kTunings.size(); ++index) {
    if (kTunings[index].name() == setting) return index;
  }
  throw Error(ErrorKind::InvalidArgument,
              std::string("RSW_ONESWEEP_TUNING=") + setting + " names no tuning");
}

/// How a sort's three kernels are launched. Graph: one graph of kernel nodes. Stream: plain
/// launches on the stream.
enum class LaunchMode { Stream, Graph };

// RSW_ONESWEEP_LAUNCH=stream|graph overrides the default (for measurements).
LaunchMode launch_mode() {
  const char* setting = std::getenv("RSW_ONESWEEP_LAUNCH");
  if (setting == nullptr || std::string(setting) == "graph") return LaunchMode::Graph;
  if (std::string(setting) == "stream") return LaunchMode::Stream;
  throw Error(ErrorKind::InvalidArgument,
              std::string("RSW_ONESWEEP_LAUNCH=") + setting + " (stream, graph)");
}

using CountKernel = void (*)(const Problem*, Control*);

/// The upfront histogram kernels of one CountShape, for 1 to 4 passes.
struct Histogram {
  const char* name;
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
constexpr Histogram make_histogram(const char* name, std::index_sequence<kPasses...>) {
  return {name,
          Shape::kThreads,
          Shape::kBlocksPerMultiprocessor,
          Shape::kChunk,
          {count_digits<Shape, kPasses + 1>...},
          {recount_digits<Shape, kPasses + 1>...},
          {static_cast<unsigned int>(Shape::shared_bytes(kPasses + 1))...}};
}

// From kByLaneKeys keys on, a column a lane (CountByLane). H200, ms, against a counter a digit:
// 2^26 keys 1.4875 -> 1.4517, 2^28 5.7492 -> 5.5827. Once a counter's address took one
// shift-add (count_at), the lane kernel's read of 2^24 keys took 33.4 us against 44.4 (Nsight
// Compute) while a counter a digit stayed bank-bound at 51 us, and the lanes won from 2^21
// keys, ms, digit / lane: 2^21 keys 0.0815 / 0.0798, pairs 0.0950 / 0.0934; 2^24 keys 0.3583 /
// 0.3478, pairs 0.5135 / 0.5079; sorted 2^24 keys 0.0289 / 0.0311 (2^20: the same; below, the
// 1024-thread blocks' start and end cost more: 2^18 keys 0.0440 / 0.0462).
const std::array<Histogram, 2> kHistograms = {
    make_histogram<CountByDigit>("digit", std::make_index_sequence<kMaxPasses>{}),
    make_histogram<CountByLane>("lane", std::make_index_sequence<kMaxPasses>{}),
};
constexpr std::uint32_t kByLaneKeys = 1u << 21;

// RSW_ONESWEEP_HISTOGRAM=digit or lane forces a histogram kernel (for tests and profiling).
std::size_t histogram_for(std::uint32_t count) {
  const char* setting = std::getenv("RSW_ONESWEEP_HISTOGRAM");
  if (setting == nullptr) return count >= kByLaneKeys ? 1 : 0;
  for (std::size_t index = 0; index < kHistograms.size(); ++index) {
    if (std::string(setting) == kHistograms[index].name) return index;
  }
  throw Error(ErrorKind::InvalidArgument,
              std::string("RSW_ONESWEEP_HISTOGRAM=") + setting + " (digit, lane)");
}

/// What a graph is built for; pointers and sizes are read from device memory, so one graph
/// serves every sort of this shape.
struct GraphShape {
  std::size_t tuning;
  Payload payload;
  std::uint32_t pass_blocks;  // persistent blocks of a pass: at most what is resident
  std::size_t histogram;
  unsigned int count_blocks;
  int num_passes;
  bool operator==(const GraphShape&) const = default;
};

// [SECTION] OnesweepSorter
class OnesweepSorter final : public GpuSorter {
 public:
  OnesweepSorter() {
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
        calibrating_ ? calibrating_->payload : payload_for(with_values, request.count);
    // Before anything else: the first sort of a kind calibrates, which runs sorts itself.
    std::size_t tuning_index = kDefaultTuning;
    if (calibrating_) {
      tuning_index = calibrating_->tuning;
    } else if (const std::optional<std::size_t> forced = forced_tuning()) {
      tuning_index = *forced;
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
      const LaunchMode mode = launch_mode();
      const std::size_t histogram = histogram_for(count);
      const GraphShape shape{tuning_index,
                             payload,
                             std::min(num_tiles, resident_blocks(tuning, payload)),
                             histogram,
                             count_blocks(count, kHistograms[histogram]),
                             passes_total};
      if (mode == LaunchMode::Graph) {
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
    const Histogram& histogram = kHistograms[shape.histogram];
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
    const Histogram& histogram = kHistograms[shape.histogram];
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
  // use for the count's size class (calibration_keys_for), with that payload.
  std::size_t tuning_for(Payload payload, std::size_t count, StreamHandle stream) {
    static CalibrationTable calibrated;
    const std::size_t calibration_keys = calibration_keys_for(count);
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
