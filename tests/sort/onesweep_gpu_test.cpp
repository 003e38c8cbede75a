// The Onesweep GPU sort against std::stable_sort: awkward sizes around the single-tile limit
// and the tile, every distribution, keys and pairs, host and device memory, bit ranges and
// descending order; tile counts that wrap the circular look-back table many times; skipped
// passes and the fused order check; temp storage that does not grow with n and is never
// cleared between sorts; bit-identical repeats; each launch mode (stream, graph), with passes
// skipped before, between and after the passes that run; each upfront histogram kernel; the
// tile presort of nearly sorted keys; key-value passes through records or arrays; and unknown
// developer overrides, which are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>

#include "rsw/engine/error.hpp"
#include "rsw/sort/sorter.hpp"
#include "rsw_test/cuda_device.hpp"
#include "sort_checks.hpp"

namespace rsw::sort {
namespace {

using test::KeyDistribution;

constexpr SortOptions kOnesweep{.algorithm = Algorithm::Onesweep};
constexpr std::size_t kLookbackTableTiles = 1024;  // onesweep_kernels.cuh's kTableTiles
constexpr std::size_t kScratchLimit = (std::size_t{2} << 20) + (16 << 10);  // table + control

/// A GPU test run once for each value of the environment variable kVariable (the parameter),
/// set while it runs.
template <const char* kVariable>
class WithVariable : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    RSW_REQUIRE_CUDA_DEVICE();
    ::setenv(kVariable, GetParam(), 1);
  }
  void TearDown() override { ::unsetenv(kVariable); }
};

class OnesweepSort : public ::testing::TestWithParam<std::tuple<std::size_t, KeyDistribution>> {
 protected:
  void SetUp() override { RSW_REQUIRE_CUDA_DEVICE(); }
};

TEST_P(OnesweepSort, KeysAndPairsMatchStableSort) {
  const auto [count, distribution] = GetParam();
  test::check_keys_and_pairs(Algorithm::Onesweep, count, distribution);
}

// 4096 keys is the single-tile limit; tiles of the calibrated tunings are 5120 to 9216 keys.
INSTANTIATE_TEST_SUITE_P(SizesAndDistributions, OnesweepSort,
                         ::testing::Combine(::testing::Values(0, 1, 2, 255, 256, 257, 4095, 4096,
                                                              4097, 6143, 6145, 7679, 7681, 8063,
                                                              8065, 8191, 8193, 8447, 8449, 9215,
                                                              9217, 65521, 1'000'003),
                                            ::testing::ValuesIn(test::all_distributions())),
                         test::size_and_distribution_name);

class OnesweepLargeSort : public OnesweepSort {};

TEST_P(OnesweepLargeSort, SixteenMillionKeys) {
  const auto [count, distribution] = GetParam();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  test::check_sort(sorter, test::make_keys(count, distribution, seed), true, kOnesweep,
                   test::Memory::Device, seed);
}

INSTANTIATE_TEST_SUITE_P(
    TwoToThe24, OnesweepLargeSort,
    ::testing::Combine(::testing::Values(std::size_t{1} << 24),
                       ::testing::Values(KeyDistribution::Uniform, KeyDistribution::Sorted,
                                         KeyDistribution::Narrow16, KeyDistribution::FewUnique)),
    [](const auto& test_info) { return test::to_string(std::get<1>(test_info.param)); });

// The tile of the tuning this device calibrated, read off a sort's stats.
std::size_t calibrated_tile(Sorter& sorter, bool with_values) {
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(1 << 20, KeyDistribution::Uniform, seed),
                       with_values, kOnesweep, test::Memory::Device, seed);
  return static_cast<std::size_t>(stats.block_threads) * stats.items_per_thread;
}

