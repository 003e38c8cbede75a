// Backend choice and what CUDA offers on this machine.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rsw/engine/api.hpp"

namespace rsw {

/// Where a stage runs. Auto picks Cuda when a usable device is present, else Cpu.
enum class Backend { Auto, Cpu, Cuda };

/// "auto", "cpu" or "cuda".
RSW_API std::string_view to_string(Backend backend) noexcept;

/// Parses "auto", "cpu", "gpu" or "cuda" (any case); throws rsw::Error(InvalidArgument) otherwise.
RSW_API Backend parse_backend(std::string_view name);

/// One CUDA device as the runtime reports it.
struct DeviceInfo {
  int ordinal = 0;                      ///< CUDA device index, as cudaSetDevice takes it
  std::string name;                     ///< e.g. "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;               ///< e.g. "0000:01:00.0"; matches EGL devices to CUDA
  int multiprocessors = 0;              ///< SM count, e.g. 132
  std::size_t global_memory_bytes = 0;  ///< total device memory
  std::size_t l2_cache_bytes = 0;       ///< e.g. 50 MiB on an H100
  std::size_t shared_memory_per_block_optin = 0;  ///< the most one block may ask for
  int compute_major = 0;                          ///< compute capability, e.g. 9 for sm_90
  int compute_minor = 0;                          ///< e.g. 0 for sm_90
};

/// What the CUDA runtime offers here; probed once per process.
struct CudaRuntimeInfo {
  bool built_with_cuda = false;     ///< this binary holds GPU code
  int runtime_version = 0;          ///< e.g. 13000 for CUDA 13.0; 0 when built without CUDA
  int driver_version = 0;           ///< the newest CUDA the driver supports; 0 without a driver
  std::vector<DeviceInfo> devices;  ///< empty when there is no usable device
  std::string unavailable_reason;   ///< why devices is empty; empty when it is not

  /// True when the CUDA backend can run here.
  bool available() const noexcept { return !devices.empty(); }
};

/// Probes the CUDA driver and devices the first time it is called (thread-safe) and returns
/// the same answer afterwards. Never throws: a machine with no driver or no GPU is reported
/// through unavailable_reason.
RSW_API const CudaRuntimeInfo& cuda_runtime_info();

/// The backend that `requested` means here: Auto gives Cuda when a device is usable, else Cpu;
/// Cuda without a usable device throws rsw::Error(DeviceUnavailable) that says why.
RSW_API Backend resolve_backend(Backend requested);

/// Makes `ordinal` the current CUDA device of the calling thread; throws rsw::Error when the
/// ordinal does not name a usable device.
RSW_API void use_cuda_device(int ordinal);
/// The calling thread's current CUDA device; throws rsw::Error (DeviceUnavailable) without one.
RSW_API int current_cuda_device();

/// "NVIDIA H100 80GB HBM3: 132 SMs, 79.19 GiB, compute capability 9.0, L2 50.00 MiB,
/// PCI 0000:01:00.0": one line for logs, --info and benchmark headers.
RSW_API std::string describe(const DeviceInfo& device);

/// "13.0" for the 13000 that cudaRuntimeGetVersion and cudaDriverGetVersion report.
RSW_API std::string describe_cuda_version(int version);

/// "1.50 GiB", "640 KiB", "12 B": a byte count for people.
RSW_API std::string describe_bytes(std::size_t bytes);

}  // namespace rsw
