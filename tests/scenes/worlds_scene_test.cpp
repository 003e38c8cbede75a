// The worlds scene on the CPU: every world lies in the same region of space, and its chairs
// meet only each other: they land and settle on their own ground as a world alone would, in a
// pile no higher than six chairs make, and never thrown apart by the chairs of other worlds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/scenes/scene.hpp"
#include "scene_runs.hpp"

namespace {

using rsw::scenes::Scene;

TEST(WorldsScene, EachWorldsChairsMeetOnlyEachOther) {
  constexpr std::size_t kWorlds = 101;
  std::unique_ptr<Scene> scene =
      rsw::scenes::testing::run_on_cpu("worlds", 6 * kWorlds - 2, 5, 150);  // 2.5 s: landed
  EXPECT_EQ(scene->stats().worlds, kWorlds) << "the last world holds four chairs";
  EXPECT_EQ(scene->stats().objects, 6 * kWorlds - 2);
  float highest = 0;
  float lowest = 1e9f;
  float widest = 0;
  for (const auto& p : scene->positions()) {
    ASSERT_TRUE(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]));
    highest = std::max(highest, p[1]);
    lowest = std::min(lowest, p[1]);
    widest = std::max({widest, std::abs(p[0]), std::abs(p[2])});
  }
  // 600 chairs meeting in one place would heap up and burst apart; six land in a low pile and
  // a few tumble off it, sliding a few metres at most.
  EXPECT_LT(highest, 2.0f) << "a chair high above its world's pile";
  EXPECT_LT(widest, 8.0f) << "a chair thrown far out of its world's region";
  EXPECT_GT(lowest, 0.2f) << "a chair sank into the ground";
  EXPECT_GT(scene->stats().pairs, 0u) << "a world's chairs land on each other";
  EXPECT_LE(scene->stats().pairs, 15 * kWorlds) << "more pairs than six chairs a world make";
}

TEST(WorldsScene, AWorldAmongOthersRunsAsItWouldAlone) {
  // World 0 is dropped first from the seed: alone or among 40 others, it starts the same, and
  // its chairs follow the same paths (up to the order in which their contacts are summed).
  const auto among = rsw::scenes::testing::run_on_cpu("worlds", 6 * 41, 7, 30)->positions();
  const auto alone = rsw::scenes::testing::run_on_cpu("worlds", 6, 7, 30)->positions();
  ASSERT_EQ(alone.size(), 6u);
  for (std::size_t i = 0; i < alone.size(); ++i) {
    for (int axis = 0; axis < 3; ++axis)
      EXPECT_NEAR(among[i][axis], alone[i][axis], 5e-3f) << "chair " << i << " axis " << axis;
  }
}

TEST(WorldsScene, TheSameSeedGivesTheSameRun) {
  const auto run = [](std::uint32_t seed) {
    return rsw::scenes::testing::run_on_cpu("worlds", 60, seed, 20)->positions();
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(WorldsScene, CountsOutOfRangeAreErrors) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("worlds");
  EXPECT_THROW(scene->reset({.count = 0, .backend = rsw::Backend::Cpu}), rsw::Error);
  EXPECT_THROW(scene->reset({.count = std::size_t{1} << 21, .backend = rsw::Backend::Cpu}),
               rsw::Error);
}

}  // namespace
