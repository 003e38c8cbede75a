#include "bench_report.hpp"

#include <cstdio>
#include <fstream>
#include <thread>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/build_info.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::bench {

Row row_from_profile(const StageProfiler& profiler, std::string_view stage) {
  const auto stats = profiler.stats(stage);
  if (!stats || stats->samples == 0) {
    throw Error(ErrorKind::InvalidArgument, "no samples of stage '" + std::string(stage) + "'");
  }
  Row row;
  row.ms_median = stats->median_ms;
  row.ms_min = stats->min_ms;
  row.ms_max = stats->max_ms;
  row.repetitions = stats->samples;
  return row;
}

void Report::add(Row row) {
  rows_.push_back(std::move(row));
}

void Report::fail(std::string message) {
  failures_.push_back(std::move(message));
}

void Report::print_table() const {
  std::printf("%-6s %-8s %11s %-14s %-6s %10s %10s %10s", "bench", "algo", "n", "dist", "mode",
              "ms_median", "ms_min", "ms_max");
  std::vector<std::string> metric_names;
  for (const Row& row : rows_) {
    for (const auto& [name, value] : row.metrics.items()) {
      if (std::find(metric_names.begin(), metric_names.end(), name) == metric_names.end()) {
        metric_names.push_back(name);
      }
    }
  }
  for (const std::string& name : metric_names)
    std::printf(" %14s", name.c_str());
  std::printf("\n");
  for (const Row& row : rows_) {
    std::printf("%-6s %-8s %11zu %-14s %-6s %10.4f %10.4f %10.4f", row.bench.c_str(),
                row.algo.c_str(), row.n, row.dist.c_str(), row.mode.c_str(), row.ms_median,
                row.ms_min, row.ms_max);
    for (const std::string& name : metric_names) {
      const auto found = row.metrics.find(name);
      if (found == row.metrics.end()) {
        std::printf(" %14s", "-");
      } else if (found->is_number_integer()) {
        std::printf(" %14lld", found->get<long long>());
      } else if (found->is_number()) {
        std::printf(" %14.3f", found->get<double>());
      } else {
        std::printf(" %14s", found->dump().c_str());
      }
    }
    std::printf("\n");
  }
}

void Report::write_json(const std::string& path) const {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Row& row : rows_) {
    nlohmann::ordered_json entry = {
        {"bench", row.bench},   {"algo", row.algo},     {"n", row.n},
        {"dist", row.dist},     {"mode", row.mode},     {"ms_median", row.ms_median},
        {"ms_min", row.ms_min}, {"ms_max", row.ms_max}, {"repetitions", row.repetitions},
    };
    entry.update(row.metrics);
    rows.push_back(std::move(entry));
  }
  const nlohmann::ordered_json document = {{"machine", describe_machine()},
                                           {"rows", std::move(rows)}};
  std::ofstream file(path);
  file << document.dump(2) << '\n';
  file.close();
  if (!file) throw Error(ErrorKind::Io, "writing benchmark results to '" + path + "' failed");
}

nlohmann::ordered_json describe_machine() {
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  nlohmann::ordered_json machine = {
      {"radixsweep_version", build_info::kVersion},
      {"build_type", build_info::kBuildType},
      {"cxx_compiler", build_info::kCxxCompiler},
      {"cuda_compiler", build_info::kCudaCompiler},
      {"cuda_architectures", build_info::kCudaArchitectures},
      {"host_threads", std::thread::hardware_concurrency()},
  };
  if (cuda.available()) {
    const DeviceInfo& device = cuda.devices.front();
    machine["device"] = {
        {"name", device.name},
        {"multiprocessors", device.multiprocessors},
        {"global_memory_bytes", device.global_memory_bytes},
        {"compute_capability",
         std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor)},
        {"cuda_runtime", describe_cuda_version(cuda.runtime_version)},
        {"cuda_driver", describe_cuda_version(cuda.driver_version)},
    };
  } else {
    machine["device"] = nullptr;
    machine["no_device_reason"] = cuda.unavailable_reason;
  }
  return machine;
}

}  // namespace rsw::bench
