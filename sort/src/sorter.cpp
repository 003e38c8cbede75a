#include "rsw/sort/sorter.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "cpu_radix.hpp"
#include "gpu_sorter.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/text.hpp"

namespace rsw::sort {

std::string_view to_string(Algorithm algorithm) noexcept {
  switch (algorithm) {
    case Algorithm::Auto: return "auto";
    case Algorithm::Cpu: return "cpu";
    case Algorithm::FourWay: return "fourway";
    case Algorithm::Onesweep: return "onesweep";
  }
  return "unknown";
}

Algorithm parse_algorithm(std::string_view name) {
  const std::string lower = ascii_lowercase(name);
  if (lower == "auto") return Algorithm::Auto;
  if (lower == "cpu") return Algorithm::Cpu;
  if (lower == "fourway" || lower == "four-way") return Algorithm::FourWay;
  if (lower == "onesweep") return Algorithm::Onesweep;
  throw Error(ErrorKind::InvalidArgument, "unknown sort algorithm '" + std::string(name) +
                                              "' (expected auto, cpu, fourway or onesweep)");
}

namespace {

void validate(std::size_t key_count, std::size_t value_count, bool with_values,
              const SortOptions& options) {
  if (options.begin_bit < 0 || options.end_bit > 32 || options.begin_bit > options.end_bit) {
    throw Error(ErrorKind::InvalidArgument, "sort bit range [" + std::to_string(options.begin_bit) +
                                                ", " + std::to_string(options.end_bit) +
                                                ") is not within [0, 32)");
  }
  if (with_values && value_count != key_count) {
    throw Error(ErrorKind::InvalidArgument, "sort_pairs: " + std::to_string(key_count) +
                                                " keys but " + std::to_string(value_count) +
                                                " values");
  }
}

Algorithm resolve(Algorithm requested, std::size_t count) {
  if (requested == Algorithm::Cpu) return Algorithm::Cpu;
  if (requested == Algorithm::Auto) {
    // Onesweep for every n the GPU sorts take (small n included: it has a one-block path).
    const bool gpu = resolve_backend(Backend::Auto) == Backend::Cuda;
    return gpu && count <= detail::kMaxGpuSortCount ? Algorithm::Onesweep : Algorithm::Cpu;
  }
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  if (!cuda.available()) {
    throw Error(ErrorKind::DeviceUnavailable,
                "the " + std::string(to_string(requested)) +
                    " sort needs a GPU, and none is usable here (" + cuda.unavailable_reason +
                    "); the sorts that run without one: cpu, auto (which picks cpu)");
  }
  if (count > detail::kMaxGpuSortCount) {
    throw Error(ErrorKind::InvalidArgument, "the GPU sorts take at most " +
                                                std::to_string(detail::kMaxGpuSortCount) +
                                                " keys; got " + std::to_string(count));
  }
  return requested;
}

}  // namespace

struct Sorter::Impl {
  explicit Impl(SorterOptions options) : cpu(options.cpu_threads) {}

  detail::CpuRadixSorter cpu;
  std::unique_ptr<detail::GpuSorter> four_way;
  std::unique_ptr<detail::GpuSorter> onesweep;
  detail::GpuSorter* last_gpu = nullptr;  // the sorter whose stats are pending, if any
  SortStats stats;
  // Staging: host data sorted on the GPU, and device data sorted on the CPU.
  DeviceBuffer<std::uint32_t> device_keys;
  DeviceBuffer<std::uint32_t> device_values;
  std::vector<std::uint32_t> host_keys;
  std::vector<std::uint32_t> host_values;

  // The GPU sorter of `algorithm` (FourWay or Onesweep), made on first use.
  detail::GpuSorter& gpu(Algorithm algorithm) {
    std::unique_ptr<detail::GpuSorter>& sorter =
        algorithm == Algorithm::FourWay ? four_way : onesweep;
    if (!sorter) {
      sorter = algorithm == Algorithm::FourWay ? detail::make_four_way_sorter()
                                               : detail::make_onesweep_sorter();
    }
    return *sorter;
  }

  void sort_on_cpu(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
                   const SortOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    const detail::CpuRadixResult result =
        cpu.sort(keys, values, options.begin_bit, options.end_bit, options.order);
    stats = SortStats{
        .algorithm = Algorithm::Cpu,
        .count = keys.size(),
        .passes_total = result.passes_total,
        .passes_run = result.passes_run,
        .passes_skipped = result.passes_total - result.passes_run,
        .early_exit = result.early_exit,
        .milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count(),
    };
    last_gpu = nullptr;
  }

  void sort_on_gpu(Algorithm algorithm, std::uint32_t* keys, std::uint32_t* values,
                   std::size_t count, const SortOptions& options) {
    detail::GpuSorter& sorter = gpu(algorithm);
    sorter.sort({.keys = keys,
                 .values = values,
                 .count = count,
                 .device_count = options.device_count,
                 .begin_bit = options.begin_bit,
                 .end_bit = options.end_bit,
                 .descending = options.order == Order::Descending,
                 .nearly_sorted = options.nearly_sorted,
                 .stream = options.stream});
    last_gpu = &sorter;
  }

