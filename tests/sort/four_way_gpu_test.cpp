// The four-way GPU sort against std::stable_sort: awkward sizes around the tile sizes, every
// distribution, keys and pairs, host and device memory, bit ranges, descending order, the
// early exit, repeated sorts, and the launch path without CUDA graphs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <tuple>

#include "rsw/sort/sorter.hpp"
#include "rsw_test/cuda_device.hpp"
#include "sort_checks.hpp"

namespace rsw::sort {
namespace {

using test::KeyDistribution;

constexpr SortOptions kFourWay{.algorithm = Algorithm::FourWay};

class FourWaySort : public ::testing::TestWithParam<std::tuple<std::size_t, KeyDistribution>> {
 protected:
  void SetUp() override { RSW_REQUIRE_CUDA_DEVICE(); }
};

TEST_P(FourWaySort, KeysAndPairsMatchStableSort) {
  const auto [count, distribution] = GetParam();
  test::check_keys_and_pairs(Algorithm::FourWay, count, distribution);
}

// Tiles are 512 to 4096 keys depending on the calibrated tuning: sizes straddle them.
INSTANTIATE_TEST_SUITE_P(SizesAndDistributions, FourWaySort,
                         ::testing::Combine(::testing::Values(0, 1, 2, 255, 256, 257, 511, 513,
                                                              1023, 1025, 2047, 2049, 4095, 4097,
                                                              65521, 1'000'003),
                                            ::testing::ValuesIn(test::all_distributions())),
                         test::size_and_distribution_name);

class FourWayLargeSort : public FourWaySort {};

TEST_P(FourWayLargeSort, SixteenMillionKeys) {
  const auto [count, distribution] = GetParam();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  test::check_sort(sorter, test::make_keys(count, distribution, seed), true, kFourWay,
                   test::Memory::Device, seed);
}

INSTANTIATE_TEST_SUITE_P(
    TwoToThe24, FourWayLargeSort,
    ::testing::Combine(::testing::Values(std::size_t{1} << 24),
                       ::testing::Values(KeyDistribution::Uniform, KeyDistribution::Sorted,
                                         KeyDistribution::Narrow16, KeyDistribution::FewUnique)),
    [](const auto& test_info) { return test::to_string(std::get<1>(test_info.param)); });

TEST(FourWayOptions, DeviceMemoryOnAStream) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_on_a_stream(Algorithm::FourWay);
}

TEST(FourWayOptions, CountsInDeviceMemory) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_device_counts(Algorithm::FourWay);
}

TEST(FourWayOptions, BitRangesAndDescendingOrder) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_bit_ranges_and_orders(Algorithm::FourWay, test::Memory::Device);
}

TEST(FourWayStats, SortedInputExitsAfterTheFirstOrderCheck) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(1 << 20, KeyDistribution::Sorted, seed), true,
                       kFourWay, test::Memory::Device, seed);
  EXPECT_EQ(stats.algorithm, Algorithm::FourWay);
  EXPECT_TRUE(stats.early_exit);
  EXPECT_EQ(stats.passes_total, 16);
  EXPECT_EQ(stats.passes_run, 0);
  EXPECT_GT(stats.block_threads, 0);
}

TEST(FourWayStats, SixteenBitKeysExitAfterEightPasses) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(1 << 20, KeyDistribution::Narrow16, seed), false,
                       kFourWay, test::Memory::Device, seed);
  EXPECT_TRUE(stats.early_exit);
  EXPECT_EQ(stats.passes_run, 8);
  EXPECT_EQ(stats.passes_skipped, 8);
}

TEST(FourWayStats, UniformKeysRunEveryPass) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(1 << 20, KeyDistribution::Uniform, seed), true,
                       kFourWay, test::Memory::Device, seed);
  EXPECT_FALSE(stats.early_exit);
  EXPECT_EQ(stats.passes_run, 16);
  EXPECT_GT(stats.milliseconds, 0.0);
}

TEST(FourWayReuse, RepeatedSortsReuseTheirTempStorage) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  std::size_t temp_bytes = 0;
  for (int round = 0; round < 5; ++round) {
    const std::uint32_t seed = test::fresh_seed();
    const std::size_t count = round % 2 == 0 ? 200'003 : 150'001;
    test::check_sort(sorter, test::make_keys(count, KeyDistribution::Uniform, seed), true, kFourWay,
                     test::Memory::Device, seed);
    if (round == 0) temp_bytes = sorter.temp_bytes();
    EXPECT_EQ(sorter.temp_bytes(), temp_bytes) << "round " << round << " grew the temp storage";
  }
}

TEST(FourWayReuse, ManySizesThroughOneSorter) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_many_sizes(Algorithm::FourWay);
}

TEST(FourWayReuse, PlainLaunchesMatchTheGraph) {
  RSW_REQUIRE_CUDA_DEVICE();
  ::setenv("RSW_SORT_LAUNCH", "stream", 1);
  Sorter sorter;
  for (KeyDistribution distribution :
       {KeyDistribution::Uniform, KeyDistribution::Sorted, KeyDistribution::Narrow16}) {
    const std::uint32_t seed = test::fresh_seed();
    const SortStats stats = test::check_sort(sorter, test::make_keys(200'003, distribution, seed),
                                             true, kFourWay, test::Memory::Device, seed);
    if (distribution == KeyDistribution::Sorted) {
      EXPECT_EQ(stats.passes_run, 0);
    }
    if (distribution == KeyDistribution::Narrow16) {
      EXPECT_EQ(stats.passes_run, 8);
    }
  }
  ::unsetenv("RSW_SORT_LAUNCH");
}

}  // namespace
}  // namespace rsw::sort
