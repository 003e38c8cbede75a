// The worlds scene drawn headless (llvmpipe in CI): a board of pads, one a world, in two
// shades, with chairs on them, and the background around the board.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "../render/headless_gl_fixture.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/scenes/scene.hpp"

namespace {

class WorldsSceneGl : public rsw::render::testing::HeadlessGlTest {};

TEST_F(WorldsSceneGl, DrawsEachWorldOnItsPad) {
  std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene("worlds");
  scene->reset({.count = 6 * 16, .seed = 2, .backend = rsw::Backend::Cpu});
  rsw::StageProfiler profiler;
  scene->step(profiler);
  rsw::render::Renderer renderer({.width = 160, .height = 120, .background = {0, 0, 0}});
  renderer.begin_frame(scene->camera());
  scene->draw(renderer, profiler);
  const std::vector<std::uint8_t> rgba = renderer.read_rgba();
  std::size_t lit = 0;
  std::set<std::uint32_t> colours;
  for (std::size_t at = 0; at < rgba.size(); at += 4) {
    lit += rgba[at] + rgba[at + 1] + rgba[at + 2] > 30 ? 1 : 0;
    colours.insert(std::uint32_t{rgba[at]} << 16 | std::uint32_t{rgba[at + 1]} << 8 | rgba[at + 2]);
  }
  const double share = static_cast<double>(lit) / (160.0 * 120.0);
  EXPECT_GT(share, 0.2) << "the board of pads";
  EXPECT_LT(share, 0.95) << "and the background around it";
  EXPECT_GT(colours.size(), 20u) << "pads in two shades, lit, and chairs in their paints";
  EXPECT_EQ(scene->stats().worlds, 16u);
}

}  // namespace
