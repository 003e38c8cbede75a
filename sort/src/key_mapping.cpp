// Host side of the key mapping: the bulk functions over host memory.
#include "rsw/sort/key_mapping.hpp"

#include <cmath>
#include <string>

#include "rsw/engine/error.hpp"

namespace rsw::sort {
namespace {

void require_same_size(std::size_t inputs, std::size_t outputs, const char* what) {
  if (inputs != outputs) {
    throw Error(ErrorKind::InvalidArgument, std::string(what) + ": " + std::to_string(inputs) +
                                                " inputs but room for " + std::to_string(outputs) +
                                                " outputs");
  }
}

}  // namespace

void map_float_keys(std::span<const float> values, std::span<std::uint32_t> keys) {
  require_same_size(values.size(), keys.size(), "map_float_keys");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      throw Error(ErrorKind::InvalidArgument,
                  "map_float_keys: value " + std::to_string(i) + " is NaN, which has no order");
    }
    keys[i] = ordered_key(values[i]);
  }
}

void unmap_float_keys(std::span<const std::uint32_t> keys, std::span<float> values) {
  require_same_size(keys.size(), values.size(), "unmap_float_keys");
  for (std::size_t i = 0; i < keys.size(); ++i)
    values[i] = float_from_key(keys[i]);
}

void map_int_keys(std::span<const std::int32_t> values, std::span<std::uint32_t> keys) {
  require_same_size(values.size(), keys.size(), "map_int_keys");
  for (std::size_t i = 0; i < values.size(); ++i)
    keys[i] = ordered_key(values[i]);
}

void unmap_int_keys(std::span<const std::uint32_t> keys, std::span<std::int32_t> values) {
  require_same_size(keys.size(), values.size(), "unmap_int_keys");
  for (std::size_t i = 0; i < keys.size(); ++i)
    values[i] = int_from_key(keys[i]);
}

}  // namespace rsw::sort
