// DeviceBuffer and PinnedBuffer behaviour that needs no GPU: sizes, overflow, empty copies and
// the ordinary-memory fallback of PinnedBuffer. The GPU round trips are in
// device_buffer_gpu_test.cpp.
#include "rsw/engine/device_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"

namespace rsw {
namespace {

TEST(DeviceBuffer, StartsEmptyAndEmptyCopiesNeedNoDevice) {
  DeviceBuffer<float> buffer;
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.capacity(), 0u);
  EXPECT_EQ(buffer.data(), nullptr);
  buffer.upload(std::span<const float>{});
  buffer.fill_zero();
  EXPECT_TRUE(buffer.to_vector().empty());
  EXPECT_TRUE(buffer.span().empty());
}

TEST(DeviceBuffer, SizesThatOverflowAreInvalidArguments) {
  const std::size_t too_many = std::numeric_limits<std::size_t>::max() / 4;
  try {
    DeviceBuffer<std::uint64_t> buffer(too_many);
    FAIL() << "an overflowing size was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("overflow"), std::string::npos) << error.what();
  }
}

TEST(DeviceBuffer, DownloadingMoreThanItHoldsIsAnError) {
  DeviceBuffer<int> buffer;
  std::vector<int> host(3);
  EXPECT_THROW(buffer.download(host), Error);
}

TEST(DeviceBuffer, WithoutADeviceAllocationSaysWhy) {
  if (cuda_runtime_info().available()) GTEST_SKIP() << "a CUDA device is present";
  try {
    DeviceBuffer<int> buffer(10);
    FAIL() << "allocated device memory without a device";
  } catch (const Error& error) {
    // It says that there is no GPU, not what cudaMalloc makes of a missing driver.
    EXPECT_EQ(error.kind(), ErrorKind::DeviceUnavailable) << error.what();
    const std::string message = error.what();
    EXPECT_EQ(message.find("allocating 40 B of device memory: "), 0u) << message;
    EXPECT_TRUE(message.find("there is no usable GPU") != std::string::npos ||
                message.find("has no GPU code") != std::string::npos)
        << message;
    EXPECT_EQ(message.find("cudaMalloc"), std::string::npos) << message;
  }
}

TEST(DeviceBuffer, GrowsGeometrically) {
  EXPECT_EQ(detail::grown_capacity(0, 10), 10u);
  EXPECT_EQ(detail::grown_capacity(100, 101), 150u);
  EXPECT_EQ(detail::grown_capacity(100, 1000), 1000u);
}

TEST(PinnedBuffer, HoldsDataAlignedAndMoves) {
  PinnedBuffer<std::uint32_t> buffer(1001);
  ASSERT_EQ(buffer.size(), 1001u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 256, 0u);
  EXPECT_EQ(buffer.is_pinned(), cuda_runtime_info().available());
  for (std::uint32_t i = 0; i < buffer.size(); ++i)
    buffer[i] = i * 7;

  PinnedBuffer<std::uint32_t> moved = std::move(buffer);
  EXPECT_TRUE(buffer.empty());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  ASSERT_EQ(moved.size(), 1001u);
  EXPECT_EQ(moved[1000], 7000u);

  const std::uint32_t* memory = moved.data();
  moved.resize_discarding(5);
  EXPECT_EQ(moved.size(), 5u);
  EXPECT_EQ(moved.data(), memory) << "shrinking keeps the memory";
  moved.resize_discarding(1001);
  EXPECT_EQ(moved.data(), memory) << "growing within the capacity keeps it too";
  moved.resize_discarding(2000);
  EXPECT_GE(moved.capacity(), 2000u);
  moved.release();
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(moved.data(), nullptr);
}

TEST(PinnedBuffer, SmallCopiesFromTheDeviceMustFit) {
  PinnedBuffer<std::uint32_t> buffer(3);
  // Refused before anything is queued, with or without a device.
  EXPECT_THROW(buffer.copy_small_from_device(nullptr, 4, nullptr), Error);
}

}  // namespace
}  // namespace rsw
