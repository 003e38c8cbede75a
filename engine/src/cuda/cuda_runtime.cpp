// Device discovery and CUDA error mapping, for builds with GPU code.
#include <cuda_runtime_api.h>

#include <string>

#include "probe_kernel.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/error.hpp"

namespace rsw {
namespace {

ErrorKind kind_of(cudaError_t status) {
  switch (status) {
    case cudaErrorMemoryAllocation: return ErrorKind::OutOfMemory;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoKernelImageForDevice: return ErrorKind::DeviceUnavailable;
    default: return ErrorKind::Cuda;
  }
}

DeviceInfo describe_device(int ordinal) {
  cudaDeviceProp properties{};
  RSW_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal),
                 "reading the properties of CUDA device " + std::to_string(ordinal));
  char bus_id[32] = {};
  RSW_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal),
                 "reading the PCI bus id of CUDA device " + std::to_string(ordinal));
  DeviceInfo device;
  device.ordinal = ordinal;
  device.name = properties.name;
  device.pci_bus_id = bus_id;
  device.multiprocessors = properties.multiProcessorCount;
  device.global_memory_bytes = properties.totalGlobalMem;
  device.l2_cache_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  device.shared_memory_per_block_optin = properties.sharedMemPerBlockOptin;
  device.compute_major = properties.major;
  device.compute_minor = properties.minor;
  return device;
}

CudaRuntimeInfo probe_cuda_runtime() {
  CudaRuntimeInfo info;
  info.built_with_cuda = true;
  cudaRuntimeGetVersion(&info.runtime_version);
  if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess || info.driver_version == 0) {
    info.driver_version = 0;
    info.unavailable_reason = "no CUDA driver is installed (libcuda.so.1 not found)";
    return info;
  }
  int count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    info.unavailable_reason = cudaGetErrorString(status);
    cudaGetLastError();  // not sticky, but leave no trace for the next call
    return info;
  }
  if (count == 0) {
    info.unavailable_reason = "the CUDA driver reports no devices";
    return info;
  }
  std::string rejected;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    DeviceInfo device = describe_device(ordinal);
    // A device this binary has no machine code or PTX for cannot run our kernels.
    if (const cudaError_t status = detail::probe_kernel_image(ordinal); status != cudaSuccess) {
      rejected += (rejected.empty() ? "" : "; ") + device.name + " (compute capability " +
                  std::to_string(device.compute_major) + "." +
                  std::to_string(device.compute_minor) + "): " + cudaGetErrorString(status);
      cudaGetLastError();
      continue;
    }
    info.devices.push_back(std::move(device));
  }
  if (info.devices.empty()) info.unavailable_reason = "no device can run this build: " + rejected;
  return info;
}

}  // namespace

const CudaRuntimeInfo& cuda_runtime_info() {
  static const CudaRuntimeInfo info = probe_cuda_runtime();
  return info;
}

int current_cuda_device() {
  if (!cuda_runtime_info().available()) {
    throw Error(ErrorKind::DeviceUnavailable,
                "no CUDA device: " + cuda_runtime_info().unavailable_reason);
  }
  int ordinal = 0;
  RSW_CUDA_CHECK(cudaGetDevice(&ordinal), "asking for the current CUDA device");
  return ordinal;
}

void use_cuda_device(int ordinal) {
  for (const DeviceInfo& device : cuda_runtime_info().devices) {
    if (device.ordinal == ordinal) {
      RSW_CUDA_CHECK(cudaSetDevice(ordinal), "selecting CUDA device " + std::to_string(ordinal));
      return;
    }
  }
  throw Error(
      ErrorKind::DeviceUnavailable,
      "CUDA device " + std::to_string(ordinal) + " is not usable here" +
          (cuda_runtime_info().available()
               ? " (" + std::to_string(cuda_runtime_info().devices.size()) + " usable device(s))"
               : ": " + cuda_runtime_info().unavailable_reason));
}

namespace detail {

void throw_cuda_error(int status, const char* call, const char* file, int line,
                      std::string_view doing) {
  const auto cuda_status = static_cast<cudaError_t>(status);
  std::string message(doing);
  message += ": ";
  message += call;
  message += " failed at ";
  message += file;
  message += ':';
  message += std::to_string(line);
  message += ": ";
  message += cudaGetErrorString(cuda_status);
  message += " (";
  message += cudaGetErrorName(cuda_status);
  message += ')';
  throw Error(kind_of(cuda_status), message, status);
}

}  // namespace detail
}  // namespace rsw
