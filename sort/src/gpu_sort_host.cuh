// What the GPU sorts share on the host side: building CUDA graphs (with conditional nodes that
// kernels set), a small cache of instantiated graphs, one per problem shape, the one-time
// calibration that picks a sorter's tuning, reading a finished sort's statistics, and the
// small writes a sort makes around its kernels (done by kernels: see store_on_device).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/sort/sorter.hpp"
#include "sort_policy.hpp"

namespace rsw::sort::detail {

/// One thread: *to = value.
template <class T>
__global__ void store_value(T* to, T value) {
  *to = value;
}

/// Writes a small `value` (a sort's problem) to device memory on `stream`, by a one-thread
/// kernel whose argument is copied at launch. Between a sort's kernels a kernel costs the
/// stream less than a copy does: a copy switches the stream to a copy engine and back.
template <class T>
void store_on_device(T* to, const T& value, StreamHandle stream, const char* what) {
  store_value<<<1, 1, 0, stream>>>(to, value);
  RSW_CUDA_CHECK_LAUNCH(what);
}

/// The bits of a key that take part in the order, after >> begin_bit (a sort's problem).
inline constexpr std::uint32_t order_mask_of(int begin_bit, int end_bit) {
  const int bits = end_bit - begin_bit;
  return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/// An owned cudaGraph_t, to be instantiated.
class Graph {
 public:
  Graph() { RSW_CUDA_CHECK(cudaGraphCreate(&graph_, 0), "creating a sort graph"); }
  ~Graph() {
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  Graph(Graph&& other) noexcept : graph_(std::exchange(other.graph_, nullptr)) {}
  Graph& operator=(Graph&&) = delete;
  cudaGraph_t get() const { return graph_; }

 private:
  cudaGraph_t graph_ = nullptr;
};

/// How a kernel node follows the node before it.
enum class Follows {
  completion,  // starts once the node before has ended and its writes are visible
  // May start while the kernel before ends (programmatic dependent launch, Hopper): it must
  // call cudaGridDependencySynchronize() before it reads what that kernel wrote.
  launch,
};

/// Adds `kernel<<<blocks, threads, shared_bytes>>>(arguments...)` to `graph` after `after`
/// (or as a root), following it as `follows` says.
template <class... Parameters>
cudaGraphNode_t add_kernel(cudaGraph_t graph, cudaGraphNode_t after, Follows follows,
                           void (*kernel)(Parameters...), unsigned int blocks, unsigned int threads,
                           unsigned int shared_bytes,
                           std::type_identity_t<Parameters>... arguments) {
  void* argument_pointers[] = {&arguments...};
  cudaGraphNodeParams parameters{};
  parameters.type = cudaGraphNodeTypeKernel;
  parameters.kernel.func = reinterpret_cast<void*>(kernel);
  parameters.kernel.gridDim = dim3(blocks);
  parameters.kernel.blockDim = dim3(threads);
  parameters.kernel.sharedMemBytes = shared_bytes;
  parameters.kernel.kernelParams = argument_pointers;
  cudaGraphEdgeData edge{};
  if (follows == Follows::launch) {
    edge.from_port = cudaGraphKernelNodePortProgrammatic;
    edge.type = cudaGraphDependencyTypeProgrammatic;
  }
  cudaGraphNode_t node = nullptr;
  RSW_CUDA_CHECK(
      cudaGraphAddNode(&node, graph, after != nullptr ? &after : nullptr,
                       after != nullptr ? &edge : nullptr, after != nullptr ? 1 : 0, &parameters),
      "adding a kernel to a sort graph");
  return node;
}

/// add_kernel for a kernel that starts once the node before has ended.
template <class... Parameters>
cudaGraphNode_t add_kernel(cudaGraph_t graph, cudaGraphNode_t after, void (*kernel)(Parameters...),
                           unsigned int blocks, unsigned int threads, unsigned int shared_bytes,
                           std::type_identity_t<Parameters>... arguments) {
  return add_kernel(graph, after, Follows::completion, kernel, blocks, threads, shared_bytes,
                    arguments...);
}

/// Adds a conditional node (kind `type`, condition `handle`) after `after` to `graph` and
/// returns it with its body graph.
inline std::pair<cudaGraphNode_t, cudaGraph_t> add_conditional(cudaGraph_t graph,
                                                               cudaGraphNode_t after,
                                                               cudaGraphConditionalHandle handle,
                                                               cudaGraphConditionalNodeType type) {
  cudaGraphNodeParams parameters{};
  parameters.type = cudaGraphNodeTypeConditional;
  parameters.conditional.handle = handle;
  parameters.conditional.type = type;
  parameters.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  RSW_CUDA_CHECK(cudaGraphAddNode(&node, graph, after != nullptr ? &after : nullptr, nullptr,
                                  after != nullptr ? 1 : 0, &parameters),
                 "adding a conditional node to a sort graph");
  return {node, parameters.conditional.phGraph_out[0]};
}

/// A condition of `graph` that kernels set; 0 unless a kernel sets it during the launch.
inline cudaGraphConditionalHandle make_condition(cudaGraph_t graph, unsigned int initial,
                                                 unsigned int flags) {
  cudaGraphConditionalHandle handle{};
  RSW_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph, initial, flags),
                 "creating a sort graph's condition");
  return handle;
}

/// Instantiated graphs, one per shape in use; a loop whose size keeps changing keeps the
/// kMaxGraphs most recently used. Shape needs ==.
template <class Shape>
class GraphCache {
 public:
  GraphCache() = default;
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;
  ~GraphCache() {
    for (const Entry& entry : entries_)
      cudaGraphExecDestroy(entry.exec);
  }

