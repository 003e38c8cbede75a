// The boxes scene drawn headless (llvmpipe in CI): its boxes cover part of the image and
// leave the background elsewhere.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../render/headless_gl_fixture.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/scenes/scene.hpp"

namespace {

class BoxesSceneGl : public rsw::render::testing::HeadlessGlTest {};

TEST_F(BoxesSceneGl, DrawsItsBoxes) {
  std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene("boxes");
  scene->reset({.count = 2000, .seed = 2, .backend = rsw::Backend::Cpu});
  rsw::StageProfiler profiler;
  scene->step(profiler);
  rsw::render::Renderer renderer({.width = 160, .height = 120, .background = {0, 0, 0}});
  renderer.begin_frame(scene->camera());
  scene->draw(renderer, profiler);
  const std::vector<std::uint8_t> rgba = renderer.read_rgba();
  std::size_t lit = 0;
  for (std::size_t at = 0; at < rgba.size(); at += 4)
    lit += rgba[at] + rgba[at + 1] + rgba[at + 2] > 30 ? 1 : 0;
  const double share = static_cast<double>(lit) / (160.0 * 120.0);
  EXPECT_GT(share, 0.05) << "the boxes";
  EXPECT_LT(share, 0.9) << "and the background around them";
  EXPECT_TRUE(profiler.stats("render").has_value());
}

}  // namespace
