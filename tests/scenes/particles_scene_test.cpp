// The particles scene on the CPU: poured particles land on the landscape and never sink into
// it by more than half a radius (checked against the scene's own height field, rebuilt from
// the count and seed), stay inside the walls, come nearly to rest, and runs repeat per seed.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "particles_landscape.hpp"
#include "particles_math.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/scenes/scene.hpp"
#include "scene_runs.hpp"

namespace {

using rsw::scenes::Scene;
namespace detail = rsw::scenes::detail;

constexpr float kRadius = 0.05f;  // particles_scene.cpp's

std::unique_ptr<Scene> poured(std::size_t count, std::uint32_t seed, int frames) {
  return rsw::scenes::testing::run_on_cpu("particles", count, seed, frames);
}

TEST(ParticlesScene, ParticlesRestOnTheLandscapeWithoutSinking) {
  constexpr std::uint32_t kCount = 3000;
  constexpr std::uint32_t kSeed = 5;
  std::unique_ptr<Scene> scene = poured(kCount, kSeed, 150);  // 2.5 s: landed and spread
  const detail::LandscapeGrid grid = detail::make_landscape(kCount, kSeed, kRadius);
  const detail::Landscape land{grid.heights.data(), detail::kLandscapeSamples,
                               detail::kLandscapeSamples, grid.half_extent};
  float deepest = 0;
  for (const auto& p : scene->positions()) {
    ASSERT_TRUE(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]));
    EXPECT_LE(std::abs(p[0]), grid.half_extent + kRadius) << "inside the walls";
    EXPECT_LE(std::abs(p[2]), grid.half_extent + kRadius) << "inside the walls";
    float slope_x = 0;
    float slope_z = 0;
    const float ground = detail::landscape_height(land, p[0], p[2], slope_x, slope_z);
    deepest = std::max(deepest, ground - (p[1] - kRadius));
  }
  EXPECT_LT(deepest, 0.5f * kRadius) << "how far a particle's bottom went below the ground";
  EXPECT_GT(scene->stats().pairs, 0u) << "the pile's particles touch";
}

TEST(ParticlesScene, ThePileComesNearlyToRest) {
  std::unique_ptr<Scene> scene = poured(1500, 2, 120);
  const std::vector<std::array<float, 3>> before = scene->positions();
  rsw::scenes::testing::advance(*scene, 120);  // two more seconds
  EXPECT_LT(rsw::scenes::testing::moves(before, scene->positions()).mean, 0.5)
      << "mean distance in two seconds";
}

TEST(ParticlesScene, TheSameSeedGivesTheSameRun) {
  EXPECT_EQ(poured(700, 9, 30)->positions(), poured(700, 9, 30)->positions());
  EXPECT_NE(poured(700, 9, 30)->positions(), poured(700, 10, 30)->positions());
}

TEST(ParticlesScene, CountsOutOfRangeAreErrors) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("particles");
  EXPECT_THROW(scene->reset({.count = 0, .backend = rsw::Backend::Cpu}), rsw::Error);
}

}  // namespace