  /// The graph for `shape`, built by `build(shape)` (returning a Graph) on first use.
  template <class Build>
  cudaGraphExec_t get(const Shape& shape, Build&& build) {
    ++clock_;
    const auto found = std::ranges::find(entries_, shape, &Entry::shape);
    if (found != entries_.end()) {
      found->last_use = clock_;
      return found->exec;
    }
    if (entries_.size() == kMaxGraphs) {
      const auto stalest = std::ranges::min_element(entries_, {}, &Entry::last_use);
      cudaGraphExecDestroy(stalest->exec);
      entries_.erase(stalest);
    }
    const Graph graph = build(shape);
    cudaGraphExec_t exec = nullptr;
    RSW_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0), "instantiating a sort graph");
    entries_.push_back({shape, exec, clock_});
    return exec;
  }

 private:
  struct Entry {
    Shape shape;
    cudaGraphExec_t exec;
    std::uint64_t last_use;
  };
  static constexpr std::size_t kMaxGraphs = 8;
  std::vector<Entry> entries_;
  std::uint64_t clock_ = 0;
};

/// Hashed, well-mixed keys (and values = indices when `values` is set) for calibration runs.
/// (static: each sort's translation unit has its own copy of this kernel.)
static __global__ void fill_calibration_keys(std::uint32_t* keys, std::uint32_t* values,
                                             std::size_t count, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B9u + seed;  // splitmix-style hash
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    keys[i] = x;
    if (values != nullptr) values[i] = static_cast<std::uint32_t>(i);
  }
}

/// Holds `value` in `slot` while one of a calibration's sorts runs, and empties the slot after,
/// also when the sort throws: the sorter's next sort is then not taken for a calibration's.
template <class T>
class CalibratingAs {
 public:
  CalibratingAs(std::optional<T>& slot, T value) : slot_(slot) { slot_ = std::move(value); }
  ~CalibratingAs() { slot_.reset(); }
  CalibratingAs(const CalibratingAs&) = delete;
  CalibratingAs& operator=(const CalibratingAs&) = delete;

 private:
  std::optional<T>& slot_;
};

/// The names of `tunings` (each has name()), in order: what a developer override names.
template <class Tunings>
std::vector<std::string> tuning_names(const Tunings& tunings) {
  std::vector<std::string> names;
  for (const auto& tuning : tunings)
    names.push_back(tuning.name());
  return names;
}

using policy::kCalibrationKeys;
using policy::kCalibrationRuns;

/// Sorts `count` fresh random keys (and indices as values when `with_values`) with each of
/// `tunings` tunings through `sort_with(tuning, keys, values)`, which sorts them on `stream`
/// and returns the sort's milliseconds, and returns the fastest tuning: the lowest median of
/// kCalibrationRuns after a warm-up. The tunings take turns, run by run, so that a clock or
/// temperature that drifts during the calibration weighs on all of them alike: the closest
/// tunings differ by less than such a drift.
template <class SortWith>
std::size_t fastest_tuning(std::size_t tunings, bool with_values, std::size_t count,
                           StreamHandle stream, SortWith&& sort_with) {
  DeviceBuffer<std::uint32_t> keys(count);
  DeviceBuffer<std::uint32_t> values(with_values ? count : 0);
  std::vector<std::array<double, kCalibrationRuns>> times(tunings);
  for (int run = -1; run < kCalibrationRuns; ++run) {
    for (std::size_t tuning = 0; tuning < tunings; ++tuning) {
      fill_calibration_keys<<<256, 256, 0, stream>>>(keys.data(),
                                                     with_values ? values.data() : nullptr, count,
                                                     static_cast<std::uint32_t>(run + 7));
      RSW_CUDA_CHECK_LAUNCH("filling the calibration keys");
      const double milliseconds =
          sort_with(tuning, keys.data(), with_values ? values.data() : nullptr);
      if (run >= 0) times[tuning][static_cast<std::size_t>(run)] = milliseconds;
    }
  }
  std::size_t best = 0;
  double best_ms = 0;
  for (std::size_t tuning = 0; tuning < tunings; ++tuning) {
    std::ranges::sort(times[tuning]);
    const double median = times[tuning][kCalibrationRuns / 2];
    if (tuning == 0 || median < best_ms) {
      best = tuning;
      best_ms = median;
    }
  }
  return best;
}

