#include "sort_bench.hpp"

#include <algorithm>
#include <chrono>
#include <random>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/engine/text.hpp"
#include "rsw/sort/sorter.hpp"
#include "rsw/workloads/key_distributions.hpp"
#if RSW_HAVE_CUDA
#include "gpu_baselines.hpp"
#endif

namespace rsw::bench {
namespace {

constexpr std::string_view kStage = "sort";

workloads::KeyDistribution parse_distribution(std::string_view name) {
  for (workloads::KeyDistribution distribution : workloads::all_distributions()) {
    if (ascii_lowercase(workloads::to_string(distribution)) == ascii_lowercase(name)) {
      return distribution;
    }
  }
  throw Error(ErrorKind::InvalidArgument,
              "unknown distribution '" + std::string(name) +
                  "' (uniform, narrow8, narrow16, allequal, sorted, reversed, nearlysorted, "
                  "fewunique, gaussianfloats, specialfloats)");
}

bool is_gpu_algo(std::string_view algo) {
  return algo == "fourway" || algo == "onesweep" || algo == "onesweep-nearly" || algo == "cub" ||
         algo == "thrust";
}

/// The inputs of one (size, distribution, mode) group, on host and device.
struct Input {
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> values;  // empty for keys-only
  std::string dist;
  std::string mode;
};

// After a sort: keys ascending and, for pairs, each value still naming its key.
void verify(const Input& input, const std::vector<std::uint32_t>& keys,
            const std::vector<std::uint32_t>& values, std::string_view algo) {
  bool good = std::ranges::is_sorted(keys);
  for (std::size_t i = 0; good && i < values.size(); ++i)
    good = input.keys[values[i]] == keys[i];
  if (!good) {
    throw Error(ErrorKind::InvalidArgument,
                std::string(algo) + " produced a wrong order on " + input.dist);
  }
}

Row host_row(const Input& input, std::string_view algo, const SortBenchOptions& options) {
  sort::Sorter sorter({.cpu_threads = options.cpu_threads});
  const bool pairs = !input.values.empty();
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> values;
  std::vector<std::uint64_t> packed;
  StageProfiler profiler({.history_frames = options.host_repetitions});
  for (std::size_t run = 0; run < options.warmup + options.host_repetitions; ++run) {
    if (run == options.warmup) profiler.reset();
    keys = input.keys;
    values = input.values;
    if (algo == "std" && pairs) {  // std::sort of (key, index) packed in 64 bits: stable
      packed.resize(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        packed[i] = (std::uint64_t{keys[i]} << 32) | values[i];
      }
    }
    {
      auto timer = profiler.time(kStage);
      if (algo == "cpu") {
        if (pairs) {
          sorter.sort_pairs(keys, values, {.algorithm = sort::Algorithm::Cpu});
        } else {
          sorter.sort_keys(keys, {.algorithm = sort::Algorithm::Cpu});
        }
      } else if (pairs) {
        std::ranges::sort(packed);
      } else {
        std::ranges::sort(keys);
      }
    }
    profiler.end_frame();
  }
  if (algo == "std" && pairs) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = static_cast<std::uint32_t>(packed[i] >> 32);
      values[i] = static_cast<std::uint32_t>(packed[i]);
    }
  }
  verify(input, keys, values, algo);
  Row row = row_from_profile(profiler, kStage);
  if (algo == "cpu") {
    const sort::SortStats stats = sorter.last_stats();
    row.metrics["temp_bytes"] = stats.temp_bytes;
    row.metrics["passes_run"] = stats.passes_run;
    row.metrics["passes_skipped"] = stats.passes_skipped;
  }
  return row;
}

#if RSW_HAVE_CUDA
/// The largest L2 of the devices here (--cold-l2 writes twice that).
std::size_t largest_l2_bytes() {
  std::size_t largest = 0;
  for (const DeviceInfo& device : cuda_runtime_info().devices)
    largest = std::max(largest, device.l2_cache_bytes);
  return largest;
}

