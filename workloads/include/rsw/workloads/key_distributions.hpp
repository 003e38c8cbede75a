// Keys for sort tests and benchmarks: random keys of a named distribution, and the reference
// every radix sort must match exactly (std::stable_sort by the masked key).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rsw/sort/sorter.hpp"

namespace rsw::workloads {

enum class KeyDistribution {
  Uniform,         ///< all 32 bits random
  Narrow8,         ///< keys < 2^8
  Narrow16,        ///< keys < 2^16
  AllEqual,        ///< one random key n times
  Sorted,          ///< uniform, then sorted
  Reversed,        ///< uniform, sorted descending
  NearlySorted,    ///< sorted, then 1% of neighbours swapped
  FewUnique,       ///< 16 distinct keys: stability shows
  GaussianFloats,  ///< ordered_key of N(0, 100) floats: negatives and positives
  SpecialFloats,   ///< ordered_key of ±0, ±inf, ±max, denormals among random floats
};

/// Every distribution, in declaration order.
const std::vector<KeyDistribution>& all_distributions();
/// The distribution's name as declared ("NearlySorted").
std::string to_string(KeyDistribution distribution);

/// `count` keys of `distribution` from a generator seeded with `seed` (callers draw the seed
/// from std::random_device and print it, so that a failure can be reproduced).
std::vector<std::uint32_t> make_keys(std::size_t count, KeyDistribution distribution,
                                     std::uint32_t seed);

/// Values 0..n-1: after a key-index sort they name each key's original position.
std::vector<std::uint32_t> make_indices(std::size_t count);

/// The oracle: std::stable_sort of (key, value) by the key's bits [begin_bit, end_bit).
void reference_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& values,
                    const sort::SortOptions& options);

}  // namespace rsw::workloads
