// DeviceBuffer and PinnedBuffer on a GPU: round trips of awkward sizes, growth that keeps the
// contents, moves, streams (and one ordered after another), and the error for an allocation
// beyond the device's memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw_test/cuda_device.hpp"
#include "spin_kernel.hpp"

namespace rsw {
namespace {

std::vector<std::uint32_t> random_words(std::size_t count, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<std::uint32_t> words(count);
  for (auto& word : words)
    word = static_cast<std::uint32_t>(generator());
  return words;
}

class DeviceBufferGpu : public ::testing::TestWithParam<std::size_t> {
 protected:
  void SetUp() override { RSW_REQUIRE_CUDA_DEVICE(); }
};

TEST_P(DeviceBufferGpu, RoundTripsThroughTheDevice) {
  const auto host = random_words(GetParam(), std::random_device{}());
  DeviceBuffer<std::uint32_t> buffer(host);
  EXPECT_EQ(buffer.size(), host.size());
  EXPECT_EQ(buffer.to_vector(), host);
}

TEST_P(DeviceBufferGpu, GrowingKeepsTheContents) {
  const auto host = random_words(GetParam(), std::random_device{}());
  DeviceBuffer<std::uint32_t> buffer(host);
  buffer.reserve(host.size() * 3 + 1);
  EXPECT_GE(buffer.capacity(), host.size() * 3 + 1);
  EXPECT_EQ(buffer.to_vector(), host);

  buffer.resize(host.size() * 5 + 7);
  std::vector<std::uint32_t> prefix(host.size());
  buffer.download(prefix);
  EXPECT_EQ(prefix, host);

  buffer.resize(host.size() / 2);
  EXPECT_EQ(buffer.to_vector(),
            std::vector<std::uint32_t>(host.begin(), host.begin() + host.size() / 2));
}

INSTANTIATE_TEST_SUITE_P(AwkwardSizes, DeviceBufferGpu,
                         ::testing::Values(0, 1, 2, 255, 256, 257, 65521, 1'000'003));

TEST(DeviceBufferGpuBasics, MovesOwnership) {
  RSW_REQUIRE_CUDA_DEVICE();
  const auto host = random_words(1000, 7);
  DeviceBuffer<std::uint32_t> first(host);
  const std::uint32_t* memory = first.data();
  DeviceBuffer<std::uint32_t> second = std::move(first);
  EXPECT_EQ(second.data(), memory);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(first.size(), 0u);       // NOLINT(bugprone-use-after-move)
  DeviceBuffer<std::uint32_t> third;
  third = std::move(second);
  EXPECT_EQ(third.to_vector(), host);
}

TEST(DeviceBufferGpuBasics, FillsZeroAndDiscardsOnRequest) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::vector<float> threes(513, 3.5f);
  DeviceBuffer<float> buffer(threes);
  buffer.fill_zero();
  EXPECT_EQ(buffer.to_vector(), std::vector<float>(513, 0.0f));
  const std::size_t capacity = buffer.capacity();
  buffer.clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.capacity(), capacity);
  buffer.resize_discarding(capacity);
  EXPECT_EQ(buffer.capacity(), capacity) << "fits: no reallocation";
  buffer.release();
  EXPECT_EQ(buffer.capacity(), 0u);
  EXPECT_EQ(buffer.data(), nullptr);
}