TEST(OnesweepTiles, SizesAroundTileMultiplesAndTheTableSize) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::size_t tile = calibrated_tile(sorter, true);
  for (std::size_t tiles : {std::size_t{1}, std::size_t{2}, std::size_t{3}, kLookbackTableTiles - 1,
                            kLookbackTableTiles, kLookbackTableTiles + 1}) {
    for (std::size_t count : {tiles * tile - 1, tiles * tile, tiles * tile + 1}) {
      const std::uint32_t seed = test::fresh_seed();
      SCOPED_TRACE("tile " + std::to_string(tile) + ", n " + std::to_string(count));
      test::check_sort(sorter, test::make_keys(count, KeyDistribution::GaussianFloats, seed), true,
                       kOnesweep, test::Memory::Device, seed);
    }
  }
}

// 2^26 keys are 7282 to 13108 tiles per pass (tiles of 9216 to 5120 keys; the last one
// partial): every pass wraps the 1024-slot table seven to twelve times, and four passes in a row
// reuse its slots without clearing them. Keys-only and key-value sorts calibrate to different
// tiles, so both wrap it: the key-value result is checked in O(n), and the keys-only result
// must equal its keys.
TEST(OnesweepTiles, TilesWrapTheLookbackTableManyTimes) {
  RSW_REQUIRE_CUDA_DEVICE();
  constexpr std::size_t kCount = std::size_t{1} << 26;
  Sorter sorter;
  const auto tiles_of = [](const SortStats& stats) {
    return kCount / (static_cast<std::size_t>(stats.block_threads) * stats.items_per_thread);
  };
  for (KeyDistribution distribution : {KeyDistribution::Uniform, KeyDistribution::FewUnique}) {
    const std::uint32_t seed = test::fresh_seed();
    SCOPED_TRACE(test::to_string(distribution) + ", seed " + std::to_string(seed));
    const std::vector<std::uint32_t> original = test::make_keys(kCount, distribution, seed);

    DeviceBuffer<std::uint32_t> keys_only(original);
    sorter.sort_keys(keys_only.span(), kOnesweep);
    const SortStats keys_stats = sorter.last_stats();
    EXPECT_GE(tiles_of(keys_stats), 7 * kLookbackTableTiles);
    EXPECT_LE(keys_stats.scratch_bytes, kScratchLimit);

    DeviceBuffer<std::uint32_t> keys(original);
    DeviceBuffer<std::uint32_t> values(test::make_indices(kCount));
    sorter.sort_pairs(keys.span(), values.span(), kOnesweep);
    const SortStats stats = sorter.last_stats();
    EXPECT_GE(tiles_of(stats), 7 * kLookbackTableTiles);
    EXPECT_LE(stats.scratch_bytes, kScratchLimit);

    const std::vector<std::uint32_t> sorted_keys = keys.to_vector();
    EXPECT_TRUE(test::is_stable_sort_of(original, sorted_keys, values.to_vector()));
    EXPECT_TRUE(keys_only.to_vector() == sorted_keys) << "the keys-only sort differs";
  }
}

// The developer overrides reject a value they do not know with an InvalidArgument error that
// names it; the rejected sort moves nothing, and the sorter sorts as before once the override
// is gone (a sorter reads them when it makes its GPU sort, so each variable gets its own).
TEST(OnesweepOptions, UnknownSettingsAreErrors) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = test::fresh_seed();
  const std::vector<std::uint32_t> original =
      test::make_keys(200'003, KeyDistribution::Uniform, seed);
  const std::vector<std::uint32_t> indices = test::make_indices(original.size());
  for (const char* variable : {"RSW_ONESWEEP_LAYOUT", "RSW_ONESWEEP_TUNING",
                               "RSW_ONESWEEP_HISTOGRAM", "RSW_SORT_LAUNCH"}) {
    Sorter sorter;
    DeviceBuffer<std::uint32_t> keys(original);
    DeviceBuffer<std::uint32_t> values(indices);
    ::setenv(variable, "sideways", 1);
    try {
      sorter.sort_pairs(keys.span(), values.span(), kOnesweep);
      ADD_FAILURE() << variable << "=sideways was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument) << error.what();
      EXPECT_NE(std::string(error.what()).find(variable), std::string::npos) << error.what();
    }
    ::unsetenv(variable);
    EXPECT_TRUE(keys.to_vector() == original) << "a rejected sort moved keys, " << variable;
    test::check_sort(sorter, original, true, kOnesweep, test::Memory::Device, seed);
  }
}