Row gpu_row(const Input& input, std::string_view algo, const SortBenchOptions& options) {
  resolve_backend(Backend::Cuda);  // where no device can run it, an error that says why
  const bool pairs = !input.values.empty();
  Stream stream;
  const DeviceBuffer<std::uint32_t> pristine_keys(input.keys, stream.handle());
  const DeviceBuffer<std::uint32_t> pristine_values(input.values, stream.handle());
  DeviceBuffer<std::uint32_t> keys(input.keys.size());
  DeviceBuffer<std::uint32_t> values(input.values.size());
  sort::Sorter sorter;
  const bool onesweep = algo == "onesweep" || algo == "onesweep-nearly";
  const sort::SortOptions sort_options{
      .algorithm = onesweep ? sort::Algorithm::Onesweep : sort::Algorithm::FourWay,
      .nearly_sorted = algo == "onesweep-nearly",
      .stream = stream.handle()};
  DeviceBuffer<std::uint8_t> l2_evictor(options.cold_l2 ? 2 * largest_l2_bytes() : 0);
  std::unique_ptr<BaselineSort> baseline;
  if (algo == "cub") baseline = make_cub_sort(input.keys.size(), pairs);
  if (algo == "thrust") baseline = make_thrust_sort();

  StageProfiler profiler({.history_frames = options.repetitions});
  for (std::size_t run = 0; run < options.warmup + options.repetitions; ++run) {
    if (run == options.warmup) {
      profiler.flush();
      profiler.reset();
    }
    copy(pristine_keys.span(), keys.span(), stream.handle());  // fresh, unsorted input
    if (pairs) copy(pristine_values.span(), values.span(), stream.handle());
    if (options.cold_l2) l2_evictor.fill_zero(stream.handle());
    {
      auto timer = profiler.time(kStage, Backend::Cuda, stream.handle());
      if (baseline) {
        baseline->sort(keys.data(), pairs ? values.data() : nullptr, keys.size(), stream.handle());
      } else if (pairs) {
        sorter.sort_pairs(keys.span(), values.span(), sort_options);
      } else {
        sorter.sort_keys(keys.span(), sort_options);
      }
    }
    profiler.end_frame();
  }
  profiler.flush();
  Row row = row_from_profile(profiler, kStage);
  row.metrics["cold_l2"] = options.cold_l2 ? 1 : 0;
  if (baseline) {
    if (!baseline->last_output_sorted(stream.handle())) {
      throw Error(ErrorKind::InvalidArgument, std::string(algo) + " did not sort");
    }
    row.metrics["temp_bytes"] = baseline->temp_bytes();
  } else {
    verify(input, keys.to_vector(stream.handle()), values.to_vector(stream.handle()), algo);
    const sort::SortStats stats = sorter.last_stats();
    row.metrics["temp_bytes"] = stats.temp_bytes;
    row.metrics["scratch_bytes"] = stats.scratch_bytes;
    row.metrics["passes_run"] = stats.passes_run;
    row.metrics["passes_skipped"] = stats.passes_skipped;
    row.metrics["presorted"] = stats.presorted ? 1 : 0;
    row.metrics["tuning"] =
        std::to_string(stats.block_threads) + "x" + std::to_string(stats.items_per_thread);
  }
  return row;
}
#else
Row gpu_row(const Input&, std::string_view algo, const SortBenchOptions&) {
  throw Error(ErrorKind::DeviceUnavailable,
              std::string(algo) + " needs a build with CUDA and a CUDA device");
}
#endif

// The same-run ratios: GPU rows against CUB, host rows against std::sort.
void add_ratios(std::vector<Row>& group) {
  const auto find = [&](std::string_view algo) -> const Row* {
    const auto found = std::ranges::find(group, algo, &Row::algo);
    return found == group.end() ? nullptr : &*found;
  };
  const Row* cub = find("cub");
  const Row* standard = find("std");
  for (Row& row : group) {
    if (cub != nullptr && is_gpu_algo(row.algo))
      row.metrics["x_vs_cub"] = cub->ms_median / row.ms_median;
    if (standard != nullptr && !is_gpu_algo(row.algo)) {
      row.metrics["x_vs_std"] = standard->ms_median / row.ms_median;
    }
  }
}

}  // namespace

void run_sort_bench(const SortBenchOptions& options, Report& report) {
  std::vector<workloads::KeyDistribution> distributions;
  for (const std::string& name : options.distributions) {
    distributions.push_back(parse_distribution(name));
  }
  for (const std::string& mode : options.modes) {
    if (mode != "keys" && mode != "pairs") {
      throw Error(ErrorKind::InvalidArgument, "unknown mode '" + mode + "' (keys, pairs)");
    }
  }
  for (const std::size_t count : options.sizes) {
    for (const workloads::KeyDistribution distribution : distributions) {
      const std::uint32_t seed = std::random_device{}();
      for (const std::string& mode : options.modes) {
        const std::string dist = ascii_lowercase(workloads::to_string(distribution));
        const bool pairs = mode == "pairs";
        const Input input = with_host_allocation(
            "the " + std::to_string(count) + (pairs ? " keys and values" : " keys") + " of the " +
                dist + " input",
            count * sizeof(std::uint32_t) * (pairs ? 2 : 1), [&] {
              return Input{
                  .keys = workloads::make_keys(count, distribution, seed),
                  .values = pairs ? workloads::make_indices(count) : std::vector<std::uint32_t>{},
                  .dist = dist,
                  .mode = mode};
            });
        std::vector<Row> group;
        for (const std::string& algo : options.algos) {
          Row row =
              is_gpu_algo(algo) ? gpu_row(input, algo, options) : host_row(input, algo, options);
          row.bench = "sort";
          row.algo = algo;
          row.n = count;
          row.dist = input.dist;
          row.mode = mode;
          row.metrics["gkeys_per_s"] = static_cast<double>(count) / (row.ms_median * 1e6);
          group.push_back(std::move(row));
        }
        add_ratios(group);
        for (Row& row : group)
          report.add(std::move(row));
      }
    }
  }
}

}  // namespace rsw::bench