/// The tunings one kind of sorter calibrated in this process, per (device, payload,
/// calibration size). A payload is what the sorts move, numbered by the sorter (keys-only or
/// key-value; Onesweep also tells key-value arrays from records).
class CalibrationTable {
 public:
  /// The tuning for (device, payload, calibration_keys); `calibrate()` measures it on first
  /// use.
  template <class Calibrate>
  std::size_t tuning(int device, int payload, std::size_t calibration_keys, Calibrate&& calibrate) {
    const std::lock_guard lock(mutex_);
    const auto key = std::make_tuple(device, payload, calibration_keys);
    if (const auto found = tunings_.find(key); found != tunings_.end()) return found->second;
    const std::size_t best = calibrate();
    tunings_.emplace(key, best);
    return best;
  }

 private:
  std::mutex mutex_;
  std::map<std::tuple<int, int, std::size_t>, std::size_t> tunings_;
};

/// What a launched sort reports: its time between two events and the words from passes_run to
/// early_exit of its device control block (either sort's Control has both). finish() queues
/// their copy into pinned memory at the end of the sort (by a kernel: copy_small_by_kernel),
/// or the sort's last kernel writes them there itself (kernel_words(), then finish_written()),
/// so reading the stats afterwards costs no copy and no wait of its own: a frame loop reads
/// them every frame.
template <class Control>
class SortReport {
 public:
  SortReport() = default;
  ~SortReport() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  SortReport(const SortReport&) = delete;
  SortReport& operator=(const SortReport&) = delete;

  /// Before the sort's first kernel. The first call sets up the events and pinned words.
  void start(StreamHandle stream) {
    if (start_ == nullptr) {
      RSW_CUDA_CHECK(cudaEventCreate(&start_), "creating a sort's start event");
      RSW_CUDA_CHECK(cudaEventCreate(&stop_), "creating a sort's stop event");
      words_.resize_discarding(kBytes);
    }
    RSW_CUDA_CHECK(cudaEventRecord(start_, stream), "recording a sort's start");
  }
  /// After the sort's last kernel.
  void finish(const Control* device_control, StreamHandle stream) {
    words_.copy_small_from_device(reinterpret_cast<const std::byte*>(device_control) + kFirst,
                                  kBytes, stream);
    RSW_CUDA_CHECK(cudaEventRecord(stop_, stream), "recording a sort's end");
  }
  /// After the sort's last kernel, which wrote the words to kernel_words() itself.
  void finish_written(StreamHandle stream) {
    RSW_CUDA_CHECK(cudaEventRecord(stop_, stream), "recording a sort's end");
  }
  /// Where a kernel writes the words (page-locked memory, laid out as Control from passes_run
  /// to early_exit); valid after the first start().
  std::uint32_t* kernel_words() { return reinterpret_cast<std::uint32_t*>(words_.data()); }
  /// Waits for finish()'s event and completes `stats`.
  void read(SortStats& stats, const std::string& sort_name) const {
    RSW_CUDA_CHECK(cudaEventSynchronize(stop_), "waiting for the " + sort_name + " sort");
    float milliseconds = 0;
    RSW_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_, stop_),
                   "timing the " + sort_name + " sort");
    std::uint32_t passes_run = 0;
    std::uint32_t early_exit = 0;
    std::memcpy(&passes_run, words_.data(), sizeof passes_run);
    std::memcpy(&early_exit, words_.data() + (kLast - kFirst), sizeof early_exit);
    stats.passes_run = static_cast<int>(passes_run);
    stats.passes_skipped = stats.passes_total - stats.passes_run;
    stats.early_exit = early_exit != 0;
    stats.milliseconds = milliseconds;
  }
  /// After read(): the std::uint32_t at `offset` in Control as finish() copied it (offsets
  /// from passes_run to early_exit).
  std::uint32_t word(std::size_t offset) const {
    std::uint32_t value = 0;
    std::memcpy(&value, words_.data() + (offset - kFirst), sizeof value);
    return value;
  }

 private:
  static constexpr std::size_t kFirst = offsetof(Control, passes_run);
  static constexpr std::size_t kLast = offsetof(Control, early_exit);
  static_assert(kFirst < kLast);
  static constexpr std::size_t kBytes = kLast + sizeof(std::uint32_t) - kFirst;

  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  PinnedBuffer<std::byte> words_;
};

}  // namespace rsw::sort::detail