TEST(OnesweepOptions, DeviceMemoryOnAStream) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_on_a_stream(Algorithm::Onesweep);
}

TEST(OnesweepOptions, BitRangesAndDescendingOrder) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_bit_ranges_and_orders(Algorithm::Onesweep, test::Memory::Device);
}

TEST(OnesweepOptions, CountsInDeviceMemory) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_device_counts(Algorithm::Onesweep);
  test::check_device_counts(Algorithm::Onesweep, true);  // the tile presort, launched for the room
}

// The CPU sort of device spans reads a device count back first.
TEST(OnesweepOptions, CountsInDeviceMemoryForTheCpuSort) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_device_counts(Algorithm::Cpu);
}

// Keys one element past a 16-byte boundary: the histogram read cannot use vector loads.
TEST(OnesweepOptions, UnalignedDeviceKeys) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (std::size_t count : {std::size_t{5000}, std::size_t{300'007}}) {
    const std::uint32_t seed = test::fresh_seed();
    std::vector<std::uint32_t> original =
        test::make_keys(count + 1, KeyDistribution::Uniform, seed);
    std::vector<std::uint32_t> indices = test::make_indices(count + 1);
    DeviceBuffer<std::uint32_t> keys(original);
    DeviceBuffer<std::uint32_t> values(indices);
    sorter.sort_pairs(DeviceSpan<std::uint32_t>{keys.data() + 1, count},
                      DeviceSpan<std::uint32_t>{values.data() + 1, count}, kOnesweep);
    std::vector<std::uint32_t> sorted_keys = keys.to_vector();
    std::vector<std::uint32_t> sorted_values = values.to_vector();
    EXPECT_EQ(sorted_keys[0], original[0]) << "the element before the span was touched";
    original.erase(original.begin());
    sorted_keys.erase(sorted_keys.begin());
    sorted_values.erase(sorted_values.begin());
    for (std::uint32_t& value : sorted_values)
      --value;  // indices of the span
    EXPECT_TRUE(test::is_stable_sort_of(original, sorted_keys, sorted_values))
        << "n " << count << ", seed " << seed;
  }
}

TEST(OnesweepStats, SortedInputCostsOneReadAndMovesNothing) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (std::size_t count : {std::size_t{3000}, std::size_t{1} << 20}) {  // one block, and many
    const std::uint32_t seed = test::fresh_seed();
    const SortStats stats =
        test::check_sort(sorter, test::make_keys(count, KeyDistribution::Sorted, seed), true,
                         kOnesweep, test::Memory::Device, seed);
    EXPECT_EQ(stats.algorithm, Algorithm::Onesweep);
    EXPECT_TRUE(stats.early_exit);
    EXPECT_EQ(stats.passes_total, 4);
    EXPECT_EQ(stats.passes_run, 0);
  }
}

// Sorted keys with one pair out of order near the end or near the start: the blocks of the
// histogram read that found no disorder of their own must count what they skipped.
TEST(OnesweepStats, DisorderAtOneEndOfASortedInput) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (std::size_t count : {std::size_t{1} << 20, std::size_t{1} << 24}) {
    for (bool at_end : {true, false}) {
      const std::uint32_t seed = test::fresh_seed();
      std::vector<std::uint32_t> keys = test::make_keys(count, KeyDistribution::Sorted, seed);
      const std::size_t swap_at = at_end ? count - 2 : 1;
      std::swap(keys[swap_at], keys[swap_at + 1]);
      SCOPED_TRACE("n " + std::to_string(count) + (at_end ? ", at the end" : ", at the start"));
      const SortStats stats =
          test::check_sort(sorter, keys, true, kOnesweep, test::Memory::Device, seed);
      EXPECT_FALSE(stats.early_exit);
    }
  }
}

