// Host allocation failures as rsw::Error(OutOfMemory), and the process's memory use.
#include "rsw/engine/memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rsw/engine/backend.hpp"

namespace rsw {
namespace {

TEST(HostMemory, AResizePastTheAddressSpaceIsOutOfMemoryNamingWhat) {
  std::vector<double> values = {1.0, 2.0};
  try {
    resize_host(values, SIZE_MAX / 2, "the test's values");
    FAIL() << "SIZE_MAX / 2 doubles were allocated";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
    EXPECT_NE(std::string(error.what()).find("the test's values"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(values.size(), 2u) << "a failed resize keeps the vector as it was";
}

// 2^48 bytes (256 TiB) is below what a vector can index but past the 128 TiB a process may
// map on x86-64, so the allocation fails whatever the machine's overcommit policy.
TEST(HostMemory, AFailedAllocationSaysHowMuch) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's operator new aborts where it would throw std::bad_alloc";
#endif
  std::vector<std::uint8_t> bytes;
  try {
    resize_host(bytes, std::size_t{1} << 48, "a huge buffer");
    FAIL() << "256 TiB were allocated";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
    EXPECT_STREQ(error.what(), "allocating 256.00 TiB of host memory for a huge buffer failed");
  }
}

// A frame's pairs after a smaller frame's: std::vector alone would give exactly the new size,
// reallocating again at every new largest frame.
TEST(HostMemory, AVectorOutgrowingItsStorageGetsHalfAsMuchAgain) {
  std::vector<int> values;
  resize_host(values, 1000, "the test's values");
  resize_host(values, 10, "the test's values");
  for (int i = 0; i < 10; ++i)
    values[static_cast<std::size_t>(i)] = i;
  const std::size_t had = values.capacity();
  ASSERT_GE(had, 1000u);

  resize_host(values, had + 1, "the test's values");
  EXPECT_GE(values.capacity(), had + had / 2);
  EXPECT_EQ(values.size(), had + 1);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(values[static_cast<std::size_t>(i)], i);

  const std::size_t far = 10 * values.capacity();
  resize_host(values, far, "the test's values");
  EXPECT_GE(values.capacity(), far);
  EXPECT_LT(values.capacity(), far + far / 2) << "a jump past half as much again is met exactly";
}

TEST(HostMemory, BadAllocBecomesAnError) {
  try {
    with_bad_alloc_as_error("testing", []() -> int { throw std::bad_alloc(); });
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
    EXPECT_STREQ(error.what(), "testing: out of host memory");
  }
  EXPECT_EQ(with_bad_alloc_as_error("testing", [] { return 7; }), 7);
}

TEST(MemoryUsage, MeasuresThisProcess) {
  const MemoryUsage usage = memory_usage();
  EXPECT_GT(usage.host_resident_bytes, 0u);
  if (!cuda_runtime_info().available()) {
    EXPECT_EQ(usage.device_total_bytes, 0u);
    EXPECT_EQ(usage.device_used_bytes, 0u);
  }
}

}  // namespace
}  // namespace rsw