TEST(DeviceBufferGpuBasics, CopiesOnAStreamThroughPinnedMemory) {
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  PinnedBuffer<std::uint32_t> staging(100'003);
  EXPECT_TRUE(staging.is_pinned());
  const auto host = random_words(staging.size(), 11);
  std::copy(host.begin(), host.end(), staging.data());

  DeviceBuffer<std::uint32_t> buffer;
  buffer.upload(staging.span(), stream.handle());
  PinnedBuffer<std::uint32_t> back(staging.size());
  buffer.download(back.span(), stream.handle());
  EXPECT_TRUE(std::equal(host.begin(), host.end(), back.data()));
}

TEST(DeviceBufferGpuBasics, AStreamOrderedAfterAnotherReadsWhatItWrote) {
  RSW_REQUIRE_CUDA_DEVICE();
  Stream producer;  // independent streams: no implicit order between them
  Stream consumer;
  const auto before = random_words(4099, 12);
  const auto after = random_words(4099, 13);
  DeviceBuffer<std::uint32_t> buffer;
  buffer.upload(before);
  synchronize(nullptr);
  // The producer's write waits behind 50 ms of spinning; the consumer's read must wait for it.
  PinnedBuffer<std::uint32_t> written(after.size());
  std::copy(after.begin(), after.end(), written.data());
  test::spin_on_gpu(50.0, producer.handle());
  buffer.upload(written.span(), producer.handle());
  order_after(consumer.handle(), producer.handle());
  PinnedBuffer<std::uint32_t> read(after.size());
  buffer.download(read.span(), consumer.handle());
  EXPECT_TRUE(std::equal(after.begin(), after.end(), read.data()));
  order_after(consumer.handle(), consumer.handle());  // the same stream: nothing to do
}

TEST(DeviceBufferGpuBasics, SmallCopiesByAKernelGoBothWays) {
  // Whole 32-bit words, then odd byte counts at odd offsets (copied a byte at a time).
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  for (const auto& [offset, bytes] :
       {std::pair<std::size_t, std::size_t>{0, 328}, {0, 12}, {1, 7}, {3, 1}, {2, 0}}) {
    PinnedBuffer<std::uint8_t> source(offset + bytes);
    ASSERT_TRUE(source.is_pinned());
    for (std::size_t i = 0; i < source.size(); ++i)
      source.data()[i] = static_cast<std::uint8_t>(i * 37 + 11);
    DeviceBuffer<std::uint8_t> device(offset + bytes);
    device.fill_zero(stream.handle());
    detail::copy_small_by_kernel(device.data() + offset, source.data() + offset, bytes,
                                 stream.handle());
    PinnedBuffer<std::uint8_t> back(offset + bytes);
    for (std::size_t i = 0; i < back.size(); ++i)
      back.data()[i] = 0xAB;
    detail::copy_small_by_kernel(back.data() + offset, device.data() + offset, bytes,
                                 stream.handle());
    synchronize(stream.handle());
    for (std::size_t i = 0; i < offset; ++i)
      EXPECT_EQ(back.data()[i], 0xAB) << "byte " << i;
    for (std::size_t i = offset; i < offset + bytes; ++i) {
      EXPECT_EQ(back.data()[i], source.data()[i]) << "byte " << i << " of " << bytes;
    }
  }
}

TEST(DeviceBufferGpuBasics, PinnedBuffersReadSmallCopiesFromTheDevice) {
  // Pinned: by a kernel; the first `count` elements only.
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  const std::vector<std::uint32_t> words = {7, 11, 13, 17, 19};
  const DeviceBuffer<std::uint32_t> device(words);
  PinnedBuffer<std::uint32_t> back(words.size());
  ASSERT_TRUE(back.is_pinned());
  for (std::size_t i = 0; i < back.size(); ++i)
    back[i] = 0;
  back.copy_small_from_device(device.data(), 3, stream.handle());
  synchronize(stream.handle());
  EXPECT_EQ(std::vector(back.data(), back.data() + back.size()),
            (std::vector<std::uint32_t>{7, 11, 13, 0, 0}));
}

TEST(DeviceBufferGpuBasics, AllocationBeyondMemoryIsOutOfMemoryAndSaysHowMuch) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::size_t too_many = std::size_t{1} << 50;  // 1 PiB of bytes
  try {
    DeviceBuffer<std::uint8_t> buffer(too_many);
    FAIL() << "allocated 1 PiB";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory) << message;
    EXPECT_EQ(error.cuda_status(), 2) << "cudaErrorMemoryAllocation";
    EXPECT_NE(message.find("allocating 1024.00 TiB of device memory"), std::string::npos)
        << message;
    EXPECT_NE(message.find("free of"), std::string::npos) << message;
    EXPECT_NE(message.find("cudaMalloc"), std::string::npos) << message;
    EXPECT_NE(message.find("engine/src/cuda/device_memory.cpp:"), std::string::npos) << message;
  }
  // The failure is not sticky: the device still works.
  const std::vector<int> small = {1, 2, 3};
  DeviceBuffer<int> fine(small);
  EXPECT_EQ(fine.to_vector(), small);
}

}  // namespace
}  // namespace rsw
