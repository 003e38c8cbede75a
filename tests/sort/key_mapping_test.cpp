#include "rsw/sort/key_mapping.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "rsw/engine/error.hpp"

namespace rsw::sort {
namespace {

TEST(KeyMapping, FloatKeysFollowTheFloatOrder) {
  const std::vector<float> ascending = {-INFINITY,
                                        -std::numeric_limits<float>::max(),
                                        -1e10f,
                                        -1.0f,
                                        -std::numeric_limits<float>::min(),
                                        -std::numeric_limits<float>::denorm_min(),
                                        0.0f,
                                        std::numeric_limits<float>::denorm_min(),
                                        std::numeric_limits<float>::min(),
                                        1.0f,
                                        1e10f,
                                        std::numeric_limits<float>::max(),
                                        INFINITY};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(ordered_key(ascending[i]), ordered_key(ascending[i + 1]))
        << ascending[i] << " vs " << ascending[i + 1];
  }
}

TEST(KeyMapping, NegativeAndPositiveZeroAreOneKey) {
  EXPECT_EQ(ordered_key(-0.0f), ordered_key(0.0f));
  EXPECT_EQ(ordered_key(0.0f), 0x80000000u);
  EXPECT_FALSE(std::signbit(float_from_key(ordered_key(-0.0f))));
}

TEST(KeyMapping, FloatsRoundTrip) {
  std::mt19937 generator(std::random_device{}());
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int trial = 0; trial < 100000; ++trial) {
    const float value = std::bit_cast<float>(bits(generator));
    if (std::isnan(value) || value == 0.0f) continue;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(float_from_key(ordered_key(value))),
              std::bit_cast<std::uint32_t>(value));
  }
}

TEST(KeyMapping, ScalarNanGoesPastInfinity) {
  EXPECT_EQ(ordered_key(std::numeric_limits<float>::quiet_NaN()), 0xFFFFFFFFu);
  EXPECT_EQ(ordered_key(-std::numeric_limits<float>::quiet_NaN()), 0xFFFFFFFFu);
  EXPECT_GT(ordered_key(std::numeric_limits<float>::quiet_NaN()), ordered_key(INFINITY));
}

TEST(KeyMapping, IntKeysFollowTheIntOrderAndRoundTrip) {
  const std::vector<std::int32_t> ascending = {
      std::numeric_limits<std::int32_t>::min(), -1000, -1, 0, 1, 1000,
      std::numeric_limits<std::int32_t>::max()};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(ordered_key(ascending[i]), ordered_key(ascending[i + 1]));
  }
  EXPECT_EQ(ordered_key(std::numeric_limits<std::int32_t>::min()), 0u);
  for (std::int32_t value : ascending)
    EXPECT_EQ(int_from_key(ordered_key(value)), value);
}

TEST(KeyMapping, BulkFloatMappingSortsLikeTheFloats) {
  std::mt19937 generator(std::random_device{}());
  std::normal_distribution<float> normal(0.0f, 50.0f);
  std::vector<float> values(10007);
  for (float& value : values)
    value = normal(generator);
  std::vector<std::uint32_t> keys(values.size());
  map_float_keys(values, keys);
  std::ranges::sort(keys);
  std::vector<float> sorted(values.size());
  unmap_float_keys(keys, sorted);
  std::ranges::sort(values);
  EXPECT_EQ(sorted, values);
}

TEST(KeyMapping, BulkIntMappingRoundTrips) {
  const std::vector<std::int32_t> values = {5, -3, 0, std::numeric_limits<std::int32_t>::min()};
  std::vector<std::uint32_t> keys(values.size());
  map_int_keys(values, keys);
  std::vector<std::int32_t> back(values.size());
  unmap_int_keys(keys, back);
  EXPECT_EQ(back, values);
}

TEST(KeyMapping, BulkFloatMappingRejectsNanByIndex) {
  std::vector<float> values(100, 1.0f);
  values[42] = std::numeric_limits<float>::quiet_NaN();
  values[77] = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::uint32_t> keys(values.size());
  try {
    map_float_keys(values, keys);
    FAIL() << "NaN was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("value 42 is NaN"), std::string::npos) << error.what();
  }
}

TEST(KeyMapping, BulkMappingRejectsSizeMismatch) {
  const std::vector<float> values(3, 1.0f);
  std::vector<std::uint32_t> keys(2);
  EXPECT_THROW(map_float_keys(values, keys), Error);
}

}  // namespace
}  // namespace rsw::sort
