// The chairs scene on the CPU: dropped chairs pile up, come nearly to rest, and none sinks
// into the ground; runs repeat per seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/scenes/scene.hpp"

namespace {

using rsw::scenes::Scene;

// A chair's centre of mass is 0.22 above the ground in its lowest resting pose (lying on its
// back, whose spheres reach 0.29 behind the centre's 0.07 offset); lower means it went in.
constexpr float kLowestRestingCentre = 0.22f;

std::unique_ptr<Scene> dropped(std::size_t count, std::uint32_t seed, int frames) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("chairs");
  scene->reset({.count = count, .seed = seed, .backend = rsw::Backend::Cpu});
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < frames; ++frame) {
    scene->step(profiler);
    profiler.end_frame();
  }
  return scene;
}

TEST(ChairsScene, ChairsComeToRestAboveTheGround) {
  std::unique_ptr<Scene> scene = dropped(200, 3, 300);  // 5 s: landed, piled, settling
  const std::vector<std::array<float, 3>> before = scene->positions();
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < 60; ++frame)
    scene->step(profiler);  // one more second
  const std::vector<std::array<float, 3>> after = scene->positions();
  double moved = 0;
  double farthest = 0;
  float lowest = 1e9f;
  float highest = 0;
  for (std::size_t i = 0; i < after.size(); ++i) {
    ASSERT_TRUE(std::isfinite(after[i][0]) && std::isfinite(after[i][1]) &&
                std::isfinite(after[i][2]));
    const double step = std::hypot(after[i][0] - before[i][0], after[i][1] - before[i][1],
                                   after[i][2] - before[i][2]);
    moved += step;
    farthest = std::max(farthest, step);
    lowest = std::min(lowest, after[i][1]);
    highest = std::max(highest, after[i][1]);
  }
  EXPECT_LT(moved / static_cast<double>(after.size()), 0.05) << "mean distance in the last second";
  EXPECT_LT(farthest, 0.5) << "the farthest any chair went in the last second";
  EXPECT_GT(lowest, kLowestRestingCentre - 0.02f) << "a chair sank into the ground";
  EXPECT_GT(highest, 1.0f) << "the chairs piled up, not only side by side";
  EXPECT_GT(scene->stats().pairs, 100u) << "the pile's chairs touch";
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