// One pair out of order in distinct sorted keys, at each kind of place the histogram read's
// order check compares across: inside a thread's four keys, between lanes, between a warp's
// loads, between warps, between chunks and at the end; with the keys 16-byte aligned (vector
// loads) and one key past it (scalar loads). The inversion must be found and sorted away.
TEST(OnesweepStats, OneInversionIsFoundWhereverItIs) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  constexpr std::size_t kCount = 100'003;
  const std::uint32_t seed = test::fresh_seed();
  std::vector<std::uint32_t> sorted(kCount + 1);
  for (std::size_t i = 0; i < sorted.size(); ++i)
    sorted[i] = static_cast<std::uint32_t>(3 * i + seed % 3);
  for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
    for (std::size_t at :
         {std::size_t{1}, std::size_t{3}, std::size_t{127}, std::size_t{511}, std::size_t{4095},
          std::size_t{5 * 4096 + 3 * 512 + 128 + 4 * 31 + 3}, kCount - 513, kCount - 2}) {
      SCOPED_TRACE("keys " + std::to_string(at) + " and " + std::to_string(at + 1) +
                   " swapped, offset " + std::to_string(offset));
      std::vector<std::uint32_t> original = sorted;
      std::swap(original[offset + at], original[offset + at + 1]);
      DeviceBuffer<std::uint32_t> keys(original);
      sorter.sort_keys(DeviceSpan<std::uint32_t>{keys.data() + offset, kCount}, kOnesweep);
      const SortStats stats = sorter.last_stats();
      EXPECT_FALSE(stats.early_exit);
      std::vector<std::uint32_t> got = keys.to_vector();
      EXPECT_TRUE(std::equal(got.begin() + static_cast<std::ptrdiff_t>(offset),
                             got.begin() + static_cast<std::ptrdiff_t>(offset + kCount),
                             sorted.begin() + static_cast<std::ptrdiff_t>(offset)));
    }
  }
}

// Key-value passes move key and value arrays below 20 Mi keys, and 8-byte records {key, value}
// from there; RSW_ONESWEEP_LAYOUT forces either. Records live in the alternate buffer, and in
// the caller's buffers where they can hold them (both 8-byte aligned, an even count), else those
// hold arrays. Each layout: every number of passes (each with its last buffer), both parities
// of the count, aligned and unaligned; and sizes around tiles.
constexpr char kLayoutVariable[] = "RSW_ONESWEEP_LAYOUT";
class OnesweepPairLayout : public WithVariable<kLayoutVariable> {};

TEST_P(OnesweepPairLayout, EveryPassCountParityAndAlignment) {
  Sorter sorter;
  for (int bits : {8, 16, 24, 32}) {
    for (std::size_t count : {std::size_t{200'000}, std::size_t{200'003}}) {
      for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
        const std::uint32_t seed = test::fresh_seed();
        std::vector<std::uint32_t> original =
            test::make_keys(count + offset, KeyDistribution::Uniform, seed);
        for (std::uint32_t& key : original)
          key &= bits == 32 ? ~0u : (1u << bits) - 1u;
        DeviceBuffer<std::uint32_t> keys(original);
        DeviceBuffer<std::uint32_t> values(test::make_indices(count + offset));
        sorter.sort_pairs(DeviceSpan<std::uint32_t>{keys.data() + offset, count},
                          DeviceSpan<std::uint32_t>{values.data() + offset, count}, kOnesweep);
        const std::string where = "bits " + std::to_string(bits) + ", n " + std::to_string(count) +
                                  ", offset " + std::to_string(offset) + ", seed " +
                                  std::to_string(seed);
        EXPECT_EQ(sorter.last_stats().passes_run, bits / 8) << where;
        std::vector<std::uint32_t> sorted_keys = keys.to_vector();
        std::vector<std::uint32_t> sorted_values = values.to_vector();
        if (offset != 0) {
          EXPECT_EQ(sorted_keys[0], original[0])
              << "the key before the span was touched, " << where;
          EXPECT_EQ(sorted_values[0], 0u) << "the value before the span was touched, " << where;
        }
        original.erase(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(offset));
        sorted_keys.erase(sorted_keys.begin(),
                          sorted_keys.begin() + static_cast<std::ptrdiff_t>(offset));
        sorted_values.erase(sorted_values.begin(),
                            sorted_values.begin() + static_cast<std::ptrdiff_t>(offset));
        for (std::uint32_t& value : sorted_values)
          value -= static_cast<std::uint32_t>(offset);  // indices of the span
        EXPECT_TRUE(test::is_stable_sort_of(original, sorted_keys, sorted_values)) << where;
      }
    }
  }
}