  void sort_host(std::span<std::uint32_t> keys, std::span<std::uint32_t> values, bool with_values,
                 const SortOptions& options) {
    validate(keys.size(), values.size(), with_values, options);
    if (options.device_count != nullptr) {
      throw Error(ErrorKind::InvalidArgument,
                  "SortOptions::device_count counts keys in device memory; these are on the host");
    }
    const Algorithm algorithm = resolve(options.algorithm, keys.size());
    if (algorithm == Algorithm::Cpu) return sort_on_cpu(keys, values, options);
    device_keys.upload(keys, options.stream);
    if (with_values) device_values.upload(values, options.stream);
    sort_on_gpu(algorithm, device_keys.data(), with_values ? device_values.data() : nullptr,
                keys.size(), options);
    device_keys.download(keys, options.stream);
    if (with_values) device_values.download(values, options.stream);
  }

  void sort_device(DeviceSpan<std::uint32_t> keys, DeviceSpan<std::uint32_t> values,
                   bool with_values, const SortOptions& options) {
    validate(keys.size, values.size, with_values, options);
    const Algorithm algorithm = resolve(options.algorithm, keys.size);
    const bool trivial = keys.size <= 1 || options.begin_bit == options.end_bit;
    if (options.device_count != nullptr && (algorithm != Algorithm::Onesweep || trivial)) {
      // Only Onesweep takes its count on the device: read it back, and sort that many.
      std::uint64_t counted = 0;
      rsw::detail::copy_device_to_host(&counted, options.device_count, sizeof counted,
                                       options.stream);
      synchronize(options.stream);
      const std::size_t count = std::min<std::uint64_t>(counted, keys.size);
      SortOptions counted_options = options;
      counted_options.device_count = nullptr;
      return sort_device({keys.data, count}, {values.data, with_values ? count : 0}, with_values,
                         counted_options);
    }
    if (algorithm != Algorithm::Cpu) {
      return sort_on_gpu(algorithm, keys.data, with_values ? values.data : nullptr, keys.size,
                         options);
    }
    resize_host(host_keys, keys.size, "the keys copied to the host for the CPU sort");
    rsw::detail::copy_device_to_host(host_keys.data(), keys.data, keys.size_bytes(),
                                     options.stream);
    if (with_values) {
      resize_host(host_values, values.size, "the values copied to the host for the CPU sort");
      rsw::detail::copy_device_to_host(host_values.data(), values.data, values.size_bytes(),
                                       options.stream);
    }
    synchronize(options.stream);
    sort_on_cpu(host_keys, with_values ? std::span(host_values) : std::span<std::uint32_t>(),
                options);
    rsw::detail::copy_host_to_device(keys.data, host_keys.data(), keys.size_bytes(),
                                     options.stream);
    if (with_values) {
      rsw::detail::copy_host_to_device(values.data, host_values.data(), values.size_bytes(),
                                       options.stream);
    }
    synchronize(options.stream);
  }
};

Sorter::Sorter(SorterOptions options) : impl_(std::make_unique<Impl>(options)) {}
Sorter::~Sorter() = default;
Sorter::Sorter(Sorter&&) noexcept = default;
Sorter& Sorter::operator=(Sorter&&) noexcept = default;

void Sorter::sort_keys(std::span<std::uint32_t> keys, const SortOptions& options) {
  with_bad_alloc_as_error("Sorter::sort_keys", [&] { impl_->sort_host(keys, {}, false, options); });
}

void Sorter::sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values,
                        const SortOptions& options) {
  with_bad_alloc_as_error("Sorter::sort_pairs",
                          [&] { impl_->sort_host(keys, values, true, options); });
}

void Sorter::sort_keys(DeviceSpan<std::uint32_t> keys, const SortOptions& options) {
  with_bad_alloc_as_error("Sorter::sort_keys",
                          [&] { impl_->sort_device(keys, {}, false, options); });
}

void Sorter::sort_pairs(DeviceSpan<std::uint32_t> keys, DeviceSpan<std::uint32_t> values,
                        const SortOptions& options) {
  with_bad_alloc_as_error("Sorter::sort_pairs",
                          [&] { impl_->sort_device(keys, values, true, options); });
}

SortStats Sorter::last_stats() {
  if (impl_->last_gpu != nullptr) {
    impl_->stats = impl_->last_gpu->read_stats();
    impl_->stats.scratch_bytes = impl_->last_gpu->scratch_bytes();
    impl_->last_gpu = nullptr;
  }
  impl_->stats.temp_bytes = temp_bytes();
  return impl_->stats;
}

std::size_t Sorter::temp_bytes() const noexcept {
  return impl_->cpu.temp_bytes() + (impl_->four_way ? impl_->four_way->temp_bytes() : 0) +
         (impl_->onesweep ? impl_->onesweep->temp_bytes() : 0) +
         (impl_->device_keys.capacity() + impl_->device_values.capacity()) * sizeof(std::uint32_t) +
         (impl_->host_keys.capacity() + impl_->host_values.capacity()) * sizeof(std::uint32_t);
}

}  // namespace rsw::sort
