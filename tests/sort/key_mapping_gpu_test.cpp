// The device key mappings agree bit for bit with the host ones, and reject NaN by index.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/sort/key_mapping.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw::sort {
namespace {

TEST(KeyMappingGpu, FloatsMapLikeOnTheHostAndBack) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::mt19937 generator(std::random_device{}());
  std::uniform_int_distribution<std::uint32_t> bits;
  std::vector<float> values(100'003);
  for (float& value : values) {
    do
      value = std::bit_cast<float>(bits(generator));
    while (std::isnan(value));
  }
  values[0] = -0.0f;
  values[1] = INFINITY;
  values[2] = -INFINITY;
  std::vector<std::uint32_t> expected(values.size());
  map_float_keys(values, expected);

  const DeviceBuffer<float> device_values(values);
  DeviceBuffer<std::uint32_t> device_keys(values.size());
  map_float_keys(device_values.span(), device_keys.span());
  EXPECT_EQ(device_keys.to_vector(), expected);

  DeviceBuffer<float> back(values.size());
  unmap_float_keys(device_keys.span(), back.span());
  std::vector<float> expected_back(values.size());
  unmap_float_keys(expected, expected_back);
  const std::vector<float> got_back = back.to_vector();
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got_back[i]),
              std::bit_cast<std::uint32_t>(expected_back[i]))
        << i;
  }
}

TEST(KeyMappingGpu, IntsMapLikeOnTheHostAndBack) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::vector<std::int32_t> values = {std::numeric_limits<std::int32_t>::min(), -7, 0, 7,
                                            std::numeric_limits<std::int32_t>::max()};
  std::vector<std::uint32_t> expected(values.size());
  map_int_keys(values, expected);
  const DeviceBuffer<std::int32_t> device_values(values);
  DeviceBuffer<std::uint32_t> keys(values.size());
  map_int_keys(device_values.span(), keys.span());
  EXPECT_EQ(keys.to_vector(), expected);
  DeviceBuffer<std::int32_t> back(values.size());
  unmap_int_keys(keys.span(), back.span());
  EXPECT_EQ(back.to_vector(), values);
}

TEST(KeyMappingGpu, NanIsRejectedWithTheFirstIndex) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::vector<float> values(1'000'003, 2.5f);
  values[777'777] = std::numeric_limits<float>::quiet_NaN();
  values[500'001] = -std::numeric_limits<float>::quiet_NaN();
  const DeviceBuffer<float> device_values(values);
  DeviceBuffer<std::uint32_t> keys(values.size());
  try {
    map_float_keys(device_values.span(), keys.span());
    FAIL() << "NaN was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("value 500001 is NaN"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace rsw::sort
