// The check every sort test makes: sort fresh keys (and their indices) with a Sorter and
// compare with std::stable_sort, reporting the first difference and the seed.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/sort/sorter.hpp"
#include "rsw/workloads/key_distributions.hpp"

namespace rsw::test {

using namespace rsw::workloads;  // the shared scenes and keys, unqualified in the tests

enum class Memory { Host, Device };

inline std::uint32_t fresh_seed() {
  return std::random_device{}();
}

inline ::testing::AssertionResult same_sequence(const std::vector<std::uint32_t>& expected,
                                                const std::vector<std::uint32_t>& actual,
                                                const char* what) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure()
           << what << ": size " << actual.size() << ", expected " << expected.size();
  }
  const auto [want, got] = std::ranges::mismatch(expected, actual);
  if (want == expected.end()) return ::testing::AssertionSuccess();
  const auto index = want - expected.begin();
  return ::testing::AssertionFailure()
         << what << " differ first at index " << index << " of " << expected.size() << ": got "
         << *got << ", expected " << *want;
}

/// Sorts `keys` (with indices as values when `with_values`) with `sorter` in `memory` and
/// checks the result against reference_sort. Returns the sorter's stats.
inline sort::SortStats check_sort(sort::Sorter& sorter, std::vector<std::uint32_t> keys,
                                  bool with_values, const sort::SortOptions& options, Memory memory,
                                  std::uint32_t seed) {
  std::vector<std::uint32_t> values =
      with_values ? make_indices(keys.size()) : std::vector<std::uint32_t>{};
  std::vector<std::uint32_t> expected_keys = keys;
  std::vector<std::uint32_t> expected_values = values;
  reference_sort(expected_keys, expected_values, options);

  if (memory == Memory::Host) {
    if (with_values) {
      sorter.sort_pairs(keys, values, options);
    } else {
      sorter.sort_keys(keys, options);
    }
  } else {
    DeviceBuffer<std::uint32_t> device_keys(keys);
    DeviceBuffer<std::uint32_t> device_values(values);
    if (with_values) {
      sorter.sort_pairs(device_keys.span(), device_values.span(), options);
    } else {
      sorter.sort_keys(device_keys.span(), options);
    }
    keys = device_keys.to_vector(options.stream);
    values = device_values.to_vector(options.stream);
  }
  const sort::SortStats stats = sorter.last_stats();
  const std::string context = "seed " + std::to_string(seed) + ", n " + std::to_string(keys.size());
  EXPECT_TRUE(same_sequence(expected_keys, keys, "keys")) << context;
  if (with_values) {
    EXPECT_TRUE(same_sequence(expected_values, values, "values")) << context;
  }
  EXPECT_EQ(stats.count, keys.size());
  EXPECT_EQ(stats.passes_run + stats.passes_skipped, stats.passes_total);
  return stats;
}

