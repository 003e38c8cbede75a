#include "rsw/engine/backend.hpp"

#include <gtest/gtest.h>

#include "rsw/engine/error.hpp"

namespace rsw {
namespace {

TEST(Backend, ParsesNamesInAnyCase) {
  EXPECT_EQ(parse_backend("auto"), Backend::Auto);
  EXPECT_EQ(parse_backend("CPU"), Backend::Cpu);
  EXPECT_EQ(parse_backend("gpu"), Backend::Cuda);
  EXPECT_EQ(parse_backend("Cuda"), Backend::Cuda);
  for (Backend backend : {Backend::Auto, Backend::Cpu, Backend::Cuda}) {
    EXPECT_EQ(parse_backend(to_string(backend)), backend);
  }
}

TEST(Backend, RejectsUnknownNamesWithTheName) {
  try {
    parse_backend("vulkan");
    FAIL() << "parse_backend accepted 'vulkan'";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("'vulkan'"), std::string::npos);
  }
}

TEST(Backend, CpuIsAlwaysAvailable) {
  EXPECT_EQ(resolve_backend(Backend::Cpu), Backend::Cpu);
}

// Holds on every machine: CI (no GPU) checks the degraded path, the GPU machine the other.
TEST(Backend, AutoPicksCudaExactlyWhenADeviceIsUsable) {
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  EXPECT_EQ(resolve_backend(Backend::Auto), cuda.available() ? Backend::Cuda : Backend::Cpu);
}

TEST(Backend, ProbeExplainsAMissingDevice) {
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  EXPECT_EQ(cuda.available(), !cuda.devices.empty());
  EXPECT_EQ(cuda.unavailable_reason.empty(), cuda.available()) << cuda.unavailable_reason;
  if (!cuda.built_with_cuda) {
    EXPECT_EQ(cuda.runtime_version, 0);
  }
  EXPECT_EQ(&cuda_runtime_info(), &cuda) << "the probe runs once";
}

TEST(Backend, CudaWithoutADeviceThrowsWithTheReason) {
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  if (cuda.available()) {
    EXPECT_EQ(resolve_backend(Backend::Cuda), Backend::Cuda);
    return;
  }
  try {
    resolve_backend(Backend::Cuda);
    FAIL() << "resolve_backend(Cuda) succeeded without a device";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::DeviceUnavailable);
    EXPECT_NE(std::string(error.what()).find(cuda.unavailable_reason), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(use_cuda_device(0), Error);
}

TEST(Backend, DescribesBytesAndVersions) {
  EXPECT_EQ(describe_bytes(0), "0 B");
  EXPECT_EQ(describe_bytes(1023), "1023 B");
  EXPECT_EQ(describe_bytes(1536), "1.50 KiB");
  EXPECT_EQ(describe_bytes(std::size_t{80} << 30), "80.00 GiB");
  EXPECT_EQ(describe_cuda_version(13000), "13.0");
  EXPECT_EQ(describe_cuda_version(12080), "12.8");
}

TEST(Backend, DescribesADevice) {
  const DeviceInfo device{.ordinal = 0,
                          .name = "NVIDIA H100 80GB HBM3",
                          .pci_bus_id = "0000:01:00.0",
                          .multiprocessors = 132,
                          .global_memory_bytes = std::size_t{80} << 30,
                          .l2_cache_bytes = std::size_t{50} << 20,
                          .compute_major = 9,
                          .compute_minor = 0};
  EXPECT_EQ(describe(device),
            "NVIDIA H100 80GB HBM3: 132 SMs, 80.00 GiB, compute capability 9.0, L2 50.00 MiB, "
            "PCI 0000:01:00.0");
}

}  // namespace
}  // namespace rsw
