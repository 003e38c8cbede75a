// The CPU radix sort against std::stable_sort: sizes, distributions, keys and pairs, bit
// ranges, descending order, thread counts, the skipping statistics and bad arguments.
#include <gtest/gtest.h>

#include <tuple>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/sort/sorter.hpp"
#include "sort_checks.hpp"

namespace rsw::sort {
namespace {

using test::KeyDistribution;

class CpuSort : public ::testing::TestWithParam<std::tuple<std::size_t, KeyDistribution>> {};

TEST_P(CpuSort, KeysAndPairsMatchStableSort) {
  const auto [count, distribution] = GetParam();
  Sorter sorter;
  for (bool with_values : {false, true}) {
    const std::uint32_t seed = test::fresh_seed();
    test::check_sort(sorter, test::make_keys(count, distribution, seed), with_values,
                     {.algorithm = Algorithm::Cpu}, test::Memory::Host, seed);
  }
}

INSTANTIATE_TEST_SUITE_P(SizesAndDistributions, CpuSort,
                         ::testing::Combine(::testing::Values(0, 1, 2, 255, 256, 257, 4099, 65521,
                                                              1'000'003),
                                            ::testing::ValuesIn(test::all_distributions())),
                         [](const auto& test_info) {
                           return test::to_string(std::get<1>(test_info.param)) + "_" +
                                  std::to_string(std::get<0>(test_info.param));
                         });

TEST(CpuSortOptions, BitRangesAndDescendingOrder) {
  test::check_bit_ranges_and_orders(Algorithm::Cpu, test::Memory::Host);
}

TEST(CpuSortOptions, EveryThreadCountGivesTheSameStableResult) {
  for (int threads : {1, 2, 3, 7}) {
    Sorter sorter({.cpu_threads = threads});
    const std::uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("threads " + std::to_string(threads));
    test::check_sort(sorter, test::make_keys(2'000'003, KeyDistribution::FewUnique, seed), true,
                     {.algorithm = Algorithm::Cpu}, test::Memory::Host, seed);
  }
}

TEST(CpuSortStats, SortedInputExitsAfterTheOrderCheck) {
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(100'000, KeyDistribution::Sorted, seed), false,
                       {.algorithm = Algorithm::Cpu}, test::Memory::Host, seed);
  EXPECT_EQ(stats.algorithm, Algorithm::Cpu);
  EXPECT_TRUE(stats.early_exit);
  EXPECT_EQ(stats.passes_total, 4);
  EXPECT_EQ(stats.passes_run, 0);
}

TEST(CpuSortStats, PassesWithOneDigitForAllKeysAreSkipped) {
  Sorter sorter;
  std::uint32_t seed = test::fresh_seed();
  SortStats stats =
      test::check_sort(sorter, test::make_keys(100'000, KeyDistribution::Narrow8, seed), false,
                       {.algorithm = Algorithm::Cpu}, test::Memory::Host, seed);
  EXPECT_FALSE(stats.early_exit);
  EXPECT_EQ(stats.passes_run, 1);
  EXPECT_EQ(stats.passes_skipped, 3);

  seed = test::fresh_seed();
  stats = test::check_sort(sorter, test::make_keys(100'000, KeyDistribution::Narrow16, seed), false,
                           {.algorithm = Algorithm::Cpu}, test::Memory::Host, seed);
  EXPECT_EQ(stats.passes_run, 2);

  seed = test::fresh_seed();
  stats = test::check_sort(sorter, test::make_keys(100'000, KeyDistribution::Uniform, seed), true,
                           {.algorithm = Algorithm::Cpu}, test::Memory::Host, seed);
  EXPECT_EQ(stats.passes_run, 4);
  EXPECT_GT(stats.temp_bytes, 0u);
}

TEST(CpuSortStats, ABitRangeOfElevenBitsTakesTwoPasses) {
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats = test::check_sort(
      sorter, test::make_keys(50'000, KeyDistribution::Uniform, seed), false,
      {.algorithm = Algorithm::Cpu, .begin_bit = 3, .end_bit = 14}, test::Memory::Host, seed);
  EXPECT_EQ(stats.passes_total, 2);
}

TEST(SortArguments, BadBitRangesAndSizesAreRejected) {
  Sorter sorter;
  std::vector<std::uint32_t> keys = {3, 1, 2};
  std::vector<std::uint32_t> values = {0, 1};
  EXPECT_THROW(sorter.sort_keys(keys, {.begin_bit = -1}), Error);
  EXPECT_THROW(sorter.sort_keys(keys, {.end_bit = 33}), Error);
  EXPECT_THROW(sorter.sort_keys(keys, {.begin_bit = 9, .end_bit = 8}), Error);
  try {
    sorter.sort_pairs(keys, values, {.algorithm = Algorithm::Cpu});
    FAIL() << "3 keys with 2 values were accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
  }
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{3, 1, 2})) << "a rejected call sorts nothing";
}

TEST(SortArguments, HostKeysTakeNoDeviceCount) {
  Sorter sorter;
  std::vector<std::uint32_t> keys = {3, 1, 2};
  const std::uint64_t count = 2;
  try {
    sorter.sort_keys(keys, {.algorithm = Algorithm::Cpu, .device_count = &count});
    FAIL() << "a device count was taken for host keys";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument) << error.what();
  }
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{3, 1, 2})) << "a rejected call sorts nothing";
}

TEST(SortArguments, AlgorithmsHaveNames) {
  for (Algorithm algorithm :
       {Algorithm::Auto, Algorithm::Cpu, Algorithm::FourWay, Algorithm::Onesweep}) {
    EXPECT_EQ(parse_algorithm(to_string(algorithm)), algorithm);
  }
  EXPECT_THROW(parse_algorithm("bogosort"), Error);
}

TEST(SortArguments, TheGpuSortWithoutADeviceSaysWhy) {
  if (cuda_runtime_info().available()) GTEST_SKIP() << "a CUDA device is present";
  Sorter sorter;
  std::vector<std::uint32_t> keys = {3, 1, 2};
  for (Algorithm algorithm : {Algorithm::FourWay, Algorithm::Onesweep}) {
    try {
      sorter.sort_keys(keys, {.algorithm = algorithm});
      FAIL() << to_string(algorithm) << " ran without a device";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::DeviceUnavailable) << error.what();
      // It names the sort and what runs instead, not a backend the caller never asked for.
      const std::string message = error.what();
      EXPECT_EQ(message.find("the " + std::string(to_string(algorithm)) + " sort needs a GPU"), 0u)
          << message;
      EXPECT_NE(message.find("the sorts that run without one: cpu, auto"), std::string::npos)
          << message;
    }
  }
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{3, 1, 2})) << "a refused sort moves nothing";
  sorter.sort_keys(keys);  // Auto: the CPU
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(sorter.last_stats().algorithm, Algorithm::Cpu);
}

}  // namespace
}  // namespace rsw::sort
