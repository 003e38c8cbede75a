// A world's events on the device against the host's and the oracle: sets of awkward sizes
// (around a thread's and a block's share), all kept, none kept, and buffers reused across
// steps that grow and shrink.
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "pair_events_checks.hpp"
#include "rsw_test/cuda_device.hpp"
#include "world/pair_events.hpp"

namespace rsw::test {
namespace {

using physics::Pair;

class PairEventsGpu : public ::testing::TestWithParam<std::tuple<std::size_t, double>> {
 protected:
  void SetUp() override { RSW_REQUIRE_CUDA_DEVICE(); }
};

TEST_P(PairEventsGpu, MatchTheHostAndTheOracle) {
  const auto [count, keep] = GetParam();
  const std::uint32_t seed = std::random_device{}();
  std::mt19937 generator(seed);
  const auto [previous, current] = consecutive_sets(count, keep, generator);
  const DeviceBuffer<Pair> device_previous{std::span<const Pair>(previous)};
  const DeviceBuffer<Pair> device_current{std::span<const Pair>(current)};
  auto events = physics::detail::make_device_pair_events();
  events->find(device_previous.span(), device_current.span(), nullptr);
  const physics::detail::DevicePairEventView view = events->read();
  std::vector<Pair> found;
  std::vector<Pair> lost;
  physics::detail::find_pair_events(previous, current, found, lost);
  EXPECT_EQ(to_host(view.found), found) << "seed " << seed;
  EXPECT_EQ(to_host(view.lost), lost) << "seed " << seed;
  EXPECT_EQ(found, oracle_difference(current, previous)) << "seed " << seed;
}

// 2048 pairs are a block's share, 8 a thread's.
INSTANTIATE_TEST_SUITE_P(Sizes, PairEventsGpu,
                         ::testing::Combine(::testing::Values(0, 1, 7, 8, 9, 2047, 2048, 2049,
                                                              100'003),
                                            ::testing::Values(0.0, 0.5, 0.99, 1.0)));

TEST(PairEventsGpuSteps, OneFinderThroughStepsThatGrowAndShrink) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  std::mt19937 generator(seed);
  auto events = physics::detail::make_device_pair_events();
  std::vector<Pair> previous;
  for (const std::size_t count : {1000u, 50'000u, 3u, 0u, 20'011u, 20'011u}) {
    const std::vector<Pair> current = next_pair_set(previous, 0.7, count, 200'000, generator);
    const DeviceBuffer<Pair> device_previous{std::span<const Pair>(previous)};
    const DeviceBuffer<Pair> device_current{std::span<const Pair>(current)};
    events->find(device_previous.span(), device_current.span(), nullptr);
    const physics::detail::DevicePairEventView view = events->read();
    EXPECT_EQ(to_host(view.found), oracle_difference(current, previous)) << "seed " << seed;
    EXPECT_EQ(to_host(view.lost), oracle_difference(previous, current)) << "seed " << seed;
    previous = current;
  }
}

}  // namespace
}  // namespace rsw::test
