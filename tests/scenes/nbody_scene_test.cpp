// The n-body scene on the CPU: deterministic per seed, the galaxies fall toward each other,
// every body stays finite, and bad counts are errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/scenes/scene.hpp"

namespace {

using rsw::scenes::Scene;

std::unique_ptr<Scene> nbody(std::size_t count, std::uint32_t seed) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("nbody");
  scene->reset({.count = count, .seed = seed, .backend = rsw::Backend::Cpu});
  return scene;
}

void run(Scene& scene, int frames) {
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < frames; ++frame) {
    scene.step(profiler);
    profiler.end_frame();
  }
}

float distance(const std::array<float, 3>& a, const std::array<float, 3>& b) {
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

TEST(NBodyScene, TheSameSeedGivesTheSameBodies) {
  std::unique_ptr<Scene> first = nbody(1001, 3);
  std::unique_ptr<Scene> second = nbody(1001, 3);
  run(*first, 20);
  run(*second, 20);
  EXPECT_EQ(first->positions(), second->positions());
  std::unique_ptr<Scene> other = nbody(1001, 4);
  run(*other, 20);
  EXPECT_NE(first->positions(), other->positions());
}

TEST(NBodyScene, TheGalaxiesFallTogetherAndStayFinite) {
  std::unique_ptr<Scene> scene = nbody(1500, 1);
  const std::vector<std::array<float, 3>> start = scene->positions();
  const std::size_t second_core = start.size() / 2;
  run(*scene, 120);
  const std::vector<std::array<float, 3>> later = scene->positions();
  EXPECT_LT(distance(later[0], later[second_core]), distance(start[0], start[second_core]) - 0.5f);
  for (const auto& body : later) {
    for (const float coordinate : body)
      ASSERT_TRUE(std::isfinite(coordinate));
  }
  EXPECT_EQ(scene->stats().objects, 1500u);
  EXPECT_GT(scene->stats().pairs, 0u) << "bodies touch the cores at least";
}

TEST(NBodyScene, CountsOutOfRangeAreErrors) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("nbody");
  EXPECT_THROW(scene->reset({.count = 1, .backend = rsw::Backend::Cpu}), rsw::Error);
  EXPECT_THROW(scene->reset({.count = std::size_t{1} << 20, .backend = rsw::Backend::Cpu}),
               rsw::Error);
}

}  // namespace
