#include "rsw/engine/backend.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

#include "rsw/engine/error.hpp"
#include "rsw/engine/text.hpp"

namespace rsw {

std::string_view to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "unknown";
}

std::string ascii_lowercase(std::string_view text) {
  std::string lower(text);
  std::ranges::transform(lower, lower.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

Backend parse_backend(std::string_view name) {
  const std::string lower = ascii_lowercase(name);
  if (lower == "auto") return Backend::Auto;
  if (lower == "cpu") return Backend::Cpu;
  if (lower == "gpu" || lower == "cuda") return Backend::Cuda;
  throw Error(ErrorKind::InvalidArgument,
              "unknown backend '" + std::string(name) + "' (expected auto, cpu, gpu or cuda)");
}

Backend resolve_backend(Backend requested) {
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  switch (requested) {
    case Backend::Auto: return cuda.available() ? Backend::Cuda : Backend::Cpu;
    case Backend::Cpu: return Backend::Cpu;
    case Backend::Cuda:
      if (!cuda.available()) {
        throw Error(
            ErrorKind::DeviceUnavailable,
            "the CUDA backend was requested but cannot run here: " + cuda.unavailable_reason);
      }
      return Backend::Cuda;
  }
  throw Error(ErrorKind::InvalidArgument, "invalid Backend value");
}

std::string describe(const DeviceInfo& device) {
  return device.name + ": " + std::to_string(device.multiprocessors) + " SMs, " +
         describe_bytes(device.global_memory_bytes) + ", compute capability " +
         std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor) +
         ", L2 " + describe_bytes(device.l2_cache_bytes) + ", PCI " + device.pci_bus_id;
}

std::string describe_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string describe_bytes(std::size_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.2f %s", value, kUnits[unit]);
  return text.data();
}

}  // namespace rsw