TEST_P(OnesweepPairLayout, SizesAroundTiles) {
  for (std::size_t count : {std::size_t{4097}, std::size_t{7681}, std::size_t{9217},
                            std::size_t{65'521}, std::size_t{1'000'003}}) {
    for (KeyDistribution distribution : {KeyDistribution::Uniform, KeyDistribution::FewUnique}) {
      test::check_keys_and_pairs(Algorithm::Onesweep, count, distribution);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, OnesweepPairLayout, ::testing::Values("arrays", "records"),
                         [](const auto& test_info) { return std::string(test_info.param); });

TEST(OnesweepStats, PassesWithOneDigitAreSkipped) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (std::size_t count : {std::size_t{3000}, std::size_t{1} << 20}) {
    const std::uint32_t seed = test::fresh_seed();
    const SortStats stats =
        test::check_sort(sorter, test::make_keys(count, KeyDistribution::Narrow16, seed), true,
                         kOnesweep, test::Memory::Device, seed);
    EXPECT_FALSE(stats.early_exit);
    EXPECT_EQ(stats.passes_run, 2) << "n " << count;
    EXPECT_EQ(stats.passes_skipped, 2);
  }
}

// Keys below 2^24: three passes run, so the result comes back from the alternate buffer.
TEST(OnesweepStats, AnOddNumberOfPassesEndsInTheCallersBuffer) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (bool with_values : {false, true}) {
    const std::uint32_t seed = test::fresh_seed();
    std::vector<std::uint32_t> keys = test::make_keys(500'009, KeyDistribution::Uniform, seed);
    for (std::uint32_t& key : keys)
      key &= 0xFFFFFFu;
    const SortStats stats =
        test::check_sort(sorter, keys, with_values, kOnesweep, test::Memory::Device, seed);
    EXPECT_EQ(stats.passes_run, 3);
  }
}

TEST(OnesweepStats, UniformKeysRunEveryPass) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(1 << 20, KeyDistribution::Uniform, seed), true,
                       kOnesweep, test::Memory::Device, seed);
  EXPECT_FALSE(stats.early_exit);
  EXPECT_EQ(stats.passes_run, 4);
  EXPECT_GT(stats.milliseconds, 0.0);
  EXPECT_GT(stats.block_threads, 0);
}

TEST(OnesweepStats, AutoPicksOnesweepOnTheGpu) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats stats =
      test::check_sort(sorter, test::make_keys(100'003, KeyDistribution::Uniform, seed), false, {},
                       test::Memory::Device, seed);
  EXPECT_EQ(stats.algorithm, Algorithm::Onesweep);
}

// Sizes from one tile to 2^24 through one sorter: the table is never cleared, and scratch
// (everything besides the alternate buffers) stays the same.
TEST(OnesweepReuse, ScratchDoesNotGrowAndIsNeverCleared) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  std::size_t scratch = 0;
  for (std::size_t count : {std::size_t{10'007}, std::size_t{1} << 24, std::size_t{200'003},
                            std::size_t{5'000'011}, std::size_t{10'007}}) {
    const std::uint32_t seed = test::fresh_seed();
    const SortStats stats =
        test::check_sort(sorter, test::make_keys(count, KeyDistribution::Uniform, seed), true,
                         kOnesweep, test::Memory::Device, seed);
    if (scratch == 0) scratch = stats.scratch_bytes;
    EXPECT_EQ(stats.scratch_bytes, scratch) << "n " << count;
    EXPECT_LE(stats.scratch_bytes, kScratchLimit);
  }
}

TEST(OnesweepReuse, ManySizesThroughOneSorter) {
  RSW_REQUIRE_CUDA_DEVICE();
  test::check_many_sizes(Algorithm::Onesweep);
}

// The same input sorted 100 times gives the same bits; FewUnique keys make the order of
// equal keys (stability) part of the result.
TEST(OnesweepReuse, HundredRunsAreBitIdentical) {
  RSW_REQUIRE_CUDA_DEVICE();
  constexpr std::size_t kCount = 1'000'003;
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const std::vector<std::uint32_t> original =
      test::make_keys(kCount, KeyDistribution::FewUnique, seed);
  const DeviceBuffer<std::uint32_t> pristine(original);
  const std::vector<std::uint32_t> indices = test::make_indices(kCount);
  DeviceBuffer<std::uint32_t> keys(kCount);
  DeviceBuffer<std::uint32_t> values(kCount);
  std::vector<std::uint32_t> first_keys;
  std::vector<std::uint32_t> first_values;
  for (int run = 0; run < 100; ++run) {
    copy(pristine.span(), keys.span());
    values.upload(indices);
    sorter.sort_pairs(keys.span(), values.span(), kOnesweep);
    std::vector<std::uint32_t> sorted_keys = keys.to_vector();
    std::vector<std::uint32_t> sorted_values = values.to_vector();
    if (run == 0) {
      ASSERT_TRUE(test::is_stable_sort_of(original, sorted_keys, sorted_values)) << "seed " << seed;
      first_keys = std::move(sorted_keys);
      first_values = std::move(sorted_values);
      continue;
    }
    ASSERT_EQ(sorted_keys, first_keys) << "run " << run << ", seed " << seed;
    ASSERT_EQ(sorted_values, first_values) << "run " << run << ", seed " << seed;
  }
}

// Sorted keys (with many equal ones when `few_unique`), then shuffled inside consecutive
// windows of `window` keys: no key ends more than window - 1 places from where it belongs.
std::vector<std::uint32_t> shuffled_in_windows(std::size_t count, std::size_t window,
                                               bool few_unique, std::uint32_t seed) {
  std::vector<std::uint32_t> keys = test::make_keys(count, KeyDistribution::Uniform, seed);
  if (few_unique) {
    for (std::uint32_t& key : keys)
      key >>= 20;  // 4096 distinct keys: long runs of equal keys cross the tiles
  }
  std::ranges::sort(keys);
  std::mt19937 generator(seed);
  for (std::size_t first = 0; first < count; first += window)
    std::shuffle(keys.begin() + first, keys.begin() + std::min(count, first + window), generator);
  return keys;
}

constexpr SortOptions kNearlySorted{.algorithm = Algorithm::Onesweep, .nearly_sorted = true};

// The hint never changes the result: every distribution, keys and pairs, sizes around the
// presort's tiles of 4096 (and their half-tile shift) and beyond.
TEST(OnesweepPresort, EveryDistributionSortsAsWithoutTheHint) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (std::size_t count : {4095, 4097, 6143, 6145, 8191, 8193, 10'241, 65'521, 1'000'003}) {
    for (KeyDistribution distribution : test::all_distributions()) {
      for (bool with_values : {false, true}) {
        const std::uint32_t seed = test::fresh_seed();
        SCOPED_TRACE(test::to_string(distribution));
        const SortStats stats =
            test::check_sort(sorter, test::make_keys(count, distribution, seed), with_values,
                             kNearlySorted, test::Memory::Device, seed);
        EXPECT_EQ(stats.presorted, count > 4096) << "n " << count;
      }
    }
  }
}

// Keys less than half a tile (2048 places) from their place are sorted by the tile sorts and
// the merges where tiles meet: the order check finds them sorted and no pass runs. Equal keys
// keep their order (the check compares values, which are the original indices).
TEST(OnesweepPresort, KeysNearTheirPlaceNeedNoPass) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  for (std::size_t count : {std::size_t{4099}, std::size_t{100'003}, std::size_t{1'000'003}}) {
    for (std::size_t window : {std::size_t{2}, std::size_t{300}, std::size_t{2048}}) {
      for (bool few_unique : {false, true}) {
        const std::uint32_t seed = test::fresh_seed();
        SCOPED_TRACE("n " + std::to_string(count) + ", window " + std::to_string(window) +
                     (few_unique ? ", few unique keys" : ""));
        const SortStats stats =
            test::check_sort(sorter, shuffled_in_windows(count, window, few_unique, seed), true,
                             kNearlySorted, test::Memory::Device, seed);
        EXPECT_TRUE(stats.presorted);
        EXPECT_TRUE(stats.early_exit);
        EXPECT_EQ(stats.passes_run, 0);
      }
    }
  }
}

// Keys further off than the tiles reach, and keys in descending order or a bit range, still
// sort: the passes run after the presort.
TEST(OnesweepPresort, KeysFarFromTheirPlaceRunThePasses) {
  RSW_REQUIRE_CUDA_DEVICE();
  Sorter sorter;
  const std::uint32_t seed = test::fresh_seed();
  const SortStats far =
      test::check_sort(sorter, shuffled_in_windows(1'000'003, 50'000, false, seed), true,
                       kNearlySorted, test::Memory::Device, seed);
  EXPECT_TRUE(far.presorted);
  EXPECT_GT(far.passes_run, 0);
  SortOptions descending = kNearlySorted;
  descending.order = Order::Descending;
  descending.begin_bit = 4;
  descending.end_bit = 28;
  test::check_sort(sorter, shuffled_in_windows(300'007, 1000, true, seed), true, descending,
                   test::Memory::Device, seed);
}

constexpr char kLaunchVariable[] = "RSW_SORT_LAUNCH";
class OnesweepLaunch : public WithVariable<kLaunchVariable> {};

TEST_P(OnesweepLaunch, EveryLaunchModeSortsAndSkips) {
  Sorter sorter;
  for (KeyDistribution distribution :
       {KeyDistribution::Uniform, KeyDistribution::Sorted, KeyDistribution::Narrow16}) {
    const std::uint32_t seed = test::fresh_seed();
    const SortStats stats = test::check_sort(sorter, test::make_keys(200'003, distribution, seed),
                                             true, kOnesweep, test::Memory::Device, seed);
    if (distribution == KeyDistribution::Sorted) {
      EXPECT_EQ(stats.passes_run, 0);
    }
    if (distribution == KeyDistribution::Narrow16) {
      EXPECT_EQ(stats.passes_run, 2);
    }
  }
  // Three passes, so the sort ends with a copy back once the last pass is done: a 24-bit sort;
  // keys below 2^24 (all 32 bits: the last pass is skipped); keys whose second digit is 0 (the
  // passes that run are 0, 2 and 3: the second waits for the first across a skipped one).
  const std::uint32_t seed = test::fresh_seed();
  const std::vector<std::uint32_t> keys = test::make_keys(200'003, KeyDistribution::Uniform, seed);
  SortOptions low_24_bits = kOnesweep;
  low_24_bits.end_bit = 24;
  EXPECT_EQ(
      test::check_sort(sorter, keys, true, low_24_bits, test::Memory::Device, seed).passes_run, 3);
  for (const std::uint32_t mask : {0x00FF'FFFFu, 0xFFFF'00FFu}) {
    std::vector<std::uint32_t> masked = keys;
    for (std::uint32_t& key : masked)
      key &= mask;
    EXPECT_EQ(
        test::check_sort(sorter, masked, true, kOnesweep, test::Memory::Device, seed).passes_run,
        3);
  }
  // Sorted but for its last two keys: the histogram read's blocks finish before the disorder
  // is known, so the chunks they only checked are counted afterwards (recount_digits).
  std::vector<std::uint32_t> almost = test::make_keys(1 << 20, KeyDistribution::Sorted, seed);
  std::swap(almost[almost.size() - 2], almost[almost.size() - 1]);
  EXPECT_FALSE(
      test::check_sort(sorter, almost, true, kOnesweep, test::Memory::Device, seed).early_exit);
}

INSTANTIATE_TEST_SUITE_P(Modes, OnesweepLaunch, ::testing::Values("stream", "graph"),
                         [](const auto& test_info) { return std::string(test_info.param); });

// Each upfront histogram kernel (a counter a digit, chosen below 2^21 keys; a column a lane,
// from 2^21 on), forced at sizes around their chunks (4096 and 16384 keys) and through every
// path of the histogram read: random keys, sorted keys (read, never counted), keys sorted but
// for one end (chunks counted afterwards), 16-bit keys (two passes skipped), a 24-bit sort,
// and keys one past 16-byte alignment (scalar loads).
constexpr char kHistogramVariable[] = "RSW_ONESWEEP_HISTOGRAM";
class OnesweepHistogram : public WithVariable<kHistogramVariable> {};

TEST_P(OnesweepHistogram, EveryPathOfTheReadSortsAsWithoutIt) {
  Sorter sorter;
  for (std::size_t count :
       {std::size_t{16'383}, std::size_t{16'385}, std::size_t{65'521}, std::size_t{1'000'003}}) {
    for (KeyDistribution distribution :
         {KeyDistribution::Uniform, KeyDistribution::Sorted, KeyDistribution::Narrow16}) {
      const std::uint32_t seed = test::fresh_seed();
      SCOPED_TRACE("n " + std::to_string(count) + ", " + test::to_string(distribution));
      const SortStats stats = test::check_sort(sorter, test::make_keys(count, distribution, seed),
                                               true, kOnesweep, test::Memory::Device, seed);
      if (distribution == KeyDistribution::Sorted) {
        EXPECT_TRUE(stats.early_exit);
      }
      if (distribution == KeyDistribution::Narrow16) {
        EXPECT_EQ(stats.passes_run, 2);
      }
    }
  }
  const std::uint32_t seed = test::fresh_seed();
  for (bool at_end : {true, false}) {
    std::vector<std::uint32_t> almost = test::make_keys(1 << 20, KeyDistribution::Sorted, seed);
    const std::size_t swap_at = at_end ? almost.size() - 2 : 0;
    std::swap(almost[swap_at], almost[swap_at + 1]);
    EXPECT_FALSE(
        test::check_sort(sorter, almost, true, kOnesweep, test::Memory::Device, seed).early_exit);
  }
  SortOptions low_24_bits = kOnesweep;
  low_24_bits.end_bit = 24;
  EXPECT_EQ(test::check_sort(sorter, test::make_keys(300'007, KeyDistribution::Uniform, seed),
                             false, low_24_bits, test::Memory::Device, seed)
                .passes_run,
            3);
  const std::vector<std::uint32_t> original =
      test::make_keys(300'008, KeyDistribution::Uniform, seed);
  DeviceBuffer<std::uint32_t> keys(original);
  sorter.sort_keys(DeviceSpan<std::uint32_t>{keys.data() + 1, original.size() - 1}, kOnesweep);
  std::vector<std::uint32_t> expected(original.begin() + 1, original.end());
  std::sort(expected.begin(), expected.end());
  const std::vector<std::uint32_t> got = keys.to_vector();
  EXPECT_EQ(got[0], original[0]) << "the key before the span was touched";
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin() + 1)) << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(Kernels, OnesweepHistogram, ::testing::Values("digit", "lane"),
                         [](const auto& test_info) { return std::string(test_info.param); });

}  // namespace
}  // namespace rsw::sort
