// The chairs scene on the CPU: dropped chairs pile up, come nearly to rest, and none sinks
// into the ground; runs repeat per seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/scenes/scene.hpp"
#include "scene_runs.hpp"

namespace {

using rsw::scenes::Scene;

// A chair's centre of mass is 0.22 above the ground in its lowest resting pose (lying on its
// back, whose spheres reach 0.29 behind the centre's 0.07 offset); lower means it went in.
constexpr float kLowestRestingCentre = 0.22f;

std::unique_ptr<Scene> dropped(std::size_t count, std::uint32_t seed, int frames) {
  return rsw::scenes::testing::run_on_cpu("chairs", count, seed, frames);
}

TEST(ChairsScene, ChairsComeToRestAboveTheGround) {
  std::unique_ptr<Scene> scene = dropped(200, 3, 300);  // 5 s: landed, piled, settling
  const std::vector<std::array<float, 3>> before = scene->positions();
  rsw::scenes::testing::advance(*scene, 60);  // one more second
  const std::vector<std::array<float, 3>> after = scene->positions();
  float lowest = 1e9f;
  float highest = 0;
  for (const auto& p : after) {
    ASSERT_TRUE(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]));
    lowest = std::min(lowest, p[1]);
    highest = std::max(highest, p[1]);
  }
  const rsw::scenes::testing::Moves moved = rsw::scenes::testing::moves(before, after);
  EXPECT_LT(moved.mean, 0.05) << "mean distance in the last second";
  EXPECT_LT(moved.farthest, 0.5) << "the farthest any chair went in the last second";
  EXPECT_GT(lowest, kLowestRestingCentre - 0.02f) << "a chair sank into the ground";
  EXPECT_GT(highest, 1.0f) << "the chairs piled up, not only side by side";
  EXPECT_GT(scene->stats().pairs, 100u) << "the pile's chairs touch";
}

TEST(ChairsScene, ContactsThatBeginAndEndAreCounted) {
  // Falling chairs land on each other: contacts begin, and some end as chairs bounce and slide.
  std::unique_ptr<Scene> scene = dropped(200, 3, 1);
  EXPECT_TRUE(scene->stats().events);
  EXPECT_EQ(scene->stats().found, 0u) << "the first step's pairs are the start, not contacts";
  std::size_t found = 0;
  std::size_t lost = 0;
  for (int frame = 0; frame < 200; ++frame) {
    rsw::scenes::testing::advance(*scene, 1);
    found += scene->stats().found;
    lost += scene->stats().lost;
  }
  EXPECT_GT(found, 100u);
  EXPECT_GT(lost, 10u);
  EXPECT_LT(lost, found) << "the pile holds more contacts than it started with";
}

TEST(ChairsScene, TheSameSeedGivesTheSameRun) {
  EXPECT_EQ(dropped(150, 9, 40)->positions(), dropped(150, 9, 40)->positions());
  EXPECT_NE(dropped(150, 9, 40)->positions(), dropped(150, 10, 40)->positions());
}

TEST(ChairsScene, CountsOutOfRangeAreErrors) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("chairs");
  EXPECT_THROW(scene->reset({.count = 0, .backend = rsw::Backend::Cpu}), rsw::Error);
  EXPECT_THROW(scene->reset({.count = std::size_t{1} << 21, .backend = rsw::Backend::Cpu}),
               rsw::Error);
}

}  // namespace
