#include "rsw/workloads/key_distributions.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "rsw/sort/key_mapping.hpp"

namespace rsw::workloads {

const std::vector<KeyDistribution>& all_distributions() {
  static const std::vector<KeyDistribution> all = {
      KeyDistribution::Uniform,      KeyDistribution::Narrow8,   KeyDistribution::Narrow16,
      KeyDistribution::AllEqual,     KeyDistribution::Sorted,    KeyDistribution::Reversed,
      KeyDistribution::NearlySorted, KeyDistribution::FewUnique, KeyDistribution::GaussianFloats,
      KeyDistribution::SpecialFloats};
  return all;
}

std::string to_string(KeyDistribution distribution) {
  switch (distribution) {
    case KeyDistribution::Uniform: return "Uniform";
    case KeyDistribution::Narrow8: return "Narrow8";
    case KeyDistribution::Narrow16: return "Narrow16";
    case KeyDistribution::AllEqual: return "AllEqual";
    case KeyDistribution::Sorted: return "Sorted";
    case KeyDistribution::Reversed: return "Reversed";
    case KeyDistribution::NearlySorted: return "NearlySorted";
    case KeyDistribution::FewUnique: return "FewUnique";
    case KeyDistribution::GaussianFloats: return "GaussianFloats";
    case KeyDistribution::SpecialFloats: return "SpecialFloats";
  }
  return "Unknown";
}

std::vector<std::uint32_t> make_keys(std::size_t count, KeyDistribution distribution,
                                     std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<std::uint32_t> any;
  std::vector<std::uint32_t> keys(count);
  switch (distribution) {
    case KeyDistribution::Uniform:
    case KeyDistribution::Sorted:
    case KeyDistribution::Reversed:
    case KeyDistribution::NearlySorted:
      for (auto& key : keys)
        key = any(generator);
      break;
    case KeyDistribution::Narrow8:
      for (auto& key : keys)
        key = any(generator) & 0xFFu;
      break;
    case KeyDistribution::Narrow16:
      for (auto& key : keys)
        key = any(generator) & 0xFFFFu;
      break;
    case KeyDistribution::AllEqual: std::ranges::fill(keys, any(generator)); break;
    case KeyDistribution::FewUnique:
      for (auto& key : keys)
        key = (any(generator) % 16u) * 0x01010101u;
      break;
    case KeyDistribution::GaussianFloats: {
      std::normal_distribution<float> normal(0.0f, 100.0f);
      for (auto& key : keys)
        key = sort::ordered_key(normal(generator));
      break;
    }
    case KeyDistribution::SpecialFloats: {
      const float specials[] = {0.0f,           -0.0f,  INFINITY, -INFINITY, 3.4028235e38f,
                                -3.4028235e38f, 1e-45f, -1e-45f,  1.0f,      -1.0f};
      std::uniform_real_distribution<float> uniform(-1e6f, 1e6f);
      for (auto& key : keys) {
        const std::uint32_t pick = any(generator) % 20u;
        key = sort::ordered_key(pick < 10 ? specials[pick] : uniform(generator));
      }
      break;
    }
  }
  if (distribution == KeyDistribution::Sorted || distribution == KeyDistribution::NearlySorted) {
    std::ranges::sort(keys);
  }
  if (distribution == KeyDistribution::Reversed) std::ranges::sort(keys, std::greater<>());
  if (distribution == KeyDistribution::NearlySorted && count > 1) {
    for (std::size_t swap = 0; swap < count / 100; ++swap) {
      const std::size_t i = any(generator) % (count - 1);
      std::swap(keys[i], keys[i + 1]);
    }
  }
  return keys;
}

std::vector<std::uint32_t> make_indices(std::size_t count) {
  std::vector<std::uint32_t> values(count);
  std::iota(values.begin(), values.end(), 0u);
  return values;
}

void reference_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& values,
                    const sort::SortOptions& options) {
  const int bits = options.end_bit - options.begin_bit;
  const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  const auto masked = [&](std::uint32_t key) { return (key >> options.begin_bit) & mask; };
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    return options.order == sort::Order::Ascending ? masked(keys[a]) < masked(keys[b])
                                                   : masked(keys[a]) > masked(keys[b]);
  });
  std::vector<std::uint32_t> sorted_keys(keys.size());
  std::vector<std::uint32_t> sorted_values(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted_keys[i] = keys[order[i]];
    if (!values.empty()) sorted_values[i] = values[order[i]];
  }
  keys.swap(sorted_keys);
  values.swap(sorted_values);
}

}  // namespace rsw::workloads
