// CUDA failures become rsw::Error with the right kind, the call, the file:line and the context.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/error.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw {
namespace {

TEST(CudaErrorGpu, InvalidDeviceMapsToDeviceUnavailable) {
  RSW_REQUIRE_CUDA_DEVICE();
  const int line = __LINE__ + 2;
  try {
    RSW_CUDA_CHECK(cudaSetDevice(4096), "selecting device 4096");
    FAIL() << "cudaSetDevice(4096) succeeded";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.kind(), ErrorKind::DeviceUnavailable) << message;
    EXPECT_EQ(error.cuda_status(), static_cast<int>(cudaErrorInvalidDevice));
    EXPECT_EQ(message.rfind("selecting device 4096: cudaSetDevice(4096) failed at ", 0), 0u)
        << message;
    EXPECT_NE(message.find("tests/engine/cuda_error_gpu_test.cpp:" + std::to_string(line)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("(cudaErrorInvalidDevice)"), std::string::npos) << message;
  }
}

TEST(CudaErrorGpu, OtherFailuresAreCudaErrors) {
  RSW_REQUIRE_CUDA_DEVICE();
  try {
    RSW_CUDA_CHECK(cudaMemcpy(nullptr, nullptr, 16, cudaMemcpyDeviceToDevice), "copying nothing");
    FAIL() << "a copy from nullptr succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cuda) << error.what();
    EXPECT_NE(error.cuda_status(), 0);
  }
  cudaGetLastError();
}

TEST(CudaErrorGpu, UseCudaDeviceRejectsUnknownOrdinals) {
  RSW_REQUIRE_CUDA_DEVICE();
  EXPECT_NO_THROW(use_cuda_device(cuda_runtime_info().devices.front().ordinal));
  try {
    use_cuda_device(4096);
    FAIL() << "use_cuda_device(4096) succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::DeviceUnavailable);
    EXPECT_NE(std::string(error.what()).find("4096"), std::string::npos);
  }
}

TEST(CudaErrorGpu, TheProbeDescribesTheDevice) {
  RSW_REQUIRE_CUDA_DEVICE();
  const DeviceInfo& device = cuda_runtime_info().devices.front();
  EXPECT_FALSE(device.name.empty());
  EXPECT_GT(device.multiprocessors, 0);
  EXPECT_GT(device.global_memory_bytes, std::size_t{1} << 30);
  EXPECT_GE(device.compute_major, 9) << "this build targets sm_90";
  EXPECT_FALSE(device.pci_bus_id.empty());
  EXPECT_GT(cuda_runtime_info().driver_version, 0);
  EXPECT_GE(cuda_runtime_info().driver_version, cuda_runtime_info().runtime_version);
}

}  // namespace
}  // namespace rsw