/// Whether (keys, values) is the stable ascending sort of `original` with values = indices,
/// checked in O(n) (for sizes where std::stable_sort as an oracle would take too long): keys
/// ascending, each value a distinct index whose original key is the key beside it, and equal
/// keys in index order.
inline ::testing::AssertionResult is_stable_sort_of(const std::vector<std::uint32_t>& original,
                                                    const std::vector<std::uint32_t>& keys,
                                                    const std::vector<std::uint32_t>& values) {
  if (keys.size() != original.size() || values.size() != original.size()) {
    return ::testing::AssertionFailure() << "sizes " << keys.size() << " and " << values.size()
                                         << ", expected " << original.size();
  }
  std::vector<bool> seen(original.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint32_t index = values[i];
    if (index >= original.size() || seen[index] || original[index] != keys[i]) {
      return ::testing::AssertionFailure()
             << "at " << i << ": value " << index << " is not a fresh index of key " << keys[i];
    }
    seen[index] = true;
    if (i > 0 && (keys[i - 1] > keys[i] || (keys[i - 1] == keys[i] && values[i - 1] > index))) {
      return ::testing::AssertionFailure()
             << "at " << i << ": (" << keys[i - 1] << ", " << values[i - 1] << ") before ("
             << keys[i] << ", " << index << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

/// `count` fresh keys of `distribution` sorted alone, then with their indices, in host memory.
inline void check_keys_and_pairs(sort::Algorithm algorithm, std::size_t count,
                                 KeyDistribution distribution) {
  sort::Sorter sorter;
  for (bool with_values : {false, true}) {
    const std::uint32_t seed = fresh_seed();
    check_sort(sorter, make_keys(count, distribution, seed), with_values, {.algorithm = algorithm},
               Memory::Host, seed);
  }
}

/// Keys and pairs in device memory, sorted on a stream of their own.
inline void check_on_a_stream(sort::Algorithm algorithm) {
  sort::Sorter sorter;
  Stream stream;
  for (bool with_values : {false, true}) {
    const std::uint32_t seed = fresh_seed();
    check_sort(sorter, make_keys(300'007, KeyDistribution::GaussianFloats, seed), with_values,
               {.algorithm = algorithm, .stream = stream.handle()}, Memory::Device, seed);
  }
}

/// More distinct sizes than a sorter keeps graphs for, twice over, through one sorter.
inline void check_many_sizes(sort::Algorithm algorithm) {
  sort::Sorter sorter;
  for (int round = 0; round < 2; ++round) {
    for (std::size_t count = 10'000; count < 130'000; count += 10'007) {
      const std::uint32_t seed = fresh_seed();
      check_sort(sorter, make_keys(count, KeyDistribution::Uniform, seed), true,
                 {.algorithm = algorithm}, Memory::Device, seed);
    }
  }
}

/// Sorts whose count lies in device memory (SortOptions::device_count), in spans of room for
/// more: counts from none to past the room (which sorts the room), keys alone and with their
/// indices, on a stream. The count is uploaded on that stream just before each sort, so only
/// the device knows it when the sort is queued. Keys past the count must stay as they were.
inline void check_device_counts(sort::Algorithm algorithm, bool nearly_sorted = false) {
  sort::Sorter sorter;
  Stream stream;
  DeviceBuffer<std::uint64_t> device_count(1);
  for (const std::size_t room : {std::size_t{3000}, std::size_t{300'007}}) {
    for (const std::uint64_t count :
         {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{2999},
          std::uint64_t{4097}, std::uint64_t{65'521}, std::uint64_t{room - 1}, std::uint64_t{room},
          std::uint64_t{room} + 5}) {
      if (count > room + 5) continue;
      for (const bool with_values : {false, true}) {
        const std::uint32_t seed = fresh_seed();
        SCOPED_TRACE("room " + std::to_string(room) + ", count " + std::to_string(count) +
                     (with_values ? ", pairs" : ", keys") + ", seed " + std::to_string(seed));
        const std::vector<std::uint32_t> keys = make_keys(
            room, nearly_sorted ? KeyDistribution::NearlySorted : KeyDistribution::Uniform, seed);
        const std::vector<std::uint32_t> values = make_indices(room);
        const auto sorted = static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(count, room));
        std::vector<std::uint32_t> expected_keys(keys.begin(), keys.begin() + sorted);
        std::vector<std::uint32_t> expected_values(values.begin(), values.begin() + sorted);
        const sort::SortOptions options{.algorithm = algorithm,
                                        .nearly_sorted = nearly_sorted,
                                        .stream = stream.handle(),
                                        .device_count = device_count.data()};
        reference_sort(expected_keys, expected_values, options);
        expected_keys.insert(expected_keys.end(), keys.begin() + sorted, keys.end());
        expected_values.insert(expected_values.end(), values.begin() + sorted, values.end());

        DeviceBuffer<std::uint32_t> device_keys(keys, stream.handle());
        DeviceBuffer<std::uint32_t> device_values(values, stream.handle());
        device_count.upload(std::span(&count, 1), stream.handle());
        if (with_values) {
          sorter.sort_pairs(device_keys.span(), device_values.span(), options);
        } else {
          sorter.sort_keys(device_keys.span(), options);
        }
        EXPECT_TRUE(same_sequence(expected_keys, device_keys.to_vector(stream.handle()), "keys"));
        if (with_values) {
          EXPECT_TRUE(
              same_sequence(expected_values, device_values.to_vector(stream.handle()), "values"));
        }
        EXPECT_EQ(sorter.last_stats().count, static_cast<std::size_t>(sorted));
      }
    }
  }
}

/// Test names of (size, distribution) parameters: "Uniform_4097".
inline std::string size_and_distribution_name(
    const ::testing::TestParamInfo<std::tuple<std::size_t, KeyDistribution>>& info) {
  return to_string(std::get<1>(info.param)) + "_" + std::to_string(std::get<0>(info.param));
}

/// Bit ranges (including empty and one-bit ones) and both orders, on keys with and without
/// duplicates, with `algorithm` on `memory`.
inline void check_bit_ranges_and_orders(sort::Algorithm algorithm, Memory memory) {
  sort::Sorter sorter;
  const std::vector<std::pair<int, int>> ranges = {{0, 32},  {0, 7},   {4, 20},
                                                   {16, 32}, {31, 32}, {5, 5}};
  for (const auto& [begin_bit, end_bit] : ranges) {
    for (sort::Order order : {sort::Order::Ascending, sort::Order::Descending}) {
      for (KeyDistribution distribution : {KeyDistribution::Uniform, KeyDistribution::FewUnique}) {
        const std::uint32_t seed = fresh_seed();
        SCOPED_TRACE("bits [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) + ") " +
                     (order == sort::Order::Ascending ? "ascending" : "descending"));
        check_sort(
            sorter, make_keys(100'003, distribution, seed), true,
            {.algorithm = algorithm, .begin_bit = begin_bit, .end_bit = end_bit, .order = order},
            memory, seed);
      }
    }
  }
}

}  // namespace rsw::test
