// A world's events on the host: found and lost pairs between two steps' pair sets, against
// the oracle, on sets of awkward sizes and overlaps.
#include "world/pair_events.hpp"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "pair_events_checks.hpp"

namespace rsw::test {
namespace {

using physics::Pair;

TEST(PairEvents, EmptySetsHaveNoEvents) {
  std::vector<Pair> found = {{1, 2}};
  std::vector<Pair> lost = {{3, 4}};
  physics::detail::find_pair_events({}, {}, found, lost);
  EXPECT_TRUE(found.empty());
  EXPECT_TRUE(lost.empty());
}

TEST(PairEvents, AFirstStepFindsEveryPairAndALastLosesThem) {
  const std::vector<Pair> pairs = {{0, 1}, {0, 7}, {2, 3}, {5, 6}};
  std::vector<Pair> found;
  std::vector<Pair> lost;
  physics::detail::find_pair_events({}, pairs, found, lost);
  EXPECT_EQ(found, pairs);
  EXPECT_TRUE(lost.empty());
  physics::detail::find_pair_events(pairs, {}, found, lost);
  EXPECT_TRUE(found.empty());
  EXPECT_EQ(lost, pairs);
}

TEST(PairEvents, PairsThatDifferInOneIndexAreDifferentPairs) {
  const std::vector<Pair> previous = {{0, 1}, {0, 2}, {1, 2}};
  const std::vector<Pair> current = {{0, 2}, {0, 3}, {2, 3}};
  std::vector<Pair> found;
  std::vector<Pair> lost;
  physics::detail::find_pair_events(previous, current, found, lost);
  EXPECT_EQ(found, (std::vector<Pair>{{0, 3}, {2, 3}}));
  EXPECT_EQ(lost, (std::vector<Pair>{{0, 1}, {1, 2}}));
}

class PairEventsRandom : public ::testing::TestWithParam<std::tuple<std::size_t, double>> {};

TEST_P(PairEventsRandom, MatchTheOracle) {
  const auto [count, keep] = GetParam();
  const std::uint32_t seed = std::random_device{}();
  std::mt19937 generator(seed);
  const auto [previous, current] = consecutive_sets(count, keep, generator);
  std::vector<Pair> found;
  std::vector<Pair> lost;
  physics::detail::find_pair_events(previous, current, found, lost);
  EXPECT_EQ(found, oracle_difference(current, previous)) << "seed " << seed;
  EXPECT_EQ(lost, oracle_difference(previous, current)) << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(Sizes, PairEventsRandom,
                         ::testing::Combine(::testing::Values(0, 1, 2, 7, 2047, 2049, 100'003),
                                            ::testing::Values(0.0, 0.5, 0.99, 1.0)));

}  // namespace
}  // namespace rsw::test
